package learnings

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Parse reads a learning file: frontmatter between "---" lines, then the
// markdown body. It returns every problem it finds, each a *FieldError naming
// path (used only in messages), the line and the field: a missing or unclosed
// frontmatter, bad YAML, a value of the wrong type, a duplicate key, and
// whatever Validate reports. Unknown keys are kept for Render.
//
// When path is a learning's place in the repository (learnings/<project>/<id>.md), the file
// must agree with it: an id other than the file name is an error (a second file must never
// pass for another learning), and the directory is the learning's project whatever its
// `project` field says (a mismatch is kept in Warnings, and Render corrects the field).
func Parse(path string, data []byte) (*Learning, error) { return parse(path, data, true) }

// parse is Parse; placed says whether path is where the file lives (false for an edit, whose
// project field may move it).
func parse(path string, data []byte, placed bool) (*Learning, error) {
	if len(data) > MaxFileBytes {
		return nil, &FieldError{Path: path, Msg: fmt.Sprintf("the file is %d bytes; a learning may be at most %d", len(data), MaxFileBytes)}
	}
	f, body, err := split(path, data)
	if err != nil {
		return nil, err
	}
	l := &Learning{file: f}
	doc, errs := decodeFront(f.front, l)
	if doc == nil {
		errs[0].Path = path
		return nil, errs[0]
	}
	f.doc = doc
	f.gap, l.Body = splitGap(body)
	l.fillDefaults(mapping(doc))
	if id, project, ok := placeOf(path); ok && placed {
		if l.ID != id && ValidID(l.ID) {
			errs = append(errs, &FieldError{Field: "id", Line: l.line("id", -1),
				Msg: fmt.Sprintf("is %s but the file is named %s.md: a learning's id is its file name", l.ID, id)})
		}
		if _, v := lookup(mapping(doc), "project"); v != nil && l.Project != project {
			l.Warnings = append(l.Warnings, fmt.Sprintf("field project says %q but the file is under learnings/%s/: the directory decides", l.Project, project))
		}
		l.Project = project
	}
	if len(l.Body) > MaxBodyBytes {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the body is %d bytes: only its first %d are indexed and recalled", len(l.Body), MaxBodyBytes))
	}
	// Report every problem once: a field that could not be decoded is not
	// validated too.
	for _, e := range fieldErrors(l.Validate()) {
		if !slices.ContainsFunc(errs, func(d *FieldError) bool { return d.Field == e.Field }) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		for _, e := range errs {
			e.Path = path
		}
		return nil, joinErrors(errs)
	}
	return l, nil
}

// split finds the frontmatter with goldmark's frontmatter extension and checks
// the delimiter lines around it, so that the body is known to the byte.
func split(path string, data []byte) (*file, []byte, error) {
	fail := func(line int, format string, args ...any) (*file, []byte, error) {
		return nil, nil, &FieldError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	open := firstLine(data)
	delim := bytes.TrimRight(open, "\r\n")
	if len(delim) < 3 || len(bytes.Trim(delim, "-")) > 0 {
		return fail(1, `no frontmatter: the file must start with a "---" line`)
	}
	front, ok := locateFront(data)
	if !ok || !bytes.HasPrefix(data[len(open):], front) {
		return fail(1, "frontmatter not recognised")
	}
	rest := data[len(open)+len(front):]
	closing := firstLine(rest)
	if !bytes.Equal(bytes.TrimRight(closing, "\r\n"), delim) {
		return fail(1, "frontmatter is not closed: no %q line follows", delim)
	}
	return &file{path: path, front: front, open: string(open), close: string(closing)}, rest[len(closing):], nil
}

// locateFront returns a file's frontmatter as goldmark's frontmatter extension
// (go.abhg.dev/goldmark/frontmatter v0.3.0, which DESIGN.md names) finds it: the first line is
// "-" repeated three times or more (YAML's delimiter, the one format installed), and the
// frontmatter runs from the next line to the first line of as many "-" (CR and LF
// aside), or to the end of the file when no line does. FuzzLocateFront holds it equal to the
// extension, run through goldmark, on every input.
//
// It is written here, not called, because linking goldmark's parser put goldmark's, BurntSushi
// toml's and gopkg.in/yaml.v3's package initialisation (0.36 ms by GODEBUG=inittrace=1, 9% of
// `reflect version`) into every process of the lean reflect, the capture hooks included;
// locating is a dozen lines and the YAML is still decoded by go.yaml.in/yaml/v3. The engine
// still renders bodies with goldmark (package view).
func locateFront(data []byte) ([]byte, bool) {
	open := firstLine(data)
	delim, n := lineDelim(open)
	if delim != '-' {
		return nil, false
	}
	start := len(open)
	for at := start; at < len(data); {
		line := firstLine(data[at:])
		if d, c := lineDelim(line); d == delim && c == n {
			return data[start:at], true
		}
		at += len(line)
	}
	return data[start:], true
}

// lineDelim reports whether line (its line ending aside) is one byte repeated three times or
// more, and which byte and how many times.
func lineDelim(line []byte) (delim byte, count int) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	if len(line) < 3 {
		return 0, 0
	}
	for _, c := range line[1:] {
		if c != line[0] {
			return 0, 0
		}
	}
	return line[0], len(line)
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

// splitGap separates the blank lines that start the body from the rest.
func splitGap(body []byte) (gap, rest string) {
	i := 0
	for {
		switch {
		case bytes.HasPrefix(body[i:], []byte("\n")):
			i++
		case bytes.HasPrefix(body[i:], []byte("\r\n")):
			i += 2
		default:
			return string(body[:i]), string(body[i:])
		}
	}
}

// frontLine is the file line of the frontmatter's first line: yaml.Node lines
// count from the line after the opening delimiter.
const frontLine = 1

func fileLine(n *yaml.Node) int { return n.Line + frontLine }

// decodeFront decodes frontmatter text into l's fields and returns the YAML
// document. The errors carry lines and fields but no path.
func decodeFront(front []byte, l *Learning) (*yaml.Node, []*FieldError) {
	doc := &yaml.Node{}
	if err := yaml.Unmarshal(front, doc); err != nil {
		return nil, []*FieldError{yamlError(err)}
	}
	if doc.Kind == 0 { // empty frontmatter
		doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	m := mapping(doc)
	if m == nil {
		return nil, []*FieldError{{Line: fileLine(doc.Content[0]), Msg: "frontmatter must be a mapping of keys to values"}}
	}
	var errs []*FieldError
	decodeMap(m, l.refs(), "", &errs)
	return doc, errs
}

// yamlError turns a YAML syntax error into a FieldError on the file's line.
func yamlError(err error) *FieldError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if i, err := strconv.Atoi(n); err == nil {
				line, msg = i, after
			}
		}
	}
	if parserProblem(msg) || line == 0 {
		line++ // yaml counts lines from 0 in parser (not scanner) errors
	}
	return &FieldError{Line: line + frontLine, Msg: "invalid YAML: " + msg}
}

// parserProblem reports whether msg is one of the YAML parser's (not
// scanner's) problems, the ones whose line yaml reports 0-based.
func parserProblem(msg string) bool {
	switch msg {
	case "did not find expected <stream-start>", "did not find expected <document start>",
		"did not find expected node content", "did not find expected '-' indicator",
		"did not find expected key", "did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"found undefined tag handle", "found duplicate %YAML directive", "found duplicate %TAG directive",
		"found incompatible YAML document":
		return true
	}
	return false
}

// mapping returns the top-level mapping of a frontmatter document, or nil.
func mapping(doc *yaml.Node) *yaml.Node {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return doc.Content[0]
}

// lookup returns the key and value nodes of key in mapping m, or nils.
func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// ref ties a frontmatter key to the Learning field it holds. Exactly one of
// the pointers is set, or sub for a nested mapping. The order of refs is the
// canonical key order of a learning file.
type ref struct {
	key  string
	str  *string
	list *[]string
	tm   *time.Time
	num  *int
	sub  []ref
	// optional keys are written only when they hold something: a learning without them
	// reads as it did before they existed.
	optional bool
}

func (l *Learning) refs() []ref {
	s := &l.Source
	return []ref{
		{key: "id", str: &l.ID},
		{key: "title", str: &l.Title},
		{key: "project", str: &l.Project},
		{key: "kind", str: (*string)(&l.Kind)},
		{key: "confidence", str: (*string)(&l.Confidence)},
		{key: "status", str: (*string)(&l.Status)},
		{key: "superseded_by", str: &l.SupersededBy},
		{key: "supersedes", list: &l.Supersedes},
		{key: "tags", list: &l.Tags},
		{key: "entities", list: &l.Entities},
		{key: "triggers", list: &l.Triggers, optional: true},
		{key: "anchors", list: &l.Anchors, optional: true},
		{key: "source", sub: []ref{
			{key: "harness", str: &s.Harness},
			{key: "session", str: &s.Session},
			{key: "trigger", str: &s.Trigger},
			{key: "machine", str: &s.Machine},
			{key: "commit", str: &s.Commit},
			{key: "files", list: &s.Files},
		}},
		{key: "created", tm: &l.Created},
		{key: "updated", tm: &l.Updated},
		{key: "seen", num: &l.Seen},
	}
}

func findRef(refs []ref, key string) *ref {
	for i := range refs {
		if refs[i].key == key {
			return &refs[i]
		}
	}
	return nil
}

// decodeMap decodes the known keys of mapping m into refs, reporting values
// of the wrong type and duplicate keys. Unknown keys are left alone.
func decodeMap(m *yaml.Node, refs []ref, prefix string, errs *[]*FieldError) {
	seen := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		field := prefix + k.Value
		if first, dup := seen[k.Value]; dup {
			*errs = append(*errs, &FieldError{Line: fileLine(k), Field: field, Msg: fmt.Sprintf("duplicate key (first set on line %d)", first)})
			continue
		}
		seen[k.Value] = fileLine(k)
		r := findRef(refs, k.Value)
		if r == nil {
			continue
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if r.sub != nil && v.Kind == yaml.MappingNode {
			decodeMap(v, r.sub, field+".", errs)
			continue
		}
		if item, msg := decodeValue(r, v); msg != "" {
			*errs = append(*errs, &FieldError{Line: fileLine(item), Field: field, Msg: msg})
		}
	}
}

// decodeValue decodes v into r. On failure it returns the offending node and
// what is wrong with it.
func decodeValue(r *ref, v *yaml.Node) (*yaml.Node, string) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, "" // an empty value leaves the zero value
	}
	switch {
	case r.str != nil:
		if v.Kind != yaml.ScalarNode {
			return v, "must be a string, not " + describe(v)
		}
		*r.str = v.Value
	case r.list != nil:
		if v.Kind != yaml.SequenceNode {
			return v, "must be a list like [a, b], not " + describe(v)
		}
		*r.list = nil
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return item, "must be a list of strings, not contain " + describe(item)
			}
			*r.list = append(*r.list, item.Value)
		}
	case r.tm != nil:
		if v.Kind == yaml.ScalarNode && v.Value == "" {
			return nil, ""
		}
		t, err := time.Parse(time.RFC3339, v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			return v, "must be an RFC 3339 time like 2026-11-21T09:14:02Z, not " + describe(v)
		}
		*r.tm = t.UTC()
	case r.num != nil:
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(r.num) != nil {
			return v, "must be an integer, not " + describe(v)
		}
	case r.sub != nil:
		return v, "must be a mapping of keys to values, not " + describe(v)
	}
	return nil, ""
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return strconv.Quote(n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a " + n.Tag
}

// fillDefaults gives every field a person may leave out of a hand-written file its value:
// a learning needs only an id and a title. kind rule, confidence medium, status current,
// seen once; the project comes from the file's directory (Parse) and the dates from the
// commit that gave the file its content (Read). A field that is there keeps its value, good
// or bad.
func (l *Learning) fillDefaults(m *yaml.Node) {
	missing := func(key string) bool { _, v := lookup(m, key); return v == nil }
	if missing("kind") {
		l.Kind = KindRule
	}
	if missing("confidence") {
		l.Confidence = ConfidenceMedium
	}
	if missing("status") {
		l.Status = StatusCurrent
	}
	if missing("seen") {
		l.Seen = 1
	}
}
