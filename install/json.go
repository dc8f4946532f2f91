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

// value is a JSON value that keeps object key order, the original text of numbers and
// strings, and the whitespace around every element it was read with, so that what reflect
// does not change is written back byte for byte, in the file's own layout.
type value struct {
	kind kind
	b    bool
	num  json.Number // kNumber: the original text
	str  string      // kString: the decoded text
	raw  string      // kString: the original quoted text, "" for strings made here
	arr  []*value
	obj  []member

	// Where the value sits in its container, as read (placed): lead is the text before it
	// (before its key, for an object member), colon the text from its key to it, trail the
	// whitespace between it and the comma after it.
	placed             bool
	lead, colon, trail string
	// An array or object as read (read): tail is the text before its closing bracket, after
	// its last element or, when it had none (!filled), after its opening bracket.
	read   bool
	filled bool
	tail   string
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

// set replaces the value of key in object v, where the old value was, or appends the key.
func (v *value) set(key string, val *value) {
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			old := v.obj[i].val
			val.placed, val.lead, val.colon, val.trail = old.placed, old.lead, old.colon, old.trail
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

// document is a JSON file: its top-level value, the text around it, and the layout new
// values are written in.
type document struct {
	root       *value
	head, foot string // the whitespace before and after the top-level value
	st         style
}

// parse reads one JSON document. Errors are *SyntaxError with the place of the problem.
func parse(path string, data []byte) (*document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &parser{path: path, data: data, dec: dec}
	v, head, err := p.value()
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
	d := &document{root: v, head: head, foot: string(data[off:])}
	d.st = layoutOf(data, v)
	return d, nil
}

type parser struct {
	path string
	data []byte
	dec  *json.Decoder
	last int64 // where the previous token ended
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

// token reads the next token, the original text of a string token, and the text between
// the previous token and this one (whitespace, and the comma or colon encoding/json consumes
// without returning it).
func (p *parser) token() (t json.Token, raw, pre string, err error) {
	start := p.dec.InputOffset()
	t, err = p.dec.Token()
	if err != nil {
		return nil, "", "", p.fail(err, start)
	}
	end := p.dec.InputOffset()
	seg := p.data[p.last:end]
	p.last = end
	i := bytes.IndexFunc(seg, func(r rune) bool { return !strings.ContainsRune(" \t\r\n,:", r) })
	if i < 0 {
		i = len(seg)
	}
	if _, ok := t.(string); ok {
		raw = string(seg[i:])
	}
	return t, raw, string(seg[:i]), nil
}

// value reads the next value and the text before it.
func (p *parser) value() (*value, string, error) {
	t, raw, pre, err := p.token()
	if err != nil {
		return nil, "", err
	}
	v, err := p.from(t, raw)
	return v, pre, err
}

// place records on v the text before it: a comma in it ends the previous element, whose
// trail is what comes before the comma.
func place(v, prev *value, pre string) {
	if before, after, ok := strings.Cut(pre, ","); ok {
		if prev != nil {
			prev.trail = before
		}
		pre = after
	}
	v.placed, v.lead = true, pre
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
			v := &value{kind: kArray, read: true}
			var prev *value
			for p.dec.More() {
				e, pre, err := p.value()
				if err != nil {
					return nil, err
				}
				place(e, prev, pre)
				v.arr = append(v.arr, e)
				prev = e
			}
			return v, p.close(v)
		case '{':
			v := &value{kind: kObject, read: true}
			var prev *value
			for p.dec.More() {
				k, kraw, pre, err := p.token()
				if err != nil {
					return nil, err
				}
				key, ok := k.(string)
				if !ok {
					return nil, p.errAt(p.dec.InputOffset(), "object key is not a string")
				}
				e, colon, err := p.value()
				if err != nil {
					return nil, err
				}
				place(e, prev, pre)
				e.colon = colon
				v.obj = append(v.obj, member{key: key, keyRaw: kraw, val: e})
				prev = e
			}
			return v, p.close(v)
		}
	}
	return nil, p.errAt(p.dec.InputOffset(), fmt.Sprintf("unexpected %v", t))
}

// close reads the closing bracket of v and the text before it.
func (p *parser) close(v *value) error {
	_, _, pre, err := p.token()
	v.tail, v.filled = pre, len(v.arr)+len(v.obj) > 0
	return err
}

// style is the layout new values are written in, taken from the file's top-level object:
// the line ending, one level of indentation, the text between a key and its value; or, for a
// file on one line, the text between elements.
type style struct {
	nl, unit, colon string
	compact         bool
	sep             string // compact: before every element but the first
}

// defaultStyle is json.MarshalIndent's with two spaces: what a new file is written in.
var defaultStyle = style{nl: "\n", unit: "  ", colon: ": "}

// layoutOf finds the style of data, whose top-level value is root.
func layoutOf(data []byte, root *value) style {
	st := defaultStyle
	if bytes.Contains(data, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if root.kind != kObject || len(root.obj) == 0 {
		return st
	}
	first := root.obj[0].val
	st.colon = first.colon
	nl := strings.LastIndexByte(first.lead, '\n')
	if nl < 0 {
		st.compact, st.unit = true, ""
		if len(root.obj) > 1 {
			st.sep = root.obj[1].val.lead
		}
		return st
	}
	if indent := first.lead[nl+1:]; indent != "" {
		st.unit = indent
	}
	return st
}

// encode writes the document: what was read as it was read, what reflect added in the file's
// own layout.
func (d *document) encode() []byte {
	w := &writer{st: d.st}
	w.b.WriteString(d.head)
	w.value(d.root)
	w.b.WriteString(d.foot)
	return w.b.Bytes()
}

// encode writes a value made here as a file of its own: two-space indentation, a final newline.
func encode(v *value) []byte {
	return (&document{root: v, foot: "\n", st: defaultStyle}).encode()
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

type writer struct {
	b      bytes.Buffer
	st     style
	inline int // > 0 inside a container that was read on one line
}

// lineIndent is the indentation of the line being written.
func (w *writer) lineIndent() string {
	out := w.b.Bytes()
	line := out[bytes.LastIndexByte(out, '\n')+1:]
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return string(line[:n])
}

func (w *writer) value(v *value) {
	switch v.kind {
	case kNull:
		w.b.WriteString("null")
	case kBool:
		w.b.WriteString(strconv.FormatBool(v.b))
	case kNumber:
		w.b.WriteString(string(v.num))
	case kString:
		if v.raw != "" {
			w.b.WriteString(v.raw)
		} else {
			w.b.WriteString(quote(v.str))
		}
	case kArray:
		w.container(v, "[]", len(v.arr), func(i int) (*value, string) { return v.arr[i], "" })
	case kObject:
		w.container(v, "{}", len(v.obj), func(i int) (*value, string) {
			m := v.obj[i]
			if m.keyRaw != "" {
				return m.val, m.keyRaw
			}
			return m.val, quote(m.key)
		})
	}
}

// container writes an array or object of n elements; elem returns the i-th and, in an
// object, its key. An element that was read keeps the text around it. A new one is written
// as its siblings are: after its previous sibling's lead, with their colon; with no sibling,
// one level deeper than the line the container opens on, in the file's style. Inside a
// container that was read on one line, or in a file on one line, new values stay on one line.
func (w *writer) container(v *value, brackets string, n int, elem func(i int) (*value, string)) {
	indent := w.lineIndent()
	w.b.WriteByte(brackets[0])
	if n == 0 {
		if v.read && !v.filled {
			w.b.WriteString(v.tail)
		}
		w.b.WriteByte(brackets[1])
		return
	}
	colon, sep, placed := w.st.colon, w.st.sep, 0
	for i := range n {
		e, _ := elem(i)
		if !e.placed {
			continue
		}
		if placed == 0 {
			colon = e.colon
			if !strings.Contains(e.lead, "\n") {
				w.inline++
				defer func() { w.inline-- }()
			}
		} else if !strings.Contains(e.lead, "\n") {
			sep = e.lead
		}
		placed++
	}
	oneLine := w.st.compact || w.inline > 0
	if oneLine && !w.st.compact && placed < 2 {
		sep = " "
	}
	prevLead := ""
	for i := range n {
		e, key := elem(i)
		lead := e.lead
		switch {
		case e.placed:
		case oneLine && i > 0:
			lead = sep
		case oneLine:
			lead = ""
		case i > 0:
			lead = prevLead
		default:
			lead = w.st.nl + indent + w.st.unit
		}
		w.b.WriteString(lead)
		prevLead = lead
		if brackets == "{}" {
			w.b.WriteString(key)
			if e.placed {
				w.b.WriteString(e.colon)
			} else {
				w.b.WriteString(colon)
			}
		}
		w.value(e)
		if i < n-1 {
			if e.placed {
				w.b.WriteString(e.trail)
			}
			w.b.WriteByte(',')
		}
	}
	switch {
	case v.read && v.filled:
		w.b.WriteString(v.tail)
	case !oneLine:
		w.b.WriteString(w.st.nl + indent)
	}
	w.b.WriteByte(brackets[1])
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
