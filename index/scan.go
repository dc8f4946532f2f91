package index

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// scanner answers queries without the index: it parses the learnings of HEAD and scores
// them with the same analyzer, field boosts and BM25 weights, term by term. Slower (it
// reads every learning) and simpler (no fuzzy, prefix or numeric syntax), it is what a
// search uses while the index is missing, corrupt or locked.
type scanner struct {
	docs  []Doc
	words [][]map[string]int // per doc, per text field: analyzed word → count
	note  string             // set when the scan stopped early
}

func newScanner(ctx context.Context, r *gitstore.Repo, t target) (*scanner, error) {
	files, err := r.DiffTrees(zeroHash, t.tree, learnings.Dir)
	if err != nil {
		return nil, err
	}
	sc := &scanner{}
	for _, f := range files {
		if ctx.Err() != nil {
			sc.note = fmt.Sprintf("stopped after %d of %d learnings (deadline)", len(sc.docs), len(files))
			break
		}
		if !strings.HasSuffix(f.Path, ".md") {
			continue
		}
		d, err := readDoc(r, f.Path, f.To)
		if err != nil {
			continue
		}
		sc.docs = append(sc.docs, d)
		var fw []map[string]int
		for _, field := range textFields {
			m := map[string]int{}
			for _, w := range analyzeAll(FieldText(d, field)) {
				m[w]++
			}
			fw = append(fw, m)
		}
		sc.words = append(sc.words, fw)
	}
	return sc, nil
}

// FieldText is the text of one of a learning's searched fields (lists one item a line).
func FieldText(d Doc, field string) string {
	switch field {
	case "title":
		return d.Title
	case "tags":
		return strings.Join(d.Tags, "\n")
	case "entities":
		return strings.Join(d.Entities, "\n")
	case "triggers":
		return strings.Join(d.Triggers, "\n")
	}
	return d.Body
}

// analyzeAll is Analyze with repeats kept (they count).
func analyzeAll(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		out = append(out, Analyze(w)...)
	}
	return out
}

// a clause of a scanned query: any of alts (each a list of words that must all be present,
// optionally in one field).
type clause struct {
	op   byte // '+', '-' or 0
	alts []alt
}

type alt struct {
	field string
	words []string
}

func scanClauses(q Query) []clause {
	if len(q.Terms) > 0 {
		var cs []clause
		for _, t := range q.Terms {
			cs = append(cs, clause{alts: []alt{{words: []string{t}}}})
		}
		return cs
	}
	var cs []clause
	for _, tok := range splitTerms(q.Text) {
		c := clause{}
		if tok[0] == '+' || tok[0] == '-' {
			c.op, tok = tok[0], tok[1:]
		}
		for _, a := range splitAlternatives(tok) {
			field := ""
			if i := strings.IndexByte(a, ':'); i > 0 && !strings.HasPrefix(a, `"`) {
				field, a = a[:i], a[i+1:]
			}
			a = strings.TrimRight(strings.Trim(a, `"`), "~^0123456789.*")
			if words := Analyze(a); len(words) > 0 {
				c.alts = append(c.alts, alt{field, words})
			}
		}
		if len(c.alts) > 0 {
			cs = append(cs, c)
		}
	}
	return cs
}

func (sc *scanner) search(ctx context.Context, q Query) (*Result, error) {
	clauses := scanClauses(q)
	n := uint64(len(sc.docs))
	df := map[string]uint64{}
	for _, c := range clauses {
		for _, a := range c.alts {
			for _, w := range a.words {
				df[w] = 0
			}
		}
	}
	if len(q.Terms) > 0 {
		for _, w := range q.Also {
			df[w] = 0
		}
	}
	for _, fw := range sc.words {
		for w := range df {
			for _, m := range fw {
				if m[w] > 0 {
					df[w]++
					break
				}
			}
		}
	}
	weights := map[string]float64{}
	for w, d := range df {
		weights[w] = idf(n, d)
	}
	keep := func(d Doc) bool {
		return in(d.Status, q.statuses()) && (len(q.Projects) == 0 || in(d.Project, q.Projects)) &&
			(len(q.Kinds) == 0 || in(d.Kind, q.Kinds)) && (len(q.Tags) == 0 || anyTag(d.Tags, q.Tags)) &&
			(len(q.Paths) == 0 || in(d.Path, q.Paths))
	}
	res := &Result{Weights: weights, MaxWeight: idf(n, 1)}
	for i, d := range sc.docs {
		if ctx.Err() != nil {
			break
		}
		if !keep(d) {
			continue
		}
		score, ok := 0.0, true
		hasShould, anyShould := false, false
		for _, c := range clauses {
			best := 0.0
			for _, a := range c.alts {
				s, found := sc.score(i, a, weights)
				if found {
					best = math.Max(best, s+1e-9)
				}
			}
			switch c.op {
			case '+':
				ok = ok && best > 0
			case '-':
				ok = ok && best == 0
			default:
				hasShould = true
				anyShould = anyShould || best > 0
			}
			if c.op != '-' {
				score += best
			}
		}
		if !ok || hasShould && !anyShould && !hasMust(clauses) || score == 0 && len(clauses) > 0 && !onlyNot(clauses) {
			continue
		}
		res.Hits = append(res.Hits, Hit{Doc: d, Score: score})
	}
	sort.SliceStable(res.Hits, func(i, j int) bool { return res.Hits[i].Score > res.Hits[j].Score })
	res.Total = uint64(len(res.Hits))
	if len(res.Hits) > q.limit() {
		res.Hits = res.Hits[:q.limit()]
	}
	if sc.note != "" {
		res.Note = sc.note
	}
	return res, nil
}

// score of doc i for one alternative: every word must be present (in field, if named).
func (sc *scanner) score(i int, a alt, weights map[string]float64) (float64, bool) {
	total := 0.0
	for _, w := range a.words {
		found := 0.0
		for k, f := range textFields {
			if a.field != "" && a.field != f {
				continue
			}
			if tf := float64(sc.words[i][k][w]); tf > 0 {
				found += fieldBoost[f] * tf / (tf + 1.2)
			}
		}
		if found == 0 {
			return 0, false
		}
		total += weights[w] * found
	}
	return total, true
}

func hasMust(cs []clause) bool {
	for _, c := range cs {
		if c.op == '+' {
			return true
		}
	}
	return false
}

func onlyNot(cs []clause) bool {
	for _, c := range cs {
		if c.op != '-' {
			return false
		}
	}
	return true
}

func in(s string, set []string) bool {
	for _, v := range set {
		if v == s {
			return true
		}
	}
	return false
}

func anyTag(tags, want []string) bool {
	for _, t := range tags {
		for _, w := range want {
			if strings.EqualFold(t, w) {
				return true
			}
		}
	}
	return false
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
