package index

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
)

// TestAmongAsSearch: Among answers each query among a first search's hits as a bleve search
// of it restricted to those hits does: the same hits in the same order, scores equal to
// 1e-12, the same words found and weights. The queries are the topics of a session start (the
// branch, each commit) and the prompt of each query of the relevance suite, over its corpus,
// the index's fixtures and a synthetic memory whose fields hold nothing (tf-idf's idf), in
// the whole memory and in a project's scope, with the memo's fields (clauses pruned) and
// without (a fresh memo).
func TestAmongAsSearch(t *testing.T) {
	ctx := context.Background()
	ls, qs, err := fixtures.Relevance()
	if err != nil {
		t.Fatal(err)
	}
	ids, corpus := map[string]string{}, map[string][]byte{}
	for _, l := range ls {
		ids[l.Key] = fixtures.RelID(l)
	}
	for _, l := range ls {
		p, data := l.Render(ids)
		corpus[p] = data
	}
	synth := map[string][]byte{}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		p, data := fixtures.SynthLearning(rng, i, fixtures.SynthProject(i%3), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute))
		synth[p] = data
	}
	for name, r := range map[string]*gitstore.Repo{"relevance": repoWith(t, corpus), "fixtures": fixtureRepo(t), "synthetic": repoWith(t, synth)} {
		t.Run(name, func(t *testing.T) {
			// the first open builds the index and holds it for writing: Among looks the hits
			// up by path; the second reads it only: Among takes the ids the search found
			for _, fixed := range []bool{false, true} {
				ix, err := Open(ctx, r, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if ix.fixed != fixed {
					t.Fatalf("open for reading only %v, want %v", ix.fixed, fixed)
				}
				compareAmong(t, ix, qs, name)
				ix.Close()
			}
		})
	}
}

// compareAmong compares Among with the searches it stands for, for topics made of each of
// qs over ix (see TestAmongAsSearch).
func compareAmong(t *testing.T, ix *Index, qs []fixtures.RelQuery, name string) {
	t.Helper()
	ctx := context.Background()
	compared, truncated := 0, 0
	for k, rq := range qs {
		var scope []string
		if k%2 == 1 {
			scope = []string{"global", rq.Project}
			if name == "synthetic" {
				scope = []string{fixtures.SynthProject(k % 3)}
			}
		}
		var topics []Query
		for _, text := range append([]string{rq.Prompt, rq.Branch + " cache retry deploy"}, rq.Commits...) {
			if terms := Analyze(text); len(terms) > 0 {
				topics = append(topics, Query{Terms: terms, Also: Analyze("tests flaky"), Projects: scope, Limit: 2 + k%8})
			}
		}
		var all []string
		for _, tp := range topics {
			all = append(all, tp.Terms...)
		}
		if k%3 == 0 { // the memo emptied: the first search loads its hits, no clause is pruned
			ix.shared = &memo{}
		}
		first, err := ix.Search(ctx, Query{Terms: all, Projects: scope, Limit: 48, Bare: true})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range first.Hits {
			paths = append(paths, h.Path)
		}
		if len(paths) == 0 {
			continue // recall asks no topic then
		}
		got, err := ix.Among(ctx, topics, first.Hits)
		if err != nil {
			t.Fatal(err)
		}
		for i, tp := range topics {
			tp.Paths = paths
			want, err := ix.Search(ctx, tp)
			if err != nil {
				t.Fatal(err)
			}
			where := rq.Name + " topic " + strings.Join(tp.Terms, " ")
			if len(got[i].Hits) != len(want.Hits) || got[i].Total != want.Total {
				t.Fatalf("%s: %d hits of %d, want %d of %d", where, len(got[i].Hits), got[i].Total, len(want.Hits), want.Total)
			}
			for j, w := range want.Hits {
				g := got[i].Hits[j]
				if g.Path != w.Path || math.Abs(g.Score-w.Score) > 1e-12*w.Score {
					t.Fatalf("%s: hit %d: %s %.17g, want %s %.17g", where, j, g.Path, g.Score, w.Path, w.Score)
				}
				if !reflect.DeepEqual(g.Terms, w.Terms) || !reflect.DeepEqual(g.Strength, w.Strength) || g.Title != w.Title {
					t.Fatalf("%s: hit %d explained %v %v, want %v %v", where, j, g.Terms, g.Strength, w.Terms, w.Strength)
				}
			}
			if !reflect.DeepEqual(got[i].Weights, want.Weights) || got[i].Unit != want.Unit || got[i].MaxWeight != want.MaxWeight {
				t.Fatalf("%s: weights %v, want %v", where, got[i].Weights, want.Weights)
			}
			compared += len(want.Hits)
			if want.Total > uint64(len(want.Hits)) {
				truncated++
			}
		}
	}
	t.Logf("%d hits compared; %d answers cut at their limit", compared, truncated)
	if compared < 150 || truncated == 0 {
		t.Errorf("%d hits compared, %d cut: the test no longer tries what it is for", compared, truncated)
	}
}
