package learnings

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"
)

// goldmarkFront is how Parse located the frontmatter before locateFront: goldmark's parser
// with only the frontmatter extension's block parser and paragraphs installed.
func goldmarkFront(data []byte) ([]byte, bool) {
	capture := frontmatter.Format{Name: "YAML", Delim: '-', Unmarshal: func(b []byte, v any) error {
		*v.(*[]byte) = b
		return nil
	}}
	p := parser.NewParser(parser.WithBlockParsers(
		util.Prioritized(&frontmatter.Parser{Formats: []frontmatter.Format{capture}}, 0),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	))
	ctx := parser.NewContext()
	p.Parse(text.NewReader(data), parser.WithContext(ctx))
	d := frontmatter.Get(ctx)
	if d == nil {
		return nil, false
	}
	var front []byte
	return front, d.Decode(&front) == nil
}

var frontCases = []string{
	"---\nid: a\n---\nbody\n",
	"---\r\nid: a\r\n---\r\nbody",
	"----\nid: a\n---\nstill front\n----\nbody",
	"---\nid: a\n",
	"---\n---\n",
	"---",
	"---\n",
	"--\nid: a\n--\n",
	"+++\nid = 1\n+++\n",
	"--- \nid: a\n---\n",
	"---\nid: a\n--- \nx\n---\n",
	"---\n\n\n---\n",
	"---\n    indented: 1\n\t---\n---\nb",
	"---\nid: a\n---",
	"---\rid: a\r---\r",
	"\ufeff---\nid: a\n---\n",
	" ---\nid: a\n---\n",
	"---\nx\x00y\n---\nb",
	"---\n- a\n- b\n---\n# title\n",
	"---\n```\n---\n```\n",
	"",
	"body only\n",
	"***\nid: a\n***\n",
	"===\nid: a\n===\n",
}

// TestLocateFrontAsGoldmark: locateFront finds what goldmark's frontmatter extension finds.
func TestLocateFrontAsGoldmark(t *testing.T) {
	for _, c := range frontCases {
		checkFront(t, []byte(c))
	}
}

// FuzzLocateFront holds locateFront equal to goldmark's frontmatter extension on any input
// (go test -fuzz FuzzLocateFront ./learnings; the seeds run in every go test).
func FuzzLocateFront(f *testing.F) {
	for _, c := range frontCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFront(t, data) })
}

// checkFront compares the two on a file whose first line is a "-" delimiter line, the only
// files split asks locateFront about. (goldmark also takes a frontmatter after blank first
// lines, "\n---\n…"; split has refused such a file by then: no "---" first line.)
func checkFront(t *testing.T, data []byte) {
	t.Helper()
	got, gotOK := locateFront(data)
	if d, _ := lineDelim(firstLine(data)); d != '-' {
		if gotOK {
			t.Errorf("%q: locateFront = %q, true without a first \"---\" line", data, got)
		}
		return
	}
	want, wantOK := goldmarkFront(data)
	if gotOK != wantOK || !bytes.Equal(got, want) {
		t.Errorf("%q: locateFront = %q, %v; goldmark's frontmatter = %q, %v", data, got, gotOK, want, wantOK)
	}
}
