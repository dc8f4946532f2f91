package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// kind is the type of a JSON value.
type kind int

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
)

// value is a JSON value that keeps object key order and the original text of numbers and
// strings, so that an unchanged value is written back byte for byte.
type value struct {
	kind kind
	b    bool
	num  json.Number // kNumber: the original text
	str  string      // kString: the decoded text
	raw  string      // kString: the original quoted text, "" for strings made here
	arr  []*value
	obj  []member
}

type member struct {
	key    string
	keyRaw string
	val    *value
}

func newObject() *value            { return &value{kind: kObject} }
func newString(s string) *value    { return &value{kind: kString, str: s} }
func newInt(n int) *value          { return &value{kind: kNumber, num: json.Number(strconv.Itoa(n))} }
func newArray(vs ...*value) *value { return &value{kind: kArray, arr: vs} }

// get returns the value of key in object v, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	for i := len(v.obj) - 1; i >= 0; i-- { // the last duplicate wins, as in JavaScript
		if v.obj[i].key == key {
			return v.obj[i].val
		}
	}
	return nil
}

// set replaces the value of key in object v, or appends the key.
func (v *value) set(key string, val *value) {
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			v.obj[i].val = val
			return
		}
	}
	v.obj = append(v.obj, member{key: key, val: val})
}

// del removes every member key from object v.
func (v *value) del(key string) {
	kept := v.obj[:0]
	for _, m := range v.obj {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	v.obj = kept
}

// SyntaxError is a configuration file reflect refuses to change: not valid JSON, or not of the
// shape the host expects. Line and Col are 1-based; 0 when the problem has no single place.
type SyntaxError struct {
	Path      string
	Line, Col int
	Reason    string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Reason)
}

// position turns a byte offset of data into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// parse reads one JSON document. Errors are *SyntaxError with the place of the problem.
func parse(path string, data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &parser{path: path, data: data, dec: dec}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, p.fail(err, off)
		}
		return nil, p.errAt(skipSpace(data, off), "unexpected data after the top-level value")
	}
	return v, nil
}

type parser struct {
	path string
	data []byte
	dec  *json.Decoder
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

func (p *parser) errAt(off int64, reason string) error {
	l, c := position(p.data, off)
	return &SyntaxError{Path: p.path, Line: l, Col: c, Reason: reason}
}

func (p *parser) fail(err error, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The offset is at the offending character or just past it, depending on where
		// encoding/json found it.
		o := se.Offset
		if c, ok := offendingChar(se.Error()); ok && o > 0 && o <= int64(len(p.data)) &&
			(o == int64(len(p.data)) || p.data[o] != c) && p.data[o-1] == c {
			o--
		}
		return p.errAt(o, se.Error())
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.errAt(int64(len(p.data)), "unexpected end of file")
	}
	return p.errAt(off, err.Error())
}

// token reads the next token and the original text of a string token.
func (p *parser) token() (json.Token, string, error) {
	start := p.dec.InputOffset()
	t, err := p.dec.Token()
	if err != nil {
		return nil, "", p.fail(err, start)
	}
	raw := ""
	if _, ok := t.(string); ok {
		seg := p.data[start:p.dec.InputOffset()]
		if i := bytes.IndexByte(seg, '"'); i >= 0 {
			raw = string(seg[i:])
		}
	}
	return t, raw, nil
}

func (p *parser) value() (*value, error) {
	t, raw, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.from(t, raw)
}

func (p *parser) from(t json.Token, raw string) (*value, error) {
	switch t := t.(type) {
	case nil:
		return &value{kind: kNull}, nil
	case bool:
		return &value{kind: kBool, b: t}, nil
	case json.Number:
		return &value{kind: kNumber, num: t}, nil
	case string:
		return &value{kind: kString, str: t, raw: raw}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &value{kind: kArray}
			for p.dec.More() {
				e, err := p.value()
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			if _, _, err := p.token(); err != nil {
				return nil, err
			}
			return v, nil
		case '{':
			v := &value{kind: kObject}
			for p.dec.More() {
				k, kraw, err := p.token()
				if err != nil {
					return nil, err
				}
				key, ok := k.(string)
				if !ok {
					return nil, p.errAt(p.dec.InputOffset(), "object key is not a string")
				}
				e, err := p.value()
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, member{key: key, keyRaw: kraw, val: e})
			}
			if _, _, err := p.token(); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, p.errAt(p.dec.InputOffset(), fmt.Sprintf("unexpected %v", t))
}

// encode writes v with two-space indentation and a trailing newline, as json.MarshalIndent
// would, but in v's key order and with original number and string text.
func encode(v *value) []byte {
	var b bytes.Buffer
	writeValue(&b, v, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

func writeValue(b *bytes.Buffer, v *value, indent string) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kNumber:
		b.WriteString(string(v.num))
	case kString:
		if v.raw != "" {
			b.WriteString(v.raw)
		} else {
			b.WriteString(quote(v.str))
		}
	case kArray:
		if len(v.arr) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v.arr {
			b.WriteString(indent + "  ")
			writeValue(b, e, indent+"  ")
			if i < len(v.arr)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case kObject:
		if len(v.obj) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range v.obj {
			b.WriteString(indent + "  ")
			if m.keyRaw != "" {
				b.WriteString(m.keyRaw)
			} else {
				b.WriteString(quote(m.key))
			}
			b.WriteString(": ")
			writeValue(b, m.val, indent+"  ")
			if i < len(v.obj)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	}
}

// offendingChar returns c of an "invalid character 'c' …" message.
func offendingChar(msg string) (byte, bool) {
	rest, ok := strings.CutPrefix(msg, "invalid character ")
	if !ok {
		return 0, false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return 0, false
	}
	s, err := strconv.Unquote(q)
	if err != nil || len(s) != 1 {
		return 0, false
	}
	return s[0], true
}
