package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/learnings"
)

// TestVocabulary checks every pair of vocabulary.txt: its sides are words the index keeps and
// differ once analyzed, and a query saying either side finds a learning that says only the
// other, through the index, as a match of the term the query said.
func TestVocabulary(t *testing.T) {
	v, err := parseVocabulary(vocabularyText)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.pairs) < 80 {
		t.Errorf("%d pairs, want at least 80", len(v.pairs))
	}
	setHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// one learning per side of each pair, saying that side and nothing the other says
	files, ids := map[string][]byte{}, map[string]string{}
	lines := strings.Split(vocabularyText, "\n")
	for i, p := range v.pairs {
		short, long, _, _ := cutPair(lines[p.line-1])
		for j, side := range []string{strings.TrimSpace(short), strings.TrimSpace(long)} {
			l := learnings.New("Note on "+side, "github.com/acme/vocab", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(2*i+j)*time.Second))
			l.Body = "Remember " + side + ".\n"
			data, err := l.Render()
			if err != nil {
				t.Fatal(err)
			}
			files[l.RelPath()] = data
			ids[fmt.Sprintf("%d/%d", p.line, j)] = l.ID
		}
	}
	if _, err := r.Commit(ctx, "vocabulary", files); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, r, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, p := range v.pairs {
		line := strings.TrimSpace(lines[p.line-1])
		t.Run(line, func(t *testing.T) {
			if strings.Join(p.short, " ") == strings.Join(p.long, " ") {
				t.Fatalf("both sides analyze to %q", p.short)
			}
			short, long, _, _ := cutPair(line)
			for j, said := range []string{strings.TrimSpace(short), strings.TrimSpace(long)} {
				want := ids[fmt.Sprintf("%d/%d", p.line, 1-j)]
				tp := PromptTopic("the " + said + " again")
				res, err := ix.Search(ctx, index.Query{Terms: tp.words(), Limit: 50})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, h := range res.Hits {
					if h.ID != want {
						continue
					}
					c := assess(h, tp, res)
					for _, m := range c.Matches {
						found = found || m.Kind == "vocabulary"
					}
					for _, sc := range c.scores {
						if want := map[bool]float64{true: nearCredit, false: 1}[p.near]; sc.Kind == "vocabulary" && sc.Credit != want {
							t.Errorf("%q matches the other side at %.2f of its weight, want %.2f", said, sc.Credit, want)
						}
					}
				}
				if !found {
					t.Errorf("%q does not find the learning saying the other side (terms %v)", said, tp.words())
				}
			}
		})
	}
}
