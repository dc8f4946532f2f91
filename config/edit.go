package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Set returns data with key set to literal (a TOML value, see Key.Literal), editing only the
// line that sets it — or adding one to its section, or the section at the end — so that a
// person's comments and layout survive. The result is checked: it must parse and hold the
// value.
func Set(data []byte, k Key, literal string) ([]byte, error) {
	sec, name, _ := strings.Cut(k.Name, ".")
	lines := strings.SplitAfter(string(data), "\n")
	section, header, last := "", -1, -1
	out := -1
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || line[0] == '#':
		case line[0] == '[':
			section = ""
			if end := strings.IndexByte(line, ']'); end > 0 && !strings.HasPrefix(line, "[[") {
				section = normKey(line[1:end])
			}
			if section == sec {
				header, last = i, i
			}
		default:
			key, _, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			full := normKey(key)
			if section != "" {
				full = section + "." + full
			}
			if section == sec {
				last = i
			}
			if full == k.Name && out < 0 {
				out = i
			}
		}
	}
	setLine := name + " = " + literal + "\n"
	switch {
	case out >= 0:
		indent := lines[out][:len(lines[out])-len(strings.TrimLeft(lines[out], " \t"))]
		key, _, _ := strings.Cut(strings.TrimSpace(lines[out]), "=")
		lines[out] = indent + strings.TrimSpace(key) + " = " + literal + "\n"
	case header >= 0:
		if !strings.HasSuffix(lines[last], "\n") {
			lines[last] += "\n"
		}
		lines = slices.Insert(lines, last+1, setLine)
	default:
		tail := ""
		if n := len(lines); n > 0 && lines[n-1] != "" && !strings.HasSuffix(lines[n-1], "\n") {
			tail = "\n"
		}
		lines = append(lines, tail+"\n["+sec+"]\n"+setLine)
	}
	res := []byte(strings.Join(lines, ""))
	var check map[string]any
	if err := toml.Unmarshal(res, &check); err != nil {
		return nil, fmt.Errorf("set %s: the file would not parse (%v); edit it by hand", k.Name, err)
	}
	if !slices.Contains(flatten(check, ""), k.Name) {
		return nil, fmt.Errorf("set %s: could not place the key in the file; edit it by hand", k.Name)
	}
	return res, nil
}

// Remove returns data without the lines that set the named keys. A key it cannot remove
// line by line (an inline table, a multi-line value) is an error naming it.
func Remove(data []byte, names []string) ([]byte, error) {
	lines := strings.SplitAfter(string(data), "\n")
	section := ""
	kept := lines[:0:0]
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		if line != "" && line[0] == '[' {
			section = ""
			if end := strings.IndexByte(line, ']'); end > 0 && !strings.HasPrefix(line, "[[") {
				section = normKey(line[1:end])
			}
		} else if key, _, ok := strings.Cut(line, "="); ok && line[0] != '#' {
			full := normKey(key)
			if section != "" {
				full = section + "." + full
			}
			if slices.Contains(names, full) {
				continue
			}
		}
		kept = append(kept, raw)
	}
	res := []byte(strings.Join(kept, ""))
	var check map[string]any
	if err := toml.Unmarshal(res, &check); err != nil {
		return nil, fmt.Errorf("remove %s: the file would not parse (%v); edit it by hand", strings.Join(names, ", "), err)
	}
	for _, k := range flatten(check, "") {
		if slices.Contains(names, k) {
			return nil, fmt.Errorf("remove %s: the key is not on a line of its own; edit the file by hand", k)
		}
	}
	return res, nil
}

// Split moves the local keys out of an old shared file (from before settings had two
// files): it returns the shared file without them, a local file holding them (the default
// local file with their values set) and their names. A local key whose value is not valid
// is dropped from the shared file and not carried over; it is named in skipped. Without
// carry every local key is dropped so, and none is carried: the shared file of a memory
// that syncs is written by whoever can push to its remote, and a local key chooses a
// program, an endpoint, an identity or a gate on this machine.
func Split(shared []byte, carry bool) (newShared, localFile []byte, moved, skipped []string, err error) {
	var present map[string]any
	if err := toml.Unmarshal(shared, &present); err != nil {
		return nil, nil, nil, nil, decodeError(FileName, err)
	}
	localFile = []byte(DefaultLocalFile)
	var remove []string
	for _, name := range flatten(present, "") {
		k, ok := lookupKey(name)
		if !ok || k.Scope != Local {
			continue
		}
		remove = append(remove, name)
		if !carry {
			skipped = append(skipped, name)
			continue
		}
		if lit := literalOf(leaf(present, name)); oldDefaults[name] == lit {
			continue // the value an older init wrote for everyone, not a choice: today's default stands
		}
		next, err := Set(localFile, k, literalOf(leaf(present, name)))
		if err == nil {
			_, _, err = ParseLocal(LocalFileName, next)
		}
		if err != nil {
			skipped = append(skipped, name)
			continue
		}
		localFile = next
		moved = append(moved, name)
	}
	if len(remove) == 0 {
		return shared, localFile, nil, nil, nil
	}
	if newShared, err = Remove(shared, remove); err != nil {
		return nil, nil, nil, nil, err
	}
	return newShared, localFile, moved, skipped, nil
}

// leaf finds a dotted key's value in a decoded document.
func leaf(m map[string]any, name string) any {
	var v any = m
	for _, part := range strings.Split(name, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[part]
	}
	return v
}

// literalOf writes a decoded scalar back as TOML; anything else gives an invalid literal.
func literalOf(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case bool, int64, float64:
		return fmt.Sprint(v)
	}
	return "{}"
}

// oldDefaults are the local keys' values as the reflect.toml of an older init wrote them
// (every key, at its default): carried over, they would pin this machine to yesterday's
// defaults (the heuristic, 40 calls a day) as if someone had chosen them.
var oldDefaults = map[string]string{
	"author.name": `""`, "author.email": `""`,
	"drain.extractor": `"heuristic"`, "drain.model": `""`, "drain.timeout": `"3m"`, "drain.attempts": "3",
	"drain.retry_wait": `"2s"`, "drain.max_calls_per_day": "40", "drain.max_tokens_per_day": "1000000",
	"sync.auto": "false", "sync.remote": `"origin"`,
}
