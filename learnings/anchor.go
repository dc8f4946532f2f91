package learnings

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/reflect-memory/reflect/gitstore"
)

// MaxAnchors is the most anchors a learning may hold. A lesson is about a few files; the cap
// bounds what a recall checks for a learning that arrived from someone else's remote.
const MaxAnchors = 16

// Anchor is one file a lesson is about, as it was when the lesson was learned: its path in
// the project's tree (slash-separated, relative to the work tree's root) and the git blob id
// it had. It is written "path@blob" in the anchors list.
type Anchor struct {
	Path string
	Blob string // 40 (SHA-1) or 64 (SHA-256) lower-case hex digits
}

// String is the form the anchors list holds.
func (a Anchor) String() string { return a.Path + "@" + a.Blob }

// ParseAnchor reads "path@blob". The path must be one git could check out inside the
// project (gitstore.VerifyPath: relative, no "..", no .git in any spelling, no character a
// file system would treat specially): an anchor may arrive from another person's remote and
// names a file that reflect looks at in the reader's project.
func ParseAnchor(s string) (Anchor, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return Anchor{}, fmt.Errorf("must be path@blob, like Makefile@3b18e512dba79e4c8300dd08aeb37f8e728b8dad (got %q)", s)
	}
	a := Anchor{Path: s[:i], Blob: s[i+1:]}
	if !ValidObjectID(a.Blob) {
		return Anchor{}, fmt.Errorf("%q after @ must be a git blob id, 40 or 64 lower-case hex digits", a.Blob)
	}
	if err := gitstore.VerifyPath(a.Path); err != nil {
		var pe *gitstore.PathError
		if errors.As(err, &pe) {
			return Anchor{}, fmt.Errorf("path %q must be a file of the project: %s", a.Path, pe.Rule)
		}
		return Anchor{}, err
	}
	return a, nil
}

// ValidObjectID reports whether s is a git object id: 40 (SHA-1) or 64 (SHA-256) lower-case
// hex digits.
func ValidObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// AnchorList returns the learning's anchors that parse, in order, one per path (the first
// wins). Validate reports the others.
func (l *Learning) AnchorList() []Anchor {
	out := make([]Anchor, 0, len(l.Anchors))
	for _, s := range l.Anchors {
		a, err := ParseAnchor(s)
		if err != nil {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o.Path == a.Path
		}
		if !dup {
			out = append(out, a)
		}
		if len(out) == MaxAnchors {
			break
		}
	}
	return out
}

// SetAnchors replaces the learning's anchors, in order, one per path.
func (l *Learning) SetAnchors(as []Anchor) {
	l.Anchors = nil
	seen := map[string]bool{}
	for _, a := range as {
		if !seen[a.Path] {
			seen[a.Path] = true
			l.Anchors = append(l.Anchors, a.String())
		}
	}
}

// MergeAnchors is the anchors of two versions of one learning (sync's merge, a lesson seen
// again): the union by path, in ours's order then theirs's; for a path both hold, the anchor
// of the newer version wins (oursNewer says which that is).
func MergeAnchors(ours, theirs []string, oursNewer bool) []string {
	var order []string
	by := map[string]Anchor{}
	add := func(list []string, win bool) {
		for _, s := range list {
			a, err := ParseAnchor(s)
			if err != nil {
				continue
			}
			if _, ok := by[a.Path]; !ok {
				order = append(order, a.Path)
				by[a.Path] = a
			} else if win {
				by[a.Path] = a
			}
		}
	}
	add(ours, true)
	add(theirs, !oursNewer)
	var out []string
	for _, p := range order {
		out = append(out, by[p].String())
	}
	return out
}

// QuickAnchors reads only the anchors and source.commit of a learning file, for a check of
// many files' anchors (the drain's): a full Parse (the whole YAML document) cost ~70 µs a file
// here, most of such a check. It decodes just those two keys' lines;
// ok is false when it cannot (an alias, a key it cannot find its end of, no frontmatter),
// and the caller then parses the file. Items are not validated: AnchorList does that.
func QuickAnchors(data []byte) (anchors []string, commit string, ok bool) {
	if len(data) > MaxFileBytes {
		return nil, "", false
	}
	front, ok := quickFront(data)
	if !ok {
		return nil, "", false
	}
	a := block(front, "anchors:")
	if a == nil {
		return nil, "", true
	}
	var v struct {
		Anchors []string `yaml:"anchors"`
		Source  struct {
			Commit string `yaml:"commit"`
		} `yaml:"source"`
	}
	snippet := append(a, block(front, "source:")...)
	if bytes.ContainsAny(snippet, "&*!") || yaml.Unmarshal(snippet, &v) != nil {
		return nil, "", false
	}
	return v.Anchors, v.Source.Commit, true
}

// quickFront is a file's frontmatter as Parse finds it (locateFront), when it is closed.
func quickFront(data []byte) ([]byte, bool) {
	front, ok := locateFront(data)
	return front, ok && len(data) > len(firstLine(data))+len(front) // a closing line follows
}

// block is the lines of a top-level key of frontmatter text: its line and the indented or
// list lines after it; nil when the key is not there.
func block(front []byte, key string) []byte {
	i := 0
	for i < len(front) {
		if bytes.HasPrefix(front[i:], []byte(key)) && (i == 0 || front[i-1] == '\n') {
			break
		}
		j := bytes.IndexByte(front[i:], '\n')
		if j < 0 {
			return nil
		}
		i += j + 1
	}
	if i >= len(front) {
		return nil
	}
	end := i
	for first := true; end < len(front); first = false {
		j := bytes.IndexByte(front[end:], '\n')
		line := front[end:]
		if j >= 0 {
			line = front[end : end+j+1]
		}
		if !first && len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '-' && line[0] != '#' && line[0] != '\n' && line[0] != '\r' {
			break
		}
		end += len(line)
	}
	out := make([]byte, end-i, end-i+1)
	copy(out, front[i:end])
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// BareAnchors are the anchors items of a learning file written as a path alone, without
// "@blob": what a person types in `reflect edit` for reflect to anchor to the file as it is.
func BareAnchors(data []byte) []string {
	_, items := anchorItems(data)
	var out []string
	for _, n := range items {
		if !strings.Contains(n.Value, "@") {
			out = append(out, n.Value)
		}
	}
	return out
}

// FillAnchors replaces each bare anchors item of a learning file (see BareAnchors) with
// full[item], "path@blob", changing no other byte. An item it cannot place in the text is
// left as it is (Parse then says what is wrong with it).
func FillAnchors(data []byte, full map[string]string) []byte {
	f, items := anchorItems(data)
	if f == nil {
		return data
	}
	base := len(f.open)
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	for _, n := range items {
		to, ok := full[n.Value]
		if !ok || strings.Contains(n.Value, "@") {
			continue
		}
		start := offset(f.front, n.Line, n.Column)
		if start < 0 {
			continue
		}
		end := start + len(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			end = scanQuoted(f.front, start)
		} else if end > len(f.front) || string(f.front[start:end]) != n.Value {
			continue
		}
		text, err := encode(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: to})
		if err != nil {
			continue
		}
		edits = append(edits, edit{base + start, base + end, strings.TrimSuffix(string(text), "\n")})
	}
	out := data
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = append(append(append([]byte(nil), out[:e.start]...), e.text...), out[e.end:]...)
	}
	return out
}

// anchorItems parses a learning file's frontmatter and returns its anchors items (scalar
// nodes, in order); nil when there are none or the file does not parse that far.
func anchorItems(data []byte) (*file, []*yaml.Node) {
	f, _, err := split("", data)
	if err != nil {
		return nil, nil
	}
	doc := &yaml.Node{}
	if yaml.Unmarshal(f.front, doc) != nil {
		return nil, nil
	}
	_, v := lookup(mapping(doc), "anchors")
	if v == nil || v.Kind != yaml.SequenceNode {
		return f, nil
	}
	var items []*yaml.Node
	for _, n := range v.Content {
		if n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Anchor == "" {
			items = append(items, n)
		}
	}
	return f, items
}
