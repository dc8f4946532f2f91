package config

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Scope says which file a setting lives in.
type Scope uint8

const (
	// Shared settings live in reflect.toml and travel with the memory.
	Shared Scope = iota
	// Local settings live in .git/reflect/config.toml and never leave this machine.
	Local
)

func (s Scope) String() string {
	if s == Local {
		return "local"
	}
	return "shared"
}

// A Key is one setting.
type Key struct {
	Name  string `json:"key"` // dotted: section.key
	Scope Scope  `json:"-"`
	kind  reflect.Kind
	dur   bool
	field []int // index path into Config
}

// localSections are the sections that belong to the machine: each names a program, a
// spending cap, an identity or where the memory syncs to.
var localSections = []string{"author", "drain", "sync", "history"}

// localKeys are local keys inside a shared section.
var localKeys = []string{"recall.from_others", "recall.resident"}

// Keys lists every setting, in the order of Config's fields.
func Keys() []Key { return slices.Clone(allKeys()) }

// allKeys is Keys, worked out by reflection once per process: a hook's settings load looked
// each key of the file up in a list rebuilt for every lookup (3% of a PostToolUse hook's CPU,
// perf over 80 hook processes).
var allKeys = sync.OnceValue(func() []Key {
	var out []Key
	ct := reflect.TypeOf(Config{})
	durType := reflect.TypeOf(Duration(0))
	for i := range ct.NumField() {
		sec := ct.Field(i)
		secName := tagName(sec)
		for j := range sec.Type.NumField() {
			f := sec.Type.Field(j)
			name := secName + "." + tagName(f)
			scope := Shared
			if slices.Contains(localSections, secName) || slices.Contains(localKeys, name) {
				scope = Local
			}
			out = append(out, Key{Name: name, Scope: scope, kind: f.Type.Kind(), dur: f.Type == durType, field: []int{i, j}})
		}
	}
	return out
})

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

func lookupKey(name string) (Key, bool) {
	for _, k := range allKeys() {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// LookupKey returns the setting called name (dotted), or an error listing the known ones.
func LookupKey(name string) (Key, error) {
	if k, ok := lookupKey(name); ok {
		return k, nil
	}
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
	}
	return Key{}, fmt.Errorf("unknown setting %q; the settings are: %s", name, strings.Join(names, ", "))
}

// Value returns key's value in c as the text `reflect config get` prints.
func (c Config) Value(k Key) string {
	v := reflect.ValueOf(c).FieldByIndex(k.field)
	switch {
	case k.dur:
		return time.Duration(v.Int()).String()
	case k.kind == reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// Literal turns what a person typed for k into a TOML value: a string is quoted, a number or
// a boolean must parse as one.
func (k Key) Literal(value string) (string, error) {
	switch {
	case k.dur:
		if _, err := time.ParseDuration(value); err != nil {
			return "", &Error{Key: k.Name, Msg: fmt.Sprintf("not a duration like \"500ms\" or \"10s\": %q", value)}
		}
		return strconv.Quote(value), nil
	case k.kind == reflect.String:
		return strconv.Quote(value), nil
	case k.kind == reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return "", &Error{Key: k.Name, Msg: fmt.Sprintf("not true or false: %q", value)}
		}
		return strconv.FormatBool(b), nil
	case k.kind == reflect.Int:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return "", &Error{Key: k.Name, Msg: fmt.Sprintf("not a whole number: %q", value)}
		}
		return strconv.FormatInt(n, 10), nil
	case k.kind == reflect.Float64:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) { // ParseFloat takes NaN and Inf, which TOML writes nan and inf
			return "", &Error{Key: k.Name, Msg: fmt.Sprintf("not a number: %q", value)}
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("%s cannot be set", k.Name)
}

// flatten lists the dotted names of the leaf values of a decoded TOML document.
func flatten(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			out = append(out, flatten(sub, name)...)
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// keyLines maps each dotted key to the line that sets it, for the common shapes of a
// settings file: [section] headers and `key = value` or `a.b = value` lines. Keys it cannot
// place (inline tables, multi-line values) are simply absent: a message then has no line.
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#':
		case strings.HasPrefix(line, "[["):
			section = "\x00" // arrays of tables hold nothing reflect reads
		case line[0] == '[':
			if end := strings.IndexByte(line, ']'); end > 0 {
				section = normKey(line[1:end])
			}
		default:
			if k, _, ok := strings.Cut(line, "="); ok {
				name := normKey(k)
				if section != "" {
					name = section + "." + name
				}
				if _, seen := out[name]; !seen {
					out[name] = n
				}
			}
		}
	}
	return out
}

// normKey turns `a . "b"` into a.b.
func normKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}
