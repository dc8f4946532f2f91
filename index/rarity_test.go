package index

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/reflect-memory/reflect/fixtures"
	indexlayout "github.com/reflect-memory/reflect/index/layout"
)

// TestWeigh holds a word's weight, as a share of the unit recall measures in, to what the
// memory says of it among the learnings a query chooses from, however large the memory.
func TestWeigh(t *testing.T) {
	share := func(c counts, word string) float64 {
		w, _, _, unit := c.weigh([]string{word})
		return min(1, w[word]/unit)
	}
	scopeOf := func(n, scoped, all, in uint64) counts {
		return counts{n: n, scoped: scoped, all: map[string]uint64{"w": all}, in: map[string]uint64{"w": in}}
	}
	small := counts{n: 236, all: map[string]uint64{"w": 23}}
	for _, tc := range []struct {
		name       string
		a, b       counts
		within     float64 // |share(a) - share(b)| at most
		aboveBelow int     // or: share(a) above (1) or below (-1) share(b)
	}{
		// a memory of the suite's size is weighed as it always was
		{"small memory as before", small, counts{n: 236, all: map[string]uint64{"w": 23}, in: nil}, 0, 0},
		// the same learnings in 19 more projects: the word holds the same share everywhere
		{"copies keep a weight", small, scopeOf(236*20, 62, 23*20, 6), 0.03, 0},
		// learnings of other projects that never say the word do not make it rarer
		{"others' silence", scopeOf(300, 62, 6, 6), scopeOf(30000, 62, 6, 6), 0, 0},
		// nor does their saying it make it commoner where the scope is large enough to tell
		{"a large scope alone", scopeOf(1000, 400, 20, 20), scopeOf(40000, 400, 20000, 20), 0, 0},
		// a word most of the other projects hold counts as commoner, the scope being small
		{"others' words weigh in a small scope", scopeOf(10000, 62, 20, 6), scopeOf(10000, 62, 6000, 6), 0, 1},
		// a word all of the scope holds is common, however rare elsewhere
		{"common in scope", scopeOf(10000, 62, 62, 62), scopeOf(10000, 62, 2, 2), 0, -1},
	} {
		a, b := share(tc.a, "w"), share(tc.b, "w")
		switch {
		case tc.aboveBelow > 0 && !(a > b), tc.aboveBelow < 0 && !(a < b):
			t.Errorf("%s: %.3f against %.3f", tc.name, a, b)
		case tc.aboveBelow == 0 && math.Abs(a-b) > tc.within+1e-9:
			t.Errorf("%s: %.3f against %.3f, want within %.2f", tc.name, a, b, tc.within)
		}
	}
	// the unit: a word held by a single learning in a memory of the suite's size, or in one
	// of refLearnings beyond it
	for _, n := range []uint64{10, 236, refLearnings, 5000} {
		_, _, single, unit := scopeOf(n, min(n, 62), 1, 1).weigh([]string{"w"})
		if want := idf(min(n, refLearnings), 1); math.Abs(unit-want) > 1e-9 || single < unit-1e-9 {
			t.Errorf("%d learnings: unit %.3f, single %.3f, want unit %.3f", n, unit, single, want)
		}
	}
	if w, _, _, unit := (counts{}).weigh([]string{"w"}); len(w) != 0 || unit != 1 {
		t.Errorf("an unread index weighs %v in %v", w, unit)
	}
	// without the scope's counts, a large memory weighs as it did: less recall, never more
	whole := counts{n: 10000, all: map[string]uint64{"w": 20}}
	if _, _, single, unit := whole.weigh([]string{"w"}); unit != idf(10000, 1) || single != unit {
		t.Errorf("without the scope's counts: unit %.3f, want %.3f", unit, idf(10000, 1))
	}
	// unseen: no learning the query chooses from holds it
	for _, tc := range []struct {
		c    counts
		want bool
	}{
		{counts{n: 200, all: map[string]uint64{"w": 0}}, true},
		{counts{n: 200, all: map[string]uint64{"w": 1}}, false},
		{scopeOf(10000, 62, 40, 0), true},
		{scopeOf(10000, 62, 40, 1), false},
	} {
		if _, unseen, _, _ := tc.c.weigh([]string{"w"}); unseen["w"] != tc.want {
			t.Errorf("%+v: unseen %v, want %v", tc.c, unseen["w"], tc.want)
		}
	}
}

// TestInformativeByTheWholeMemory: the words a search leaves out are those most of the whole
// memory holds (their postings are what a search walks), not those most of the scope does.
func TestInformativeByTheWholeMemory(t *testing.T) {
	c := counts{n: 10000, scoped: 62,
		all: map[string]uint64{"a": 1, "b": 2, "c": 3, "rare": 5, "everywhere": 6000, "scoped": 40},
		in:  map[string]uint64{"a": 1, "b": 2, "c": 3, "rare": 5, "everywhere": 2, "scoped": 40}}
	got := c.informative([]string{"a", "b", "c", "rare", "everywhere", "scoped"})
	want := map[string]bool{"a": true, "b": true, "c": true, "rare": true, "scoped": true}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for _, w := range got {
		if !want[w] {
			t.Errorf("kept %q", w)
		}
	}
}

// TestScopeCountsAsTheScan: in a memory larger than refLearnings, whose index was caught up
// with learnings added, rewritten and deleted (so its counts span segments and deleted
// documents), a scoped search weighs every word exactly as the scan of git does.
func TestScopeCountsAsTheScan(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	files, scoped := map[string][]byte{}, []string{}
	for i := range 400 {
		p, data := fixtures.SynthLearning(rng, i, fixtures.SynthProject(i%4), when.Add(time.Duration(i)*time.Minute))
		files[p] = data
		if i%4 == 0 {
			scoped = append(scoped, p)
		}
	}
	r := repoWith(t, files)
	ix, err := Open(ctx, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	// the next open catches up: 30 of the scope's learnings deleted, 20 rewritten, 60 added
	change := map[string][]byte{}
	for i, p := range scoped[:50] {
		if i < 30 {
			change[p] = nil
		} else {
			_, data := fixtures.SynthLearning(rng, 1000+i, fixtures.SynthProject(0), when)
			change[p] = data
		}
	}
	for i := range 60 {
		p, data := fixtures.SynthLearning(rng, 2000+i, fixtures.SynthProject(i%2), when.Add(time.Duration(i)*time.Hour))
		change[p] = data
	}
	if _, err := r.Commit(ctx, "change", change); err != nil {
		t.Fatal(err)
	}
	q := Query{Terms: Analyze("cache retry token schema deploy lint timeout webhook field gizmoqux"), Projects: []string{fixtures.SynthProject(0), "_global"}}
	ix, err = Open(ctx, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Search(ctx, q)
	if err != nil || got.Source != "index" {
		t.Fatalf("index: %v, %+v", err, got)
	}
	if adv, err := ix.idx.Advanced(); err == nil {
		if rd, err := adv.Reader(); err == nil {
			if snap, ok := rd.(*scorch.IndexSnapshot); ok {
				deleted := uint64(0)
				for _, ss := range snap.Segments() {
					if d := ss.Deleted(); d != nil {
						deleted += d.GetCardinality()
					}
				}
				t.Logf("%d segments, %d deleted documents", len(snap.Segments()), deleted)
				if len(snap.Segments()) < 2 && deleted == 0 {
					t.Error("one segment and no deleted documents: the test no longer tries what it is for")
				}
			}
			rd.Close()
		}
	}
	ix.Close()
	os.RemoveAll(indexlayout.Dir(r))
	scan, err := Open(ctx, r, Options{NoBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer scan.Close()
	want, err := scan.Search(ctx, q)
	if err != nil || want.Source != "scan" {
		t.Fatalf("scan: %v, %+v", err, want)
	}
	if got.MaxWeight != want.MaxWeight || got.Unit != want.Unit || !maps.Equal(got.Weights, want.Weights) || !maps.Equal(got.Unseen, want.Unseen) {
		t.Errorf("index weighs %v (unseen %v, single %v, unit %v);\nthe scan %v (unseen %v, single %v, unit %v)", got.Weights, got.Unseen, got.MaxWeight, got.Unit, want.Weights, want.Unseen, want.MaxWeight, want.Unit)
	}
	if got.Unit != idf(refLearnings, 1) || !got.Unseen["gizmoqux"] {
		t.Errorf("weighed as a small memory: unit %v, unseen %v", got.Unit, got.Unseen)
	}
}
