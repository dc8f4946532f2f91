package transcript

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads one JSON line in a single pass. It validates every byte it passes over,
// as encoding/json would, but decodes only the values its caller asks for: the rest
// (toolUseResult copies of tool output, base_instructions, aggregated_output, images) is
// skipped without being copied. encoding/json validates a whole line before decoding it,
// and a field that can take several shapes (message.content, a tool_result's content, a
// Codex output) costs it a third and a fourth pass. Measured with the benchmarks in
// bench_test.go, the encoding/json reader this replaced did 50–70 MB/s on the fixtures
// grown to 16 MB and 120–145 MB/s on 2 MB tool outputs; this one does about 4 times that.
//
// Every value method consumes exactly one value, whatever its type, and reports whether
// the type was the one asked for (null counts as the zero value of any type, as in
// encoding/json). After a syntax error the scanner is bad and every method is a no-op.
type scanner struct {
	b     []byte
	i     int
	depth int
	bad   bool
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

func (s *scanner) fail() {
	s.bad = true
	s.i = len(s.b)
}

func (s *scanner) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// atEnd reports whether only whitespace is left, and marks the line bad otherwise.
func (s *scanner) atEnd() bool {
	if s.peek() != 0 || s.i != len(s.b) {
		s.fail()
	}
	return !s.bad
}

// valid reports whether b is exactly one JSON value.
func valid(b []byte) bool {
	s := scanner{b: b}
	s.skip()
	return s.atEnd()
}

type objIter struct {
	s *scanner
	n int
}

// object starts reading an object; the caller must already know the next value is one.
func (s *scanner) object() objIter {
	if s.peek() != '{' {
		s.fail()
	} else if s.depth++; s.depth > maxDepth {
		s.fail()
	} else {
		s.i++
	}
	return objIter{s: s}
}

// next returns the next key, or false at the end of the object. The caller must consume
// the key's value before calling next again.
func (it *objIter) next() ([]byte, bool) {
	s := it.s
	if s.bad {
		return nil, false
	}
	c := s.peek()
	if c == '}' {
		s.i++
		s.depth--
		return nil, false
	}
	if it.n > 0 {
		if c != ',' {
			s.fail()
			return nil, false
		}
		s.i++
		c = s.peek()
	}
	if c != '"' {
		s.fail()
		return nil, false
	}
	key, _, ok := s.rawString()
	if !ok || s.peek() != ':' {
		s.fail()
		return nil, false
	}
	s.i++
	it.n++
	return key, true
}

type arrIter struct {
	s *scanner
	n int
}

// array starts reading an array; the caller must already know the next value is one.
func (s *scanner) array() arrIter {
	if s.peek() != '[' {
		s.fail()
	} else if s.depth++; s.depth > maxDepth {
		s.fail()
	} else {
		s.i++
	}
	return arrIter{s: s}
}

// next reports whether there is another element; the caller must consume it.
func (it *arrIter) next() bool {
	s := it.s
	if s.bad {
		return false
	}
	c := s.peek()
	if c == ']' {
		s.i++
		s.depth--
		return false
	}
	if it.n > 0 {
		if c != ',' {
			s.fail()
			return false
		}
		s.i++
	}
	it.n++
	return true
}

// skip consumes one value of any type.
func (s *scanner) skip() {
	switch s.peek() {
	case '{':
		it := s.object()
		for _, ok := it.next(); ok; _, ok = it.next() {
			s.skip()
		}
	case '[':
		it := s.array()
		for it.next() {
			s.skip()
		}
	case '"':
		if _, _, ok := s.rawString(); !ok {
			s.fail()
		}
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// raw consumes one value and returns its bytes.
func (s *scanner) raw() []byte {
	s.peek()
	start := s.i
	s.skip()
	if s.bad {
		return nil
	}
	return s.b[start:s.i]
}

func (s *scanner) literal(lit string) {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		s.fail()
		return
	}
	s.i += len(lit)
}

// number consumes a number and returns its text.
func (s *scanner) number() []byte {
	b, i := s.b, s.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		s.fail()
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.fail()
			return nil
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.fail()
			return nil
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return b[start:i]
}

// plain marks the bytes a JSON string can hold as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// rawString consumes a string and returns its bytes between the quotes, undecoded, and
// whether it has escapes.
func (s *scanner) rawString() (raw []byte, escaped, ok bool) {
	b := s.b
	i := s.i + 1
	start := i
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control character.
		for i+8 <= len(b) {
			v := binary.LittleEndian.Uint64(b[i:])
			if (hasLess(v, 0x20) | hasZero(v^quotes) | hasZero(v^backslashes)) != 0 {
				break
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			s.fail()
			return nil, false, false
		}
		switch b[i] {
		case '"':
			s.i = i + 1
			return b[start:i], escaped, true
		case '\\':
			escaped = true
			if i+1 >= len(b) {
				s.fail()
				return nil, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					s.fail()
					return nil, false, false
				}
				i += 6
			default:
				s.fail()
				return nil, false, false
			}
		default: // a control character
			s.fail()
			return nil, false, false
		}
	}
}

const (
	ones        = 0x0101010101010101
	highs       = 0x8080808080808080
	quotes      = '"' * ones
	backslashes = '\\' * ones
)

// hasZero reports whether some byte of v is 0; hasLess whether some byte is below n
// (n <= 128). Both are exact as to whether any byte matches.
func hasZero(v uint64) uint64           { return (v - ones) &^ v & highs }
func hasLess(v uint64, n uint64) uint64 { return (v - n*ones) &^ v & highs }

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// str consumes a value and returns it if it is a string.
func (s *scanner) str() (string, bool) {
	if c := s.peek(); c != '"' {
		s.skip()
		return "", c == 'n'
	}
	raw, escaped, ok := s.rawString()
	if !ok {
		return "", false
	}
	return decodeString(raw, escaped), true
}

// strInto is str for values that rarely change (cwd, session id): it keeps *dst, and
// its allocation, when the value is the same.
func (s *scanner) strInto(dst *string) bool {
	if c := s.peek(); c != '"' {
		s.skip()
		return c == 'n'
	}
	raw, escaped, ok := s.rawString()
	if !ok {
		return false
	}
	if escaped || string(raw) != *dst {
		*dst = decodeString(raw, escaped)
	}
	return true
}

func (s *scanner) boolean() (bool, bool) {
	switch s.peek() {
	case 't':
		s.literal("true")
		return true, true
	case 'f':
		s.literal("false")
		return false, true
	case 'n':
		s.literal("null")
		return false, true
	}
	s.skip()
	return false, false
}

// optBool consumes a value and returns it if it is true or false, nil for null or another
// type; ok is false for another type.
func (s *scanner) optBool() (b *bool, ok bool) {
	if s.peek() == 'n' {
		s.skip()
		return nil, true
	}
	v, ok := s.boolean()
	if !ok {
		return nil, false
	}
	return &v, true
}

// argv consumes a string or an array of strings.
func (s *scanner) argv() []string {
	switch s.peek() {
	case '"':
		v, _ := s.str()
		return []string{v}
	case '[':
		var out []string
		it := s.array()
		for it.next() {
			v, _ := s.str()
			out = append(out, v)
		}
		return out
	}
	s.skip()
	return nil
}

// integer consumes a value and returns it if it is a number with an int value.
func (s *scanner) integer() (*int, bool) {
	switch c := s.peek(); {
	case c == '-' || '0' <= c && c <= '9':
		n, err := strconv.Atoi(string(s.number()))
		if err != nil {
			return nil, false
		}
		return &n, true
	case c == 'n':
		s.literal("null")
		return nil, true
	}
	s.skip()
	return nil, false
}

// text consumes the forms hosts use for text: a string, or an array of content items
// whose text parts ({"type":"text"|"input_text"|"output_text"|"summary_text","text":…})
// are joined with a newline, leaving images and other items out. Anything else is "".
func (s *scanner) text() (string, bool) {
	switch s.peek() {
	case '"':
		return s.str()
	case '[':
		var sb strings.Builder
		it := s.array()
		for it.next() {
			typ, txt := s.part()
			if !isTextPart(typ) || txt == "" {
				continue
			}
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(txt)
		}
		return sb.String(), true
	case 'n':
		s.skip()
		return "", true
	}
	s.skip()
	return "", false
}

// part consumes one content item {"type":…,"text":…}; other values give "".
func (s *scanner) part() (typ, text string) {
	if s.peek() != '{' {
		s.skip()
		return "", ""
	}
	it := s.object()
	for k, ok := it.next(); ok; k, ok = it.next() {
		switch string(k) {
		case "type":
			typ, _ = s.str()
		case "text":
			text, _ = s.str()
		default:
			s.skip()
		}
	}
	return typ, text
}

// isTextPart: text, input_text, output_text, summary_text, reasoning_text; not images.
func isTextPart(t string) bool { return t == "" || strings.HasSuffix(t, "text") }

// compact consumes a value and returns it as compact JSON ("" for null).
func (s *scanner) compact() string {
	if s.peek() == 'n' {
		s.skip()
		return ""
	}
	raw := s.raw()
	if raw == nil {
		return ""
	}
	var sb strings.Builder
	sb.Grow(len(raw))
	compactInto(&sb, raw)
	return sb.String()
}

// compactInto writes valid JSON b without insignificant whitespace.
func compactInto(w *strings.Builder, b []byte) {
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			w.WriteByte(c)
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			inString = true
		}
		w.WriteByte(c)
	}
}

// decodeString decodes the body of a valid JSON string the way encoding/json does:
// escapes resolved, lone surrogates and invalid UTF-8 replaced by U+FFFD.
func decodeString(raw []byte, escaped bool) string {
	if !escaped && utf8.Valid(raw) {
		return string(raw)
	}
	var sb strings.Builder
	sb.Grow(len(raw))
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			writeUTF8(&sb, raw)
			break
		}
		writeUTF8(&sb, raw[:i])
		raw = raw[i:]
		switch raw[1] {
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r := hex4(raw[2:])
			raw = raw[6:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					r2 = hex4(raw[2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					raw = raw[6:]
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
			continue
		default: // " \ /
			sb.WriteByte(raw[1])
		}
		raw = raw[2:]
	}
	return sb.String()
}

// writeUTF8 writes b with each byte that is not part of valid UTF-8 replaced by U+FFFD.
func writeUTF8(sb *strings.Builder, b []byte) {
	if utf8.Valid(b) {
		sb.Write(b)
		return
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
