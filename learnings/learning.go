package learnings

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Global is the project key of learnings that apply to every project.
const Global = "_global"

// MaxTitleLen is the longest title, in characters, that Validate accepts.
const MaxTitleLen = 200

// Kind says what sort of lesson a learning is.
type Kind string

// The kinds of learning.
const (
	KindFix        Kind = "fix"
	KindRule       Kind = "rule"
	KindDecision   Kind = "decision"
	KindFailure    Kind = "failure"
	KindRecipe     Kind = "recipe"
	KindPreference Kind = "preference"
	KindCorrection Kind = "correction"
)

// Confidence says how sure the extractor (or person) was of a learning.
type Confidence string

// The confidence levels.
const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
)

// Status is where a learning is in its life: only current learnings are recalled.
type Status string

// The statuses.
const (
	StatusCurrent    Status = "current"
	StatusArchived   Status = "archived"
	StatusSuperseded Status = "superseded"
)

// AllKinds returns every Kind, in the order the file format documents them.
func AllKinds() []Kind {
	return []Kind{KindFix, KindRule, KindDecision, KindFailure, KindRecipe, KindPreference, KindCorrection}
}

// AllConfidences returns every Confidence, highest first.
func AllConfidences() []Confidence {
	return []Confidence{ConfidenceHigh, ConfidenceMedium, ConfidenceLow}
}

// AllStatuses returns every Status.
func AllStatuses() []Status {
	return []Status{StatusCurrent, StatusArchived, StatusSuperseded}
}

// Valid reports whether k is one of AllKinds.
func (k Kind) Valid() bool { return slices.Contains(AllKinds(), k) }

// Valid reports whether c is one of AllConfidences.
func (c Confidence) Valid() bool { return slices.Contains(AllConfidences(), c) }

// Valid reports whether s is one of AllStatuses.
func (s Status) Valid() bool { return slices.Contains(AllStatuses(), s) }

// ParseKind returns the Kind named by s, ignoring case and surrounding space.
func ParseKind(s string) (Kind, error) { return parseEnum("kind", s, AllKinds()) }

// ParseConfidence returns the Confidence named by s, ignoring case and surrounding space.
func ParseConfidence(s string) (Confidence, error) {
	return parseEnum("confidence", s, AllConfidences())
}

// ParseStatus returns the Status named by s, ignoring case and surrounding space.
func ParseStatus(s string) (Status, error) { return parseEnum("status", s, AllStatuses()) }

// StatusAll is the status filter that keeps every status.
const StatusAll = "all"

// ParseStatusFilter returns the statuses a --status value keeps: the one it names, or every
// status for "all", ignoring case and surrounding space. Its error names every value taken.
func ParseStatusFilter(s string) ([]Status, error) {
	if strings.EqualFold(strings.TrimSpace(s), StatusAll) {
		return AllStatuses(), nil
	}
	st, err := ParseStatus(s)
	if err != nil {
		return nil, fmt.Errorf("unknown status %q: %s or %s", s, oneOf(AllStatuses()), StatusAll)
	}
	return []Status{st}, nil
}

func parseEnum[T ~string](what, s string, all []T) (T, error) {
	v := T(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(all, v) {
		return v, nil
	}
	return "", fmt.Errorf("unknown %s %q: %s", what, s, oneOf(all))
}

func oneOf[T ~string](all []T) string {
	s := make([]string, len(all))
	for i, v := range all {
		s[i] = string(v)
	}
	return "must be one of " + strings.Join(s, ", ")
}

// Source records where a learning came from.
type Source struct {
	Harness string   // claude-code, codex, manual, ...
	Session string   // the harness's session id
	Trigger string   // precompact, stop, session-end, correction, manual, import
	Machine string   // host name of the machine that captured it
	Commit  string   // HEAD of the project repository when captured, if known
	Files   []string // project files the lesson is about
}

// Learning is one learning file: its frontmatter fields and its markdown body.
//
// A Learning returned by Parse remembers the file it came from, so that Render
// changes only the values that differ from it. Lists read from a file are nil
// when empty; times are UTC and stored to the second.
type Learning struct {
	ID           string
	Title        string
	Project      string
	Kind         Kind
	Confidence   Confidence
	Status       Status
	SupersededBy string
	Supersedes   []string
	Tags         []string
	Entities     []string
	// Triggers are the words a user will type when the learning is wanted, often not its
	// title's: error strings, identifiers, command names, the task it applies to.
	Triggers []string
	// Anchors are the project files the lesson is about, each as "path@blob": the path in
	// the project's tree and the git blob id it had when the lesson was learned (anchor.go).
	// A lesson about no file has none and never goes stale by them.
	Anchors []string
	Source  Source
	Created time.Time
	Updated time.Time
	Seen    int // times the same lesson was learned again
	// Body is the markdown after the frontmatter, without the blank lines
	// that may separate the two. Render ends it with a newline.
	Body string
	// Warnings are what Parse accepted but a reviewer should know: a project field the
	// file's directory overrides, a body longer than what is indexed.
	Warnings []string

	file *file // the parsed file, nil for a fresh learning
}

// file is what Render needs from a parsed file to rewrite it without losing
// anything a person wrote. It is never modified after Parse.
type file struct {
	path        string
	doc         *yaml.Node // the frontmatter document, with positions and comments
	front       []byte     // the frontmatter text between the delimiter lines
	open, close string     // the delimiter lines as written, with their line endings
	gap         string     // blank lines between the closing delimiter and the body
}

// New returns a current, medium-confidence rule with a fresh id, created and
// updated at now (UTC, to the second), seen once.
func New(title, project string, now time.Time) *Learning {
	now = now.UTC().Truncate(time.Second)
	return &Learning{
		ID:         NewID(now),
		Title:      title,
		Project:    project,
		Kind:       KindRule,
		Confidence: ConfidenceMedium,
		Status:     StatusCurrent,
		Created:    now,
		Updated:    now,
		Seen:       1,
	}
}

// A learning is a few short paragraphs. The caps keep one file from costing every reader:
// a 50 MB learning once made every matching prompt hook time out (232 MB RSS) and a search
// take 7.4 s and 1.3 GB. A file over MaxFileBytes is refused (by Parse, and by sync when it
// arrives); a body over MaxBodyBytes is indexed and recalled cut to it.
const (
	MaxFileBytes = 256 << 10
	MaxBodyBytes = 32 << 10
)

// IndexedBody is the body as search and recall see it: cut to MaxBodyBytes, on a rune
// boundary.
func (l *Learning) IndexedBody() string {
	if len(l.Body) <= MaxBodyBytes {
		return l.Body
	}
	n := MaxBodyBytes
	for n > 0 && !utf8.RuneStart(l.Body[n]) {
		n--
	}
	return l.Body[:n]
}

// RelPath returns the file's path in the knowledge repository.
func (l *Learning) RelPath() string { return PathFor(l.Project, l.ID) }

// FieldError is a problem with one field of a learning file, or with the file
// itself when Field is empty. Parse and Validate return them, several joined
// with errors.Join; use errors.As to get the first.
type FieldError struct {
	Path  string // the file, as given to Parse; empty for a learning not read from a file
	Line  int    // 1-based line in the file; 0 when unknown
	Field string // frontmatter key, dotted when nested ("source.files")
	Msg   string
}

// ParseError is the error type of Parse: a FieldError.
type ParseError = FieldError

// Error returns "path:line: field name: message", leaving out what is unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		if e.Path == "" {
			b.WriteString("line")
		}
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString("field " + e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// joinErrors joins field errors in line order; nil when there are none.
func joinErrors(errs []*FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *FieldError) int { return a.Line - b.Line })
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// maxSourceLen bounds each of a learning's source fields (a host name, a session id, a commit).
const maxSourceLen = 200

// breaksLine says whether s holds what ends a line where it is printed: a line feed, carriage
// return, vertical tab, form feed, next line (U+0085), or line or paragraph separator. Other
// control characters are the printers' to filter (internal/printable, recall's neutralise).
func breaksLine(s string) bool {
	return strings.ContainsAny(s, "\n\r\v\f\u0085\u2028\u2029")
}

// OneLine is s as one line of text: control characters other than white space dropped, and
// every run of white space (line and paragraph separators, tabs included) one space.
func OneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r >= 0x7f }) < 0 && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s) // printable ASCII: most titles and labels
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// Validate checks every field and returns all problems found, joined. For a
// parsed learning each error names the file and the line of the field.
func (l *Learning) Validate() error {
	var errs []*FieldError
	bad := func(field string, item int, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Line: l.line(field, item), Msg: fmt.Sprintf(format, args...)})
	}
	if !ValidID(l.ID) {
		bad("id", -1, `must be "lrn-" followed by an upper-case ULID (got %q)`, l.ID)
	}
	switch {
	case strings.TrimSpace(l.Title) == "":
		bad("title", -1, "is required")
	case breaksLine(l.Title):
		bad("title", -1, "must be a single line")
	case utf8.RuneCountInString(l.Title) > MaxTitleLen:
		bad("title", -1, "is %d characters long, the limit is %d", utf8.RuneCountInString(l.Title), MaxTitleLen)
	}
	if ValidProjectKey(l.Project) != nil {
		bad("project", -1, "must be %s, local/<name> or host/owner/name (got %q)", Global, l.Project)
	}
	if !l.Kind.Valid() {
		bad("kind", -1, "%s (got %q)", oneOf(AllKinds()), l.Kind)
	}
	if !l.Confidence.Valid() {
		bad("confidence", -1, "%s (got %q)", oneOf(AllConfidences()), l.Confidence)
	}
	if !l.Status.Valid() {
		bad("status", -1, "%s (got %q)", oneOf(AllStatuses()), l.Status)
	}
	switch {
	case l.Status == StatusSuperseded && l.SupersededBy == "":
		bad("superseded_by", -1, "is required when status is superseded")
	case l.Status != StatusSuperseded && l.SupersededBy != "":
		bad("superseded_by", -1, "must be empty unless status is superseded (got %q)", l.SupersededBy)
	case l.SupersededBy != "" && !ValidID(l.SupersededBy):
		bad("superseded_by", -1, "must be a learning id (got %q)", l.SupersededBy)
	case l.SupersededBy != "" && l.SupersededBy == l.ID:
		bad("superseded_by", -1, "a learning cannot supersede itself")
	}
	for i, id := range l.Supersedes {
		if !ValidID(id) || id == l.ID {
			bad("supersedes", i, "item %d must be the id of another learning (got %q)", i+1, id)
		}
	}
	for _, list := range []struct {
		field string
		items []string
	}{{"tags", l.Tags}, {"entities", l.Entities}, {"triggers", l.Triggers}, {"source.files", l.Source.Files}} {
		for i, s := range list.items {
			if strings.TrimSpace(s) == "" || breaksLine(s) {
				bad(list.field, i, "item %d must be a non-empty single line (got %q)", i+1, s)
			}
		}
	}
	// where it came from is printed beside it wherever it is shown (recall's block names the
	// machine): a field that breaks its line could end the entry and begin a forged one
	for _, f := range []struct{ field, value string }{{"source.harness", l.Source.Harness}, {"source.session", l.Source.Session},
		{"source.trigger", l.Source.Trigger}, {"source.machine", l.Source.Machine}, {"source.commit", l.Source.Commit}} {
		switch {
		case breaksLine(f.value):
			bad(f.field, -1, "must be a single line")
		case utf8.RuneCountInString(f.value) > maxSourceLen:
			bad(f.field, -1, "is %d characters long, the limit is %d", utf8.RuneCountInString(f.value), maxSourceLen)
		}
	}
	for i, a := range l.Anchors {
		if _, err := ParseAnchor(a); err != nil {
			bad("anchors", i, "item %d: %v", i+1, err)
		}
	}
	if len(l.Anchors) > MaxAnchors {
		bad("anchors", -1, "holds %d anchors, the limit is %d", len(l.Anchors), MaxAnchors)
	}
	if l.Seen < 1 {
		bad("seen", -1, "must be at least 1 (got %d)", l.Seen)
	}
	if !l.Created.IsZero() && !l.Updated.IsZero() && l.Updated.Before(l.Created) {
		bad("updated", -1, "%s is before created %s", l.Updated.Format(time.RFC3339), l.Created.Format(time.RFC3339))
	}
	if l.file != nil {
		for _, e := range errs {
			e.Path = l.file.path
		}
	}
	return joinErrors(errs)
}

// fieldErrors returns the field errors in an error made by joinErrors.
func fieldErrors(err error) []*FieldError {
	var errs []*FieldError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			errs = append(errs, e.(*FieldError))
		}
	}
	return errs
}

// line returns the file line of a field's value (of its item-th item when
// item >= 0), the line of the nearest enclosing key when the field is absent,
// and 0 for a learning that was not parsed.
func (l *Learning) line(field string, item int) int {
	if l.file == nil {
		return 0
	}
	n, at := mapping(l.file.doc), 1
	for key := range strings.SplitSeq(field, ".") {
		_, v := lookup(n, key)
		if v == nil {
			return at
		}
		n, at = v, fileLine(v)
	}
	if item >= 0 && n.Kind == yaml.SequenceNode && item < len(n.Content) {
		return fileLine(n.Content[item])
	}
	return at
}
