package index

import (
	"math"
	"testing"
)

// TestWeigh holds a word's weight, as a share of the unit recall measures in, to what the
// memory says of it among the learnings a query chooses from, however large the memory.
func TestWeigh(t *testing.T) {
	share := func(c counts, word string) float64 {
		w, _, unit := c.weigh([]string{word})
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
		_, single, unit := scopeOf(n, min(n, 62), 1, 1).weigh([]string{"w"})
		if want := idf(min(n, refLearnings), 1); math.Abs(unit-want) > 1e-9 || single < unit-1e-9 {
			t.Errorf("%d learnings: unit %.3f, single %.3f, want unit %.3f", n, unit, single, want)
		}
	}
	if w, _, unit := (counts{}).weigh([]string{"w"}); len(w) != 0 || unit != 1 {
		t.Errorf("an unread index weighs %v in %v", w, unit)
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
