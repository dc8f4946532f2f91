package drain

// Titles and similarity: near-identical proposals of an entry merged (mergeSimilar), and a
// proposal near-identical to an existing learning marked (markDuplicates).

import (
	"slices"
	"sync"

	"github.com/reflect-memory/reflect/index"
)

var (
	fillerOnce  sync.Once
	fillerStems map[string]bool
)

// titleWords are the analyzed words of a title, without fillers that do not change what it
// says ("please", "again").
func titleWords(s string) []string {
	fillerOnce.Do(func() {
		fillerStems = map[string]bool{}
		for _, w := range index.Analyze("please pls again thanks thank ok okay just also really") {
			fillerStems[w] = true
		}
	})
	var out []string
	for _, w := range index.Analyze(s) {
		if !fillerStems[w] {
			out = append(out, w)
		}
	}
	return out
}

// overlap is the share of the larger word set that the two sets have in common.
func overlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			n++
		}
	}
	return float64(n) / float64(max(len(a), len(b)))
}

var confRank = map[string]int{"low": 1, "medium": 2, "high": 3}

// mergeSimilar keeps the first of proposals whose titles are near-identical, with the highest
// confidence among them.
func mergeSimilar(in []anchored) []Proposal {
	var out []Proposal
	var words [][]string
	var at []int
	for _, a := range in {
		w := titleWords(a.p.Title)
		merged := false
		for k := range out {
			if overlap(words[k], w) >= hSimilar || out[k].Title == a.p.Title {
				if confRank[a.p.Confidence] > confRank[out[k].Confidence] {
					out[k].Confidence = a.p.Confidence
				}
				if a.at != at[k] && a.p.Kind == "rule" && out[k].Kind == "rule" && out[k].Confidence == "low" {
					out[k].Confidence = "medium" // a fact stated again in another prompt
				}
				out[k].Global = out[k].Global || a.p.Global
				merged = true
				break
			}
		}
		if !merged {
			out, words, at = append(out, a.p), append(words, w), append(at, a.at)
		}
	}
	return out
}

// markDuplicates sets DuplicateOf to the existing learning whose title is near-identical
// (the best overlap; the first listed on a tie).
func markDuplicates(ps []Proposal, existing []Existing) {
	if len(existing) == 0 {
		return
	}
	ew := make([][]string, len(existing))
	for i, e := range existing {
		ew[i] = titleWords(e.Title)
	}
	for i := range ps {
		if ps[i].hookTitle != "" {
			hw := titleWords(ps[i].hookTitle)
			for j, e := range existing {
				if e.ID != "" && overlap(hw, ew[j]) >= hSimilar && !slices.Contains(ps[i].Supersedes, e.ID) {
					ps[i].Supersedes = append(ps[i].Supersedes, e.ID)
				}
			}
		}
		w := titleWords(ps[i].Title)
		best, bestScore := -1, 0.0
		for j, e := range existing {
			if e.ID == "" {
				continue
			}
			if s := overlap(w, ew[j]); s >= hSimilar && s > bestScore {
				best, bestScore = j, s
			}
		}
		if best >= 0 {
			ps[i].DuplicateOf = existing[best].ID
		}
	}
}
