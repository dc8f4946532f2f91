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
			var before []Hit // a read-only index's hits, asked again of the next one
			for _, fixed := range []bool{false, true} {
				ix, err := Open(ctx, r, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if ix.fixed != fixed {
					t.Fatalf("open for reading only %v, want %v", ix.fixed, fixed)
				}
				compareAmong(t, ix, qs, name)
				first, err := ix.Search(ctx, Query{Terms: Analyze("postgres migration deploy cache retry"), Limit: 48, Bare: true})
				if err != nil {
					t.Fatal(err)
				}
				before = first.Hits
				ix.Close()
			}
			// an edit of every fifth learning and the removal of every seventh, caught up at
			// the next open: a second segment, and postings of learnings since removed
			changed := map[string][]byte{}
			k := 0
			for path, data := range map[string]map[string][]byte{"relevance": corpus, "synthetic": synth}[name] {
				switch k++; {
				case k%7 == 0:
					changed[path] = nil
				case k%5 == 0:
					changed[path] = []byte(strings.Replace(string(data), "\n---\n", "\n---\nEdited: retry the postgres migration after a deploy.\n", 1))
				}
			}
			if len(changed) == 0 {
				return // the index's fixtures stay as they are
			}
			if _, err := r.Commit(ctx, "edit and remove", changed); err != nil {
				t.Fatal(err)
			}
			// The open that catches up holds the index for writing, and bleve's persister and
			// merger may then change what each new reader reads (counts that held the removed
			// learnings, then do not) between any two searches, a bleve search and another as
			// much as one and Among: only the read-only open after it is compared.
			ix, err := Open(ctx, r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ix.fixed || ix.CaughtUp == 0 {
				t.Fatalf("the open after the change: read-only %v, caught up %d", ix.fixed, ix.CaughtUp)
			}
			ix.Close()
			if ix, err = Open(ctx, r, Options{}); err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if !ix.fixed {
				t.Fatal("the second open after the change holds the index for writing")
			}
			compareAmong(t, ix, qs, name)
			// another index's hits: looked up by path, not by their ids
			compareOne(t, ix, "hits of the index before", []Query{{Terms: Analyze("postgres migration deploy"), Limit: 20}}, before)
			if got, err := ix.Among(ctx, []Query{{Terms: Analyze("postgres")}}, nil); err != nil || len(got[0].Hits) != 0 {
				t.Fatalf("among no hits: %v, %v", got, err)
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
		if len(first.Hits) == 0 {
			continue // recall asks no topic then
		}
		for i := range topics {
			topics[i].Snippets = (k+i)%4 == 0
		}
		c, cut := compareOne(t, ix, rq.Name, topics, first.Hits)
		compared, truncated = compared+c, truncated+cut
	}
	t.Logf("%d hits compared; %d answers cut at their limit", compared, truncated)
	if compared < 150 || truncated == 0 {
		t.Errorf("%d hits compared, %d cut: the test no longer tries what it is for", compared, truncated)
	}
}

// compareOne compares Among's answer to qs among hits with a bleve search of each restricted to
// their paths, and returns how many hits it compared and how many answers their limit cut.
func compareOne(t *testing.T, ix *Index, name string, qs []Query, hits []Hit) (compared, truncated int) {
	t.Helper()
	ctx := context.Background()
	paths := pathsOf(hits)
	got, err := ix.Among(ctx, qs, hits)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		q.Paths = paths
		want, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		where := name + " topic " + strings.Join(q.Terms, " ")
		if len(got[i].Hits) != len(want.Hits) || got[i].Total != want.Total {
			t.Fatalf("%s: %d hits of %d, want %d of %d", where, len(got[i].Hits), got[i].Total, len(want.Hits), want.Total)
		}
		for j, w := range want.Hits {
			g := got[i].Hits[j]
			if g.Path != w.Path || math.Abs(g.Score-w.Score) > 1e-12*w.Score {
				t.Fatalf("%s: hit %d: %s %.17g, want %s %.17g", where, j, g.Path, g.Score, w.Path, w.Score)
			}
			if !reflect.DeepEqual(g.Terms, w.Terms) || !reflect.DeepEqual(g.Strength, w.Strength) || !reflect.DeepEqual(g.Fields, w.Fields) ||
				!reflect.DeepEqual(g.Whole, w.Whole) || g.Snippet != w.Snippet || !reflect.DeepEqual(g.Marks, w.Marks) || g.Title != w.Title {
				t.Fatalf("%s: hit %d explained %v %v %v %v %q, want %v %v %v %v %q", where, j, g.Terms, g.Strength, g.Fields, g.Whole, g.Snippet, w.Terms, w.Strength, w.Fields, w.Whole, w.Snippet)
			}
		}
		if !reflect.DeepEqual(got[i].Weights, want.Weights) || !reflect.DeepEqual(got[i].Unseen, want.Unseen) || got[i].Unit != want.Unit || got[i].MaxWeight != want.MaxWeight {
			t.Fatalf("%s: weights %v %v, want %v %v", where, got[i].Weights, got[i].Unseen, want.Weights, want.Unseen)
		}
		compared += len(want.Hits)
		if want.Total > uint64(len(want.Hits)) {
			truncated++
		}
	}
	return compared, truncated
}
