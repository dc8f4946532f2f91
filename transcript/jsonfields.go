package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The readers of Gemini CLI, Copilot CLI and Cursor transcripts take a line as its fields'
// raw values (cut out by the scanner, which checks the JSON as it goes) and read each field
// leniently, as the hooks decode payloads: a field of the wrong type is absent, never a
// reason to drop the line. The raw values point into the line's buffer: nothing keeps them
// past the line. With encoding/json's map decoding instead, a 16 MB Gemini session read at
// 13 MB/s (1.3 s, past a capture hook's 500 ms); this way at 22–25 MB/s at a load of 11 on
// 2 cores, about 0.2 s of CPU (BenchmarkReadHosts; Claude Code's reader, built for the
// format, reads the same size in 0.07 s). A capture reads only what is new since the last.

// fields is one object's members in order. Objects here hold a few to a few dozen keys, so a
// slice searched from the end (the last of duplicates wins, as in encoding/json) costs less
// than a map: with a map, each line cost ~1 KB of allocation more (BenchmarkReadHosts).
type fields []field

type field struct {
	key []byte // raw, as in the line (keys are compared unescaped only when they hold a '\\')
	val []byte
}

// get is the raw value at k.
func (f fields) get(k string) ([]byte, bool) {
	for i := len(f) - 1; i >= 0; i-- {
		if string(f[i].key) == k {
			return f[i].val, true
		}
	}
	return nil, false
}

// objectOf reads raw as an object; nil when it is not one (or not valid JSON).
func objectOf(raw []byte) fields {
	sc := scanner{b: raw}
	if sc.peek() != '{' {
		return nil
	}
	f := make(fields, 0, 8)
	it := sc.object()
	for k, more := it.next(); more; k, more = it.next() {
		if bytes.IndexByte(k, '\\') >= 0 {
			k = []byte(decodeString(k, true))
		}
		f = append(f, field{key: k, val: sc.raw()})
	}
	if !sc.atEnd() {
		return nil
	}
	return f
}

// str is the string at k, "" when absent or not a string.
func (f fields) str(k string) string {
	v, ok := f.get(k)
	if !ok || len(v) == 0 || v[0] != '"' {
		return ""
	}
	sc := scanner{b: v}
	s, _ := sc.str()
	return s
}

// has says whether k is present and not null.
func (f fields) has(k string) bool {
	v, ok := f.get(k)
	return ok && len(v) > 0 && v[0] != 'n'
}

// obj is the object at k, nil when absent or not an object.
func (f fields) obj(k string) fields { v, _ := f.get(k); return objectOf(v) }

// raw is the raw value at k, nil when absent.
func (f fields) raw(k string) json.RawMessage { v, _ := f.get(k); return v }

// arr is the array at k, nil when absent or not an array.
func (f fields) arr(k string) []json.RawMessage { v, _ := f.get(k); return arrayOf(v) }

// arrayOf is raw's elements when it is an array.
func arrayOf(raw []byte) []json.RawMessage {
	sc := scanner{b: raw}
	if sc.peek() != '[' {
		return nil
	}
	var out []json.RawMessage
	it := sc.array()
	for it.next() {
		out = append(out, sc.raw())
	}
	if sc.bad {
		return nil
	}
	return out
}

// boolean is the boolean at k, and whether there is one.
func (f fields) boolean(k string) (bool, bool) {
	v, ok := f.get(k)
	if !ok || len(v) == 0 || v[0] != 't' && v[0] != 'f' {
		return false, false
	}
	return v[0] == 't', true
}

// integer is the whole number at k, nil when there is none.
func (f fields) integer(k string) *int {
	v, _ := f.get(k)
	sc := scanner{b: v}
	if len(v) == 0 {
		return nil
	}
	n, ok := sc.integer()
	if !ok {
		return nil
	}
	return n
}

// compactJSON renders a raw value as compact JSON ("" for null or nothing).
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	sc := scanner{b: raw}
	return sc.compact()
}

// strOf is raw as a string, and whether it is one.
func strOf(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	sc := scanner{b: raw}
	return sc.str()
}

// toolInputOf is a tool call's input as the model is told to read it: the shell command of
// a shell tool, the whole input as compact JSON otherwise. A string input (Copilot's older
// toolArgs) is parsed as JSON first.
func toolInputOf(raw json.RawMessage) string {
	if s, ok := strOf(raw); ok {
		if o := objectOf([]byte(s)); o != nil {
			raw = json.RawMessage(s)
		} else {
			return s
		}
	}
	if o := objectOf(raw); o != nil {
		if c := o.str("command"); c != "" {
			return c
		}
	}
	return compactJSON(raw)
}

// partsText is the text of a Gemini PartListUnion (a string, a part, or a list of parts or
// strings): the text parts joined by newlines. Other parts (function calls and responses,
// inline data) have none.
func partsText(raw json.RawMessage) string {
	if s, ok := strOf(raw); ok {
		return s
	}
	if o := objectOf(raw); o != nil {
		return o.str("text")
	}
	list := arrayOf(raw)
	var out []string
	for _, p := range list {
		if t := partsText(p); t != "" {
			if o := objectOf(p); o != nil && o.has("thought") {
				continue // a thought summary part, not the answer
			}
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// lineBody returns the object a line holds, or the reason the line is skipped.
func lineBody(raw []byte) (fields, string) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, notObject(raw)
	}
	f := objectOf(raw)
	if f == nil {
		return nil, skipMalformed
	}
	return f, ""
}
