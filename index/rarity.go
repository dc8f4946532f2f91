package index

// A word's weight: how rare it is among the learnings a query chooses from. Recall's gates
// (recall.Gates) measure a match in these weights, so they must mean the same in a memory of
// 200 learnings and in one of 20,000.

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// refLearnings is the size of memory a word's weight is measured in. Up to it, the weight
// is the word's BM25 inverse document frequency over all learnings, as a unit of the weight
// of a word held by a single one: the gates were tuned that way on the relevance suite's
// 236. Beyond it, the learnings counted are the query's scope (its project and the global
// learnings) and, while the scope holds fewer than refLearnings, a share of the others
// standing in for the rest: as if the memory still held refLearnings learnings, drawn from
// the scope first.
//
// Measured on the relevance suite (TestRelevanceGrowth holds it; the README has every set):
// with every word weighed over the whole memory and against a word held by one learning,
// the suite's learnings copied into 19 other projects (4,720 learnings) cut UserPromptSubmit
// recall from 81 to 56 of 126 and SessionStart from 27 to 17 of 38: every weight shrank with
// the memory, and the gates stopped passing. Weighing against a fixed unit alone held that
// (77 and 25) but let 10,000 learnings of other projects, which never say this project's
// words, make each of them look rare: 22 of 159 queries injected something irrelevant and 5
// of 23 negatives spoke. Counted as below: 76 and 22 with 2 injecting something irrelevant
// and every negative silent, and 77 and 23 with 6 and one negative speaking.
const refLearnings = 256

// counts are what a query's weights are computed from: how many learnings hold each word (in
// the text field that holds it in most), in the whole memory and in the query's scope; and
// what its search leaves out (Query.pruned): the fields that hold each word.
type counts struct {
	n, scoped uint64             // learnings: all of them, and those in scope
	all, in   map[string]uint64  // by word; in is nil when the memory is no larger than refLearnings
	held      map[string]uint8   // by word: the text fields that hold it (memo.fields)
	zero      map[string]float64 // memo.zero
}

// large reports whether the memory holds more than refLearnings learnings, so that a
// query's scope is counted apart.
func large(n uint64, scope []string) bool { return n > refLearnings && len(scope) > 0 }

// weigh returns each word's weight, the words no learning the query chooses from holds, the
// weight of a word a single learning holds, and the unit recall measures weights in. Without
// the scope's counts (in nil), the whole memory's, as before refLearnings was: a memory too
// large for them then recalls less, never more.
func (c counts) weigh(terms []string) (map[string]float64, map[string]bool, float64, float64) {
	out, unseen := make(map[string]float64, len(terms)), map[string]bool{}
	if c.n == 0 { // an empty index, or one that could not be read
		return out, unseen, 1, 1
	}
	if c.in == nil || c.n <= refLearnings {
		for _, t := range terms {
			out[t] = idf(c.n, c.all[t])
			if c.all[t] == 0 {
				unseen[t] = true
			}
		}
		return out, unseen, idf(c.n, 1), idf(c.n, 1)
	}
	// the scope, and a share r of the learnings outside it standing in for the rest
	pop, r := float64(c.scoped), 0.0
	if c.scoped < refLearnings && c.n > c.scoped {
		r = float64(refLearnings-c.scoped) / float64(c.n-c.scoped)
		pop = refLearnings
	}
	for _, t := range terms {
		in := float64(c.in[t])
		out[t] = idfOf(pop, in+r*(float64(max(c.all[t], c.in[t]))-in))
		if c.in[t] == 0 {
			unseen[t] = true // it tells none of the scope's learnings from another
		}
	}
	return out, unseen, idfOf(pop, 1), idf(refLearnings, 1)
}

// informative is terms without those most learnings hold (informative, search.go), by
// their counts in the whole memory: what a word costs a search is the length of its
// postings, whatever the scope. Weighed in the scope, the words dropped at 10,000 learnings
// were only those in more than a third of it, and a session start took 5.7–6.2 ms in
// process instead of 3.8–4.6 (BenchmarkStartHook).
func (c counts) informative(terms []string) []string {
	w := make(map[string]float64, len(terms))
	for _, t := range terms {
		w[t] = idf(c.n, c.all[t])
	}
	return informative(terms, w, idf(c.n, 1))
}

func idf(n, df uint64) float64 { return idfOf(float64(n), float64(df)) }

// idfOf is BM25's inverse document frequency of a word df of n learnings hold.
func idfOf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// scopeKey names a scope in the memo.
func scopeKey(scope []string) string {
	s := slices.Clone(scope)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

// countIn counts, for each of terms, the learnings of the scope that hold it, and the
// learnings of the scope, from the index's segments: per segment, the scope's learnings are
// a bitmap (the postings of its projects) and a word's count in it is its postings' count
// less those outside. About a microsecond a word and field (a common word's postings are
// not walked). ok is false when the index is not scorch's.
func countIn(ctx context.Context, rd any, terms, scope []string) (in map[string]uint64, scoped uint64, ok bool) {
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		return nil, 0, false
	}
	terms = slices.Compact(slices.Sorted(slices.Values(terms))) // each counted once
	in = make(map[string]uint64, len(terms))
	perField := make([]map[string]uint64, len(textFields))
	for k := range perField {
		perField[k] = map[string]uint64{}
	}
	for _, ss := range snap.Segments() {
		if ctx.Err() != nil {
			return nil, 0, false
		}
		seg := ss.Segment()
		deleted := ss.Deleted()
		pd, err := seg.Dictionary("project")
		if err != nil {
			return nil, 0, false
		}
		mine := roaring.New()
		for _, p := range scope {
			pl, err := pd.PostingsList([]byte(p), deleted, nil)
			if err != nil {
				return nil, 0, false
			}
			it := pl.Iterator(false, false, false, nil)
			d, err := it.Next()
			for ; d != nil && err == nil; d, err = it.Next() {
				mine.Add(uint32(d.Number()))
			}
			if err != nil {
				return nil, 0, false
			}
		}
		scoped += mine.GetCardinality()
		if mine.IsEmpty() {
			continue
		}
		others := roaring.Flip(mine, 0, seg.Count())
		for k, f := range textFields {
			d, err := seg.Dictionary(f)
			if err != nil {
				continue // as the whole memory's count, a field that cannot be read counts none
			}
			for _, t := range terms {
				if pl, err := d.PostingsList([]byte(t), others, nil); err == nil {
					perField[k][t] += pl.Count()
				}
			}
		}
	}
	for _, t := range terms {
		for k := range textFields {
			in[t] = max(in[t], perField[k][t])
		}
	}
	return in, scoped, true
}
