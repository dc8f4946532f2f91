package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// scanner answers queries without the index: it parses the learnings of HEAD and scores
// them as the index does (the same analyzer, field boosts, BM25 with bleve's per-field
// statistics, the same weights and the same pruning of common words), term by term. Slower
// (it reads every learning) and simpler (no fuzzy, prefix or numeric syntax), it is what a
// search uses while the index is missing, corrupt or locked. Recall's gates read a hit's
// score relative to the best and each word's weight, so a scan that scored otherwise
// recalled otherwise: on the relevance suite it injected 124 learnings where the index
// injected 113, 6 queries with something irrelevant where the index had 2
// (TestScanRecallsAsTheIndex in package recall holds them equal).
type scanner struct {
	docs  []Doc
	words [][]map[string]int // per doc, per text field: analyzed word → count
	size  [][]int            // per doc, per text field: its number of words (repeats count)
	// df is, per text field, how many learnings hold each word in it; avg, per text field,
	// bleve's "average length" for BM25: the words of the field's dictionary over the
	// number of learnings, rounded up.
	df   []map[string]uint64
	avg  []float64
	note string // set when the scan stopped early
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
		var size []int
		for _, field := range textFields {
			m := map[string]int{}
			ts := tokens(FieldText(d, field))
			for _, t := range ts {
				m[t.term]++
			}
			fw = append(fw, m)
			size = append(size, len(ts))
		}
		sc.words = append(sc.words, fw)
		sc.size = append(sc.size, size)
	}
	sc.df = make([]map[string]uint64, len(textFields))
	sc.avg = make([]float64, len(textFields))
	for k := range textFields {
		sc.df[k] = map[string]uint64{}
		for _, fw := range sc.words {
			for w := range fw[k] {
				sc.df[k][w]++
			}
		}
		if n := len(sc.docs); n > 0 {
			sc.avg[k] = math.Ceil(float64(len(sc.df[k])) / float64(n))
		}
	}
	return sc, nil
}

// BM25's parameters, as bleve's (search.BM25_k1, search.BM25_b).
const bm25K1, bm25B = 1.2, 0.75

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
	n := uint64(len(sc.docs))
	res := &Result{MaxWeight: idf(n, 1), Unit: idf(min(n, refLearnings), 1)}
	if len(q.Terms) > 0 {
		// as Index.Search: a word's weight from the field that holds it in most learnings
		// (rarity.go), and the search without the words most learnings hold
		terms := append(append([]string(nil), q.Terms...), q.Also...)
		c := counts{n: n, all: map[string]uint64{}}
		for _, w := range terms {
			for k := range textFields {
				c.all[w] = max(c.all[w], sc.df[k][w])
			}
		}
		if large(n, q.Projects) {
			perField := make([]map[string]uint64, len(textFields))
			for k := range perField {
				perField[k] = map[string]uint64{}
			}
			words := slices.Compact(slices.Sorted(slices.Values(terms))) // each counted once
			for i, d := range sc.docs {
				if !in(d.Project, q.Projects) {
					continue
				}
				c.scoped++
				for _, w := range words {
					for k := range textFields {
						if sc.words[i][k][w] > 0 {
							perField[k][w]++
						}
					}
				}
			}
			c.in = map[string]uint64{}
			for _, w := range terms {
				for k := range textFields {
					c.in[w] = max(c.in[w], perField[k][w])
				}
			}
		}
		res.Weights, res.Unseen, res.MaxWeight, res.Unit = c.weigh(terms)
		q.Terms = c.informative(q.Terms)
	}
	// a recall query is one disjunction of a term query per word and field: bleve scales its
	// scores by the query's norm and by the share of those term queries a learning matched,
	// which recall compares across the topics of a session start (its "near the best" floor)
	scale := 1.0
	if len(q.Terms) > 0 {
		sum := 0.0
		for _, w := range q.Terms {
			for k, f := range textFields {
				x := fieldBoost[f] * idf(n, sc.df[k][w])
				sum += x * x
			}
		}
		scale = 1 / math.Sqrt(sum) / float64(len(q.Terms)*len(textFields))
	}
	clauses := scanClauses(q)
	keep := func(d Doc) bool {
		return in(d.Status, q.statuses()) && (len(q.Projects) == 0 || in(d.Project, q.Projects)) &&
			(len(q.Kinds) == 0 || in(d.Kind, q.Kinds)) && (len(q.Tags) == 0 || anyTag(d.Tags, q.Tags)) &&
			(len(q.Paths) == 0 || in(d.Path, q.Paths))
	}
	for i, d := range sc.docs {
		if ctx.Err() != nil {
			break
		}
		if !keep(d) {
			continue
		}
		score, ok := 0.0, true
		hasShould, anyShould := false, false
		matched := 0 // the (word, field) pairs found: bleve's coordination factor
		for _, c := range clauses {
			best, bestN := 0.0, 0
			for _, a := range c.alts {
				s, m, found := sc.score(i, a, n)
				if found && s+1e-9 > best {
					best, bestN = s+1e-9, m
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
				matched += bestN
			}
		}
		if !ok || hasShould && !anyShould && !hasMust(clauses) || score == 0 && len(clauses) > 0 && !onlyNot(clauses) {
			continue
		}
		if len(q.Terms) > 0 {
			score *= scale * float64(matched)
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

// score of doc i for one alternative: every word must be present (in field, if named). A
// word found in a field scores as bleve's BM25 term query does, but for the query's norm:
// the field's boost, its weight in that field squared (bleve's query weight times its field
// weight), and the saturated, length-normalised square root of its count. It returns the
// (word, field) pairs found too.
func (sc *scanner) score(i int, a alt, n uint64) (float64, int, bool) {
	total, pairs := 0.0, 0
	for _, w := range a.words {
		found := 0.0
		for k, f := range textFields {
			if a.field != "" && a.field != f {
				continue
			}
			c := sc.words[i][k][w]
			if c == 0 {
				continue
			}
			tf := math.Sqrt(float64(c))
			norm := 1.0
			if sc.avg[k] > 0 {
				norm = 1 - bm25B + bm25B*float64(sc.size[i][k])/sc.avg[k]
			}
			wf := idf(n, sc.df[k][w])
			found += fieldBoost[f] * wf * wf * tf * bm25K1 / (tf + bm25K1*norm)
			pairs++
		}
		if found == 0 {
			return 0, 0, false
		}
		total += found
	}
	return total, pairs, true
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
