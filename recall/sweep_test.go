package recall

import (
	"context"
	"os"
	"testing"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/index"
)

func TestSweep(t *testing.T) {
	if os.Getenv("SWEEP") == "" {
		t.Skip()
	}
	r, keys, qs := relevanceRepo(t)
	ctx := context.Background()
	ix, _ := index.Open(ctx, r, index.Options{})
	defer ix.Close()
	type qr struct {
		cands []Candidate
		terms []string
	}
	var rs []qr
	for _, q := range qs {
		ws := &Workspace{Project: q.Project, Branch: q.Branch, Subjects: q.Commits}
		res, _ := Recall(ctx, r, ix, Request{Workspace: ws, Prompt: q.Prompt, Now: suiteNow})
		rs = append(rs, qr{res.Candidates, res.Terms})
	}
	for _, se := range []float64{3, 4, 5, 6, 8} {
		for _, mc := range []float64{0.3, 0.4, 0.5, 0.6} {
			for _, rf := range []float64{0.4, 0.5, 0.6, 0.7} {
				var line [2][4]int // per half: injected, relevant, dirty, found
				for i, q := range qs {
					res := &Result{Terms: rs[i].terms, Candidates: append([]Candidate(nil), rs[i].cands...)}
					for k := range res.Candidates {
						res.Candidates[k].Kept = false
					}
					pick(res, nil, config.Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: mc}, Gates{RelativeFloor: rf, StrongEvidence: se}, nil)
					h := i % 2
					rel, ok := map[string]bool{}, map[string]bool{}
					for _, k := range q.Relevant {
						rel[k], ok[k] = true, true
					}
					for _, k := range q.Related {
						ok[k] = true
					}
					bad := false
					for _, c := range res.Injected {
						line[h][0]++
						if rel[keys[c.ID]] {
							line[h][1]++
						} else if !ok[keys[c.ID]] {
							bad = true
						}
					}
					if bad {
						line[h][2]++
					}
				}
				p := func(h int) float64 { return float64(line[h][1]) / float64(max(1, line[h][0])) }
				t.Logf("se %.0f mc %.1f rf %.1f | even P %.2f dirty %d inj %d | odd P %.2f dirty %d inj %d", se, mc, rf, p(0), line[0][2], line[0][0], p(1), line[1][2], line[1][0])
			}
		}
	}
}
