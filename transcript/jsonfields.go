package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The readers of Gemini CLI, Copilot CLI and Cursor transcripts decode a line into a map of
// raw values and take each field leniently, as the hooks decode payloads: a field of the
// wrong type is absent, never a reason to drop the line. Their files are a few MB at most
// and are read far less often than Claude Code's, so encoding/json's speed is enough
// (BenchmarkReadGemini: see bench_test.go).

// fields is one decoded JSON object.
type fields map[string]json.RawMessage

// objectOf decodes raw as an object; nil when it is not one.
func objectOf(raw []byte) fields {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var f fields
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return f
}

// str is the string at k, "" when absent or not a string.
func (f fields) str(k string) string {
	var s string
	if v, ok := f[k]; ok && json.Unmarshal(v, &s) == nil {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return ""
}

// has says whether k is present and not null.
func (f fields) has(k string) bool {
	v, ok := f[k]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// obj is the object at k, nil when absent or not an object.
func (f fields) obj(k string) fields { return objectOf(f[k]) }

// arr is the array at k, nil when absent or not an array.
func (f fields) arr(k string) []json.RawMessage {
	var a []json.RawMessage
	if v, ok := f[k]; ok && json.Unmarshal(v, &a) == nil {
		return a
	}
	return nil
}

// boolean is the boolean at k, and whether there is one.
func (f fields) boolean(k string) (bool, bool) {
	var b bool
	if v, ok := f[k]; ok && json.Unmarshal(v, &b) == nil {
		return b, true
	}
	return false, false
}

// integer is the whole number at k, nil when there is none.
func (f fields) integer(k string) *int {
	var n float64
	if v, ok := f[k]; ok && json.Unmarshal(v, &n) == nil && n == float64(int(n)) {
		return intPtr(int(n))
	}
	return nil
}

// compactJSON renders a raw value as compact JSON ("" for null or nothing).
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// toolInputOf is a tool call's input as the model is told to read it: the shell command of
// a shell tool, the whole input as compact JSON otherwise. A string input (Copilot's older
// toolArgs) is parsed as JSON first.
func toolInputOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
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
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if o := objectOf(raw); o != nil {
		return o.str("text")
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var out []string
	for _, p := range list {
		if t := partsText(p); t != "" && len(list) > 0 {
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
