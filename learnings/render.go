package learnings

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Render returns the whole file: the frontmatter between "---" lines, then the
// body, which ends with a newline. It refuses a learning that fails Validate,
// so whatever it returns parses again to the same fields.
//
// A fresh learning is written in canonical form: keys in the documented order,
// lists in flow style ([a, b]), two-space indentation, strings quoted only
// where YAML needs it, zero times left out.
//
// A parsed learning keeps its file: only the values that changed are replaced,
// in place, and missing keys with a non-zero value are added at the end, so
// comments (and their alignment), key order, quoting and unknown keys survive
// and an unchanged learning renders to its file byte for byte. When a change
// cannot be made in the text (a block-style list, a key missing inside
// source, ...) the edited YAML document is encoded instead: comments, order and
// unknown keys still survive, but spacing is normalised.
func (l *Learning) Render() ([]byte, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("render %s: %w", l.RelPath(), err)
	}
	open, close, gap := "---\n", "---\n", ""
	var front []byte
	var err error
	if f := l.file; f != nil {
		open, close, gap = f.open, f.close, f.gap
		front, err = l.rewrite()
	} else {
		front, err = encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{freshMap(l.refs())}})
	}
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", l.RelPath(), err)
	}
	var b bytes.Buffer
	b.Grow(len(open) + len(front) + len(close) + len(gap) + len(l.Body) + 2)
	b.WriteString(open)
	b.Write(front)
	b.WriteString(close)
	if !strings.HasSuffix(close, "\n") && gap+l.Body != "" {
		b.WriteByte('\n')
	}
	b.WriteString(gap)
	b.WriteString(l.Body)
	if l.Body != "" && !strings.HasSuffix(l.Body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// rewrite returns the frontmatter of a parsed learning with its changes.
func (l *Learning) rewrite() ([]byte, error) {
	f := l.file
	var base Learning // the fields as the file has them
	var errs []*FieldError
	decodeMap(mapping(f.doc), base.refs(), "", &errs) // cannot fail: Parse accepted f.doc

	doc := clone(f.doc)
	p := &patcher{src: f.front, ok: true}
	p.update(mapping(doc), base.refs(), l.refs(), true)
	if p.ok {
		if out, ok := p.apply(); ok && l.holds(out) {
			return out, nil
		}
	}
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	if !l.holds(out) {
		return nil, errors.New("rewritten frontmatter does not read back to the same fields")
	}
	return out, nil
}

// holds reports whether frontmatter text decodes to exactly l's fields.
func (l *Learning) holds(front []byte) bool {
	var got Learning
	_, errs := decodeFront(front, &got)
	return len(errs) == 0 && sameRefs(got.refs(), l.refs())
}

func sameRefs(a, b []ref) bool {
	for i := range a {
		if !sameRef(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameRef(a, b ref) bool {
	switch {
	case a.str != nil:
		return *a.str == *b.str
	case a.list != nil:
		return slices.Equal(*a.list, *b.list)
	case a.tm != nil:
		return a.tm.Truncate(time.Second).Equal(b.tm.Truncate(time.Second))
	case a.num != nil:
		return *a.num == *b.num
	}
	return sameRefs(a.sub, b.sub)
}

// patcher applies changed fields to a copy of the parsed document and, while
// it can, records the same changes as edits of the original text.
type patcher struct {
	src   []byte       // the original frontmatter text
	edits []edit       // replacements of value spans in src
	tail  []*yaml.Node // key and value nodes to append at the end
	ok    bool         // false once a change cannot be made as a text edit
}

type edit struct {
	start, end int
	text       []byte
}

// update sets the changed fields of cur (compared with old, the fields as the
// file has them) in mapping m.
func (p *patcher) update(m *yaml.Node, old, cur []ref, top bool) {
	for i, r := range cur {
		if sameRef(old[i], r) {
			continue
		}
		_, v := lookup(m, r.key)
		switch {
		case v == nil:
			k, n := scalar("!!str", r.key), r.node(nil)
			m.Content = append(m.Content, k, n)
			if top {
				p.tail = append(p.tail, k, n)
			} else {
				p.ok = false
			}
		case r.sub != nil && v.Kind == yaml.MappingNode:
			p.update(v, old[i].sub, r.sub, false)
		default:
			p.replace(v, r.node(v))
		}
	}
}

// replace makes v hold n's value, keeping v's comments.
func (p *patcher) replace(v, n *yaml.Node) {
	if p.ok {
		start, end, ok := span(p.src, v)
		text, err := encode(n)
		text = bytes.TrimSuffix(text, []byte("\n"))
		if ok && err == nil && !bytes.ContainsAny(text, "\r\n") {
			// Keep a trailing comment in its column: people align them.
			pad := end
			for pad < len(p.src) && blank(p.src[pad]) {
				pad++
			}
			if pad > end && pad < len(p.src) && p.src[pad] == '#' {
				width := utf8.RuneCount(p.src[start:pad]) - utf8.RuneCount(text)
				text = append(text, bytes.Repeat([]byte(" "), max(1, width))...)
				end = pad
			}
			p.edits = append(p.edits, edit{start, end, text})
		} else {
			p.ok = false
		}
	}
	if v.Kind == yaml.SequenceNode && n.Kind == yaml.SequenceNode {
		// Items that stay keep their comments.
		old := slices.Clone(v.Content)
		for i, item := range n.Content {
			if j := slices.IndexFunc(old, func(o *yaml.Node) bool { return o != nil && o.Kind == yaml.ScalarNode && o.Value == item.Value }); j >= 0 {
				n.Content[i], old[j] = old[j], nil
			}
		}
	}
	v.Kind, v.Tag, v.Value, v.Style, v.Content, v.Alias = n.Kind, n.Tag, n.Value, n.Style, n.Content, nil
}

// apply returns the original text with the edits made and the new keys added.
func (p *patcher) apply() ([]byte, bool) {
	slices.SortFunc(p.edits, func(a, b edit) int { return a.start - b.start })
	out := make([]byte, 0, len(p.src)+64)
	at := 0
	for _, e := range p.edits {
		if e.start < at {
			return nil, false
		}
		out = append(append(out, p.src[at:e.start]...), e.text...)
		at = e.end
	}
	out = append(out, p.src[at:]...)
	if len(p.tail) > 0 {
		tail, err := encode(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: p.tail})
		if err != nil {
			return nil, false
		}
		if bytes.Contains(p.src, []byte("\r\n")) {
			tail = bytes.ReplaceAll(tail, []byte("\n"), []byte("\r\n"))
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, tail...)
	}
	return out, true
}

// span returns the byte range of value v in src, for the value shapes that
// sit on one line: plain and quoted scalars and flow lists.
func span(src []byte, v *yaml.Node) (start, end int, ok bool) {
	if v.Anchor != "" || v.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return 0, 0, false
	}
	start = offset(src, v.Line, v.Column)
	if start < 0 || start >= len(src) {
		return 0, 0, false
	}
	switch {
	case v.Kind == yaml.ScalarNode && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		end = scanQuoted(src, start)
	case v.Kind == yaml.ScalarNode && v.Value != "":
		end = start
		for end < len(src) && src[end] != '\n' && src[end] != '\r' && (src[end] != '#' || end == start || !blank(src[end-1])) {
			end++
		}
		for end > start && blank(src[end-1]) {
			end--
		}
		if string(src[start:end]) != v.Value { // a plain scalar that goes on over more lines
			return 0, 0, false
		}
	case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle != 0:
		end = scanFlow(src, start)
	default:
		return 0, 0, false
	}
	return start, end, end > start
}

// offset returns the byte offset of a 1-based line and column (in characters,
// as yaml.Node counts them), or -1.
func offset(src []byte, line, col int) int {
	i := 0
	for ; line > 1; line-- {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	for ; col > 1; col-- {
		if i >= len(src) || src[i] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(src[i:])
		i += size
	}
	return i
}

func blank(c byte) bool { return c == ' ' || c == '\t' }

// scanQuoted returns the end of the single-line quoted scalar at src[i], or -1.
func scanQuoted(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\n' || c == '\r':
			return -1
		case q == '"' && c == '\\':
			j++
			if j < len(src) && (src[j] == '\n' || src[j] == '\r') {
				return -1
			}
		case c == q && q == '\'' && j+1 < len(src) && src[j+1] == '\'':
			j++
		case c == q:
			return j + 1
		}
	}
	return -1
}

// scanFlow returns the end of the single-line flow collection at src[i], or -1.
func scanFlow(src []byte, i int) int {
	if src[i] != '[' {
		return -1
	}
	depth, prev := 0, byte(0) // prev is the last non-blank byte
	for j := i; j < len(src); j++ {
		c := src[j]
		switch {
		case c == '\n' || c == '\r':
			return -1
		case (c == '"' || c == '\'') && strings.IndexByte("[{,:", prev) >= 0:
			k := scanQuoted(src, j)
			if k < 0 {
				return -1
			}
			j = k - 1
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth--; depth == 0 {
				return j + 1
			}
		case c == '#' && blank(src[j-1]):
			return -1
		}
		if !blank(c) {
			prev = c
		}
	}
	return -1
}

// node returns the YAML value of r. like, when not nil, is the node it will
// replace: its quoting and list style are kept.
func (r ref) node(like *yaml.Node) *yaml.Node {
	quoted := yaml.Style(0)
	if like != nil && like.Kind == yaml.ScalarNode && chosenQuotes(like) {
		quoted = like.Style & (yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle)
	}
	switch {
	case r.str != nil:
		n := scalar("!!str", *r.str)
		n.Style = quoted
		return n
	case r.list != nil:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		if like != nil && like.Kind == yaml.SequenceNode {
			n.Style = like.Style & yaml.FlowStyle
		}
		for _, s := range *r.list {
			n.Content = append(n.Content, scalar("!!str", s))
		}
		return n
	case r.tm != nil:
		if r.tm.IsZero() {
			return scalar("!!null", "null")
		}
		n := scalar("!!timestamp", r.tm.UTC().Format(time.RFC3339))
		n.Style = quoted
		return n
	case r.num != nil:
		return scalar("!!int", strconv.Itoa(*r.num))
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, s := range r.sub {
		m.Content = append(m.Content, scalar("!!str", s.key), s.node(nil))
	}
	return m
}

// chosenQuotes reports whether a quoted scalar would be plain without its
// quotes: then quoting was a person's choice, to be kept for a new value.
func chosenQuotes(n *yaml.Node) bool {
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
		return false
	}
	b, err := encode(scalar("!!str", n.Value))
	return err == nil && len(b) > 0 && b[0] != '"' && b[0] != '\''
}

// freshMap returns the canonical frontmatter mapping of refs.
func freshMap(refs []ref) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, r := range refs {
		if r.optional && r.list != nil && len(*r.list) == 0 {
			continue
		}
		if r.tm == nil || !r.tm.IsZero() {
			m.Content = append(m.Content, scalar("!!str", r.key), r.node(nil))
		}
	}
	return m
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k)
	}
	return &c
}

func encode(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode frontmatter: %w", err)
	}
	return b.Bytes(), nil
}
