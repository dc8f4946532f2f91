package recall

import (
	"context"
	"slices"
	"testing"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
)

// TestScanRecallsAsTheIndex: with no usable index (missing, corrupt, locked by a writer)
// searches scan git; a hook recalls then what it would with the index. Every query of the
// relevance suite and the seven held-out sets injects the same learnings either way. (Before the
// scan scored as the index does, it injected 124 learnings on the suite where the index
// injected 113, with 6 queries injecting something irrelevant where the index had 2.)
func TestScanRecallsAsTheIndex(t *testing.T) {
	r, keys, qs := relevanceRepo(t)
	for _, load := range []func() ([]fixtures.RelQuery, error){fixtures.RelevanceHeldout, fixtures.RelevanceHeldout2, fixtures.RelevanceHeldout3, fixtures.RelevanceHeldout4, fixtures.RelevanceHeldout5, fixtures.RelevanceHeldout6, fixtures.RelevanceHeldout7} {
		more, err := load()
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, more...)
	}
	scanAgrees(t, r, keys, qs)
	r, keys, qs = grownRepo(t, growth{copies: 1, synth: 500})
	scanAgrees(t, r, keys, qs)
}

func scanAgrees(t *testing.T, r *gitstore.Repo, keys map[string]string, qs []fixtures.RelQuery) {
	ctx := context.Background()
	scan, err := index.Open(ctx, r, index.Options{NoBuild: true}) // no index yet: a scan
	if err != nil {
		t.Fatal(err)
	}
	defer scan.Close()
	ix := openIndex(t, r)
	differ := 0
	for _, q := range qs {
		ws := &Workspace{Project: q.Project, Branch: q.Branch, Subjects: q.Commits, Files: q.Files}
		var got [2][]string
		for i, x := range []*index.Index{ix, scan} {
			res, err := Recall(ctx, r, x, Request{Workspace: ws, Prompt: q.Prompt, Now: suiteNow})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"index", "scan"}[i]; res.Source != want && len(res.Candidates) > 0 {
				t.Fatalf("%s: searched by %s, want %s", q.Name, res.Source, want)
			}
			for _, c := range res.Injected {
				got[i] = append(got[i], keys[c.ID])
			}
		}
		if !slices.Equal(got[0], got[1]) {
			differ++
			t.Errorf("%s: the index injects %v, the scan %v", q.Name, got[0], got[1])
		}
	}
	t.Logf("%d of %d queries inject otherwise by scan", differ, len(qs))
}
