package recall

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/index"
)

// TestDump writes, for every query of the relevance suite, every topic's candidates with
// what they matched and their label, one JSON object a line, to the file $DUMP: the
// material the gates are designed on.
func TestDump(t *testing.T) {
	out := os.Getenv("DUMP")
	if out == "" {
		t.Skip()
	}
	r, keys, qs := relevanceRepo(t)
	ctx := context.Background()
	ix := openIndex(t, r)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for i, q := range qs {
		ws := Workspace{Project: q.Project, Branch: q.Branch, Subjects: q.Commits, Files: q.Files}
		tps := StartTopics(ws)
		if q.Kind == "prompt" {
			tps = []Topic{PromptTopic(q.Prompt)}
		}
		label := map[string]string{}
		for _, k := range q.Related {
			label[k] = "related"
		}
		for _, k := range q.Relevant {
			label[k] = "relevant"
		}
		for ti, tp := range tps {
			hits, err := ix.Search(ctx, index.Query{Terms: tp.words(), Also: tp.supportWords(), Projects: []string{"_global", q.Project}, Limit: candidates})
			if err != nil {
				t.Fatal(err)
			}
			for rank, h := range hits.Hits {
				for ci, sub := range append([]Topic{tp}, tp.Clauses...) {
					c := assess(h, sub, hits)
					enc.Encode(map[string]any{
						"q": i, "query": q.Name, "kind": q.Kind, "topic": ti, "clause": ci, "topic_kind": sub.Kind, "nterms": len(sub.Terms), "nphrases": len(tp.Phrases),
						"key": keys[h.ID], "label": label[keys[h.ID]], "rank": rank, "score": h.Score, "project": h.Project == q.Project,
						"coverage": c.Coverage, "rarity": c.Rarity, "matches": c.Matches, "scores": c.scores, "confidence": h.Confidence, "title": h.Title,
						"nrel": len(q.Relevant), "rel": c.Relative,
					})
				}
			}
		}
	}
}

// TestSweep varies the gates over the suite's candidates, halves apart (even and odd
// queries), to see how far a calibration holds on queries it was not tuned on.
func TestSweep(t *testing.T) {
	if os.Getenv("SWEEP") == "" {
		t.Skip()
	}
	r, keys, qs := relevanceRepo(t)
	ctx := context.Background()
	ix, _ := index.Open(ctx, r, index.Options{})
	defer ix.Close()
	var rs []*Result
	for _, q := range qs {
		ws := &Workspace{Project: q.Project, Branch: q.Branch, Subjects: q.Commits, Files: q.Files}
		res, _ := Recall(ctx, r, ix, Request{Workspace: ws, Prompt: q.Prompt, Now: suiteNow})
		rs = append(rs, res)
	}
	for _, rf := range []float64{0.2, 0.3, 0.5} {
		for _, ra := range []float64{0.8, 1, 1.2} {
			for _, tr := range []float64{1.5, 2, 2.5} {
				g := DefaultGates()
				g.RelativeFloor, g.Rarity, g.TopRarity = rf, ra, tr
				var line [2][4]int // per half: injected, relevant injected, dirty, labelled relevant
				for i, q := range qs {
					res := &Result{Terms: rs[i].Terms, Candidates: append([]Candidate(nil), rs[i].Candidates...)}
					pick(res, nil, config.Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: 0.4}, g, nil)
					h := i % 2
					line[h][3] += len(q.Relevant)
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
				found := func(h int) float64 { return float64(line[h][1]) / float64(max(1, line[h][3])) }
				t.Logf("floor %.1f rarity %.1f top rarity %.1f | even P %.2f dirty %d found %.2f | odd P %.2f dirty %d found %.2f",
					rf, ra, tr, p(0), line[0][2], found(0), p(1), line[1][2], found(1))
			}
		}
	}
}
