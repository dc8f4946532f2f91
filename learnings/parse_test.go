package learnings

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// canonical is a learning file as Render writes it; the comment gives line numbers.
const canonical = `---
id: lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C
title: OAuth state mismatch on redirect
project: github.com/acme/auth-service
kind: fix
confidence: high
status: current
superseded_by: ""
supersedes: []
tags: [oauth, redirect]
entities: [AuthController, state param]
source:
  harness: claude-code
  session: 4c2ddfdc
  trigger: precompact
  machine: laptop-a
  commit: 9f3c2e1
  files: [internal/auth/redirect.go]
created: 2026-11-21T09:14:02Z
updated: 2026-11-21T09:14:02Z
seen: 1
---
The redirect handler compared the state param before URL-decoding it.
`

// withLine returns canonical with 1-based line n replaced by s (several lines
// if s has newlines; none if s is empty).
func withLine(n int, s string) string {
	lines := strings.SplitAfter(canonical, "\n")
	if s == "" {
		lines[n-1] = ""
	} else {
		lines[n-1] = s + "\n"
	}
	return strings.Join(lines, "")
}

func TestParseDesignExample(t *testing.T) {
	data, err := os.ReadFile("testdata/design.md")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("learnings/github.com/acme/auth-service/lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C.md", data)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 9, 14, 2, 0, time.UTC)
	want := Learning{
		ID: "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C", Title: "OAuth state mismatch on redirect",
		Project: "github.com/acme/auth-service", Kind: KindFix, Confidence: ConfidenceHigh, Status: StatusCurrent,
		Tags: []string{"oauth", "redirect"}, Entities: []string{"AuthController", "state param"},
		Source: Source{Harness: "claude-code", Session: "4c2ddfdc-...", Trigger: "precompact", Machine: "laptop-a",
			Commit: "9f3c2e1", Files: []string{"internal/auth/redirect.go"}},
		Created: at, Updated: at, Seen: 1,
		Body: "The redirect handler compared the state param before URL-decoding it ... (the lesson, the fix,\n" +
			"and why; a few short paragraphs at most)\n",
	}
	if diff := fieldDiff(l, &want); diff != "" {
		t.Error(diff)
	}
}

// fieldDiff describes how the fields of two learnings differ ("" if they do
// not). Empty and nil lists are equal; times are compared as instants.
func fieldDiff(got, want *Learning) string {
	var d []string
	g, w := got.refs(), want.refs()
	var walk func(prefix string, g, w []ref)
	walk = func(prefix string, g, w []ref) {
		for i := range g {
			if g[i].sub != nil {
				walk(prefix+g[i].key+".", g[i].sub, w[i].sub)
			} else if !sameRef(g[i], w[i]) {
				d = append(d, fmt.Sprintf("%s%s: got %v, want %v", prefix, g[i].key, refValue(g[i]), refValue(w[i])))
			}
		}
	}
	walk("", g, w)
	if got.Body != want.Body {
		d = append(d, fmt.Sprintf("body: got %q, want %q", got.Body, want.Body))
	}
	return strings.Join(d, "\n")
}

func refValue(r ref) any {
	switch {
	case r.str != nil:
		return *r.str
	case r.list != nil:
		return *r.list
	case r.tm != nil:
		return *r.tm
	}
	return *r.num
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		line  int
		field string
		msg   string // part of the message
	}{
		{"empty file", "", 1, "", "no frontmatter"},
		{"no frontmatter", "# Title\n\nbody\n", 1, "", "no frontmatter"},
		{"indented delimiter", " ---\nid: x\n---\n", 1, "", "no frontmatter"},
		{"not closed", strings.TrimSuffix(canonical[:strings.LastIndex(canonical, "---")], "\n"), 1, "", "not closed"},
		{"only opening", "---\n", 1, "", "not closed"},
		{"empty frontmatter", "---\n---\nbody\n", 1, "id", "lrn-"},
		{"scalar frontmatter", "---\njust text\n---\n", 2, "", "must be a mapping"},
		{"unclosed flow list", withLine(10, "tags: [oauth, redirect"), 10, "", "invalid YAML"},
		{"bad indentation", withLine(4, "project: x\n  bad: y"), 5, "", "invalid YAML"},
		{"tags: 5", withLine(10, "tags: 5"), 10, "tags", `must be a list like [a, b], not "5"`},
		{"tags: mapping", withLine(10, "tags: {a: b}"), 10, "tags", "not a mapping"},
		{"nested tag list", withLine(10, "tags: [a, [b]]"), 10, "tags", "must be a list of strings"},
		{"block list item", withLine(11, "entities:\n  - ok\n  - {x: 1}"), 13, "entities", "must be a list of strings"},
		{`seen: "x"`, withLine(21, `seen: "x"`), 21, "seen", `must be an integer, not "x"`},
		{`seen: "3"`, withLine(21, `seen: "3"`), 21, "seen", "must be an integer"},
		{"seen: 1.5", withLine(21, "seen: 1.5"), 21, "seen", "must be an integer"},
		{"seen: 0", withLine(21, "seen: 0"), 21, "seen", "at least 1"},
		{"bad time", withLine(19, "created: yesterday"), 19, "created", "RFC 3339"},
		{"date only", withLine(20, "updated: 2026-11-21"), 20, "updated", "RFC 3339"},
		{"updated before created", withLine(20, "updated: 2026-11-20T09:14:02Z"), 20, "updated", "before created"},
		{"title list", withLine(3, "title: [a]"), 3, "title", "must be a string, not a list"},
		{"empty title", withLine(3, `title: ""`), 3, "title", "is required"},
		{"missing id", withLine(2, ""), 1, "id", "lrn-"},
		{"bad id", withLine(2, "id: 42"), 2, "id", `(got "42")`},
		{"bad confidence", withLine(6, "confidence: hgh"), 6, "confidence", `must be one of high, medium, low (got "hgh")`},
		{"bad kind", withLine(5, "kind: bug"), 5, "kind", "must be one of fix, rule"},
		{"bad project", withLine(4, "project: /home/me/auth"), 4, "project", "host/owner/name"},
		{"superseded without id", withLine(7, "status: superseded"), 8, "superseded_by", "required"},
		{"bad supersedes", withLine(9, "supersedes: [lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D, nope]"), 9, "supersedes", "item 2"},
		{"source scalar", canonical[:strings.Index(canonical, "source:")] + "source: 3\n" + canonical[strings.Index(canonical, "created:"):],
			12, "source", "must be a mapping"},
		{"missing key in flow map", withLine(10, "tags: {a: 1, b"), 10, "", "invalid YAML"},
		{"bad key", withLine(3, "title: t\n: x"), 4, "", "invalid YAML"},
		{"tab indentation", withLine(13, "\tharness: x"), 13, "", "invalid YAML"},
		{"files scalar", withLine(18, "  files: a.go"), 18, "source.files", "must be a list"},
		{"harness list", withLine(13, "  harness: [a]"), 13, "source.harness", "must be a string"},
		{"duplicate key", withLine(21, "seen: 1\nkind: rule"), 22, "kind", "duplicate key (first set on line 5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := Parse("learnings/x.md", []byte(tc.in))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", l)
			}
			var fe *ParseError
			if !errors.As(err, &fe) {
				t.Fatalf("errors.As(%T) failed: %v", err, err)
			}
			errs := allFieldErrors(err)
			i := slices.IndexFunc(errs, func(e *FieldError) bool { return e.Field == tc.field })
			if i < 0 {
				t.Fatalf("no error for field %q in:\n%v", tc.field, err)
			}
			e := errs[i]
			prefix := fmt.Sprintf("learnings/x.md:%d: ", tc.line)
			if tc.field != "" {
				prefix += "field " + tc.field + ": "
			}
			if e.Path != "learnings/x.md" || !strings.HasPrefix(e.Error(), prefix) || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("error = %q, want prefix %q and %q", e.Error(), prefix, tc.msg)
			}
		})
	}
}

func TestParseAllErrors(t *testing.T) {
	in := withLine(6, "confidence: hgh")
	in = strings.Replace(in, "tags: [oauth, redirect]", "tags: 5", 1)
	in = strings.Replace(in, "seen: 1", `seen: "x"`, 1)
	_, err := Parse("learnings/x.md", []byte(in))
	want := `learnings/x.md:6: field confidence: must be one of high, medium, low (got "hgh")` + "\n" +
		`learnings/x.md:10: field tags: must be a list like [a, b], not "5"` + "\n" +
		`learnings/x.md:21: field seen: must be an integer, not "x"`
	if errString(err) != want {
		t.Errorf("Parse error =\n%v\nwant\n%s", err, want)
	}
}

func TestParseLayout(t *testing.T) {
	const front = "---\nid: lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C\ntitle: t\nproject: _global\nkind: rule\nconfidence: low\nstatus: current\nseen: 1\n---\n"
	for _, tc := range []struct {
		name, in, body string
	}{
		{"no body", front, ""},
		{"no final newline", strings.TrimSuffix(front, "\n"), ""},
		{"blank line before body", front + "\n\nBody\n", "Body\n"},
		{"body keeps trailing blanks", front + "Body\n\n", "Body\n\n"},
		{"thematic break in body", front + "a\n---\nb\n", "a\n---\nb\n"},
		{"crlf", strings.ReplaceAll(front+"\nBody\n", "\n", "\r\n"), "Body\r\n"},
		{"four dashes", strings.ReplaceAll(front, "---", "----") + "x\n---\n", "x\n---\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse("x.md", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if l.Body != tc.body || l.Title != "t" || l.Created != (time.Time{}) {
				t.Errorf("Parse = title %q body %q", l.Title, l.Body)
			}
			out, err := l.Render()
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.in {
				t.Errorf("Render =\n%q\nwant\n%q", out, tc.in)
			}
		})
	}
}

func TestParseKeepsUnknownAndOddValues(t *testing.T) {
	in := withLine(21, "seen: 0x10\nreviewed_by: alice   # a person's own key\nextra:\n  nested: [1, 2]")
	in = strings.Replace(in, `superseded_by: ""`, "superseded_by:", 1)
	in = strings.Replace(in, "created: 2026-11-21T09:14:02Z", "created: 2026-11-21T10:14:02+01:00", 1)
	l, err := Parse("x.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if l.Seen != 16 || l.SupersededBy != "" || !l.Created.Equal(l.Updated) || l.Created.Location() != time.UTC {
		t.Errorf("Parse = seen %d, superseded_by %q, created %v", l.Seen, l.SupersededBy, l.Created)
	}
	out, err := l.Render()
	if err != nil || string(out) != in {
		t.Errorf("Render = %v\n%s", err, out)
	}
}
