package index

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2/search"
	bleveindex "github.com/blevesearch/bleve_index_api"
)

// Among answers each of qs among the learnings hits found as Search of it with their paths
// would: the same hits, with the same scores, weights and explanations, in the same order
// (bleve sums a learning's matching clauses in an order of its own, so two learnings whose
// scores are equal here may differ by a rounding there, and be ordered by it). hits must be
// those of a search with the same filters (Projects, Kinds, Tags, Statuses), which Among
// does not apply again; none: nothing is found.
//
// A session start asks one search per topic among the hits of a first search of all the
// topics' words. As bleve searches, each was a query built and run anew: searchers for each
// word in each field, the scope's filter, the hits' ids, a collector, and the hits explained
// again. Among reads each word's postings in each field that holds it once, at those
// learnings only, scores them as bleve's searchers would (score: the same arithmetic on the
// same frequencies and norms, which TestAmongAsSearch holds to 1e-12), and finds what each
// learning holds of all the queries' words once. BenchmarkAmong, six topics at 10,000
// learnings: 1.6–1.7 ms as searches, 0.49–0.69 ms by Among.
func (ix *Index) Among(ctx context.Context, qs []Query, hits []Hit) ([]*Result, error) {
	out := make([]*Result, len(qs))
	if len(hits) == 0 { // as a search restricted to no learning (Paths empty: to none)
		for i, q := range qs {
			if ix.idx == nil {
				out[i] = &Result{Source: "scan", Note: ix.note}
				continue
			}
			out[i] = &Result{Source: "index", Note: ix.note}
			ix.weigh(ctx, &q).into(out[i])
		}
		return out, nil
	}
	if ix.idx == nil || slices.ContainsFunc(qs, func(q Query) bool { return len(q.Terms) == 0 }) {
		paths := pathsOf(hits)
		for i, q := range qs { // a scan, or a person's query text: bleve's own parsing
			q.Paths = paths
			res, err := ix.Search(ctx, q)
			if err != nil {
				return nil, err
			}
			out[i] = res
		}
		return out, nil
	}
	adv, err := ix.idx.Advanced()
	if err != nil {
		return nil, err
	}
	rd, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	p, err := ix.readAt(rd, hits)
	if err != nil {
		return nil, err
	}
	// every query weighed first, so that the postings of all their words are read together
	type asked struct {
		q     Query
		words map[string]bool
		w     weighed
	}
	as := make([]asked, len(qs))
	all := map[string]bool{}
	for i, q := range qs {
		as[i].words = q.words() // every word asked is explained, the common ones too
		as[i].w = ix.weigh(ctx, &q)
		as[i].q = q
		maps.Copy(all, as[i].words)
		for _, t := range q.Terms {
			for k, f := range textFields {
				if q.held == nil || q.held[t]&(1<<k) != 0 {
					p.want(t, f)
				}
			}
		}
	}
	if err := p.readAll(ctx, rd); err != nil {
		return nil, err
	}
	// what each learning holds of every query's words, found once: the queries share most
	// of their hits and many of their words
	held := map[string]*found{}
	for i, a := range as {
		q := a.q
		scored := p.score(q)
		res := &Result{Total: uint64(len(scored)), Source: "index", Note: ix.note}
		scored = scored[:min(len(scored), q.limit())]
		load := make(search.DocumentMatchCollection, len(scored))
		for k, s := range scored {
			load[k] = &search.DocumentMatch{ID: p.paths[s.doc]}
		}
		if err := ix.load(ctx, load); err != nil { // the memo holds them, unless it was full
			return nil, err
		}
		for _, s := range scored {
			hit := Hit{Doc: ix.memo().doc(p.paths[s.doc], nil), Score: s.score}
			if !q.Bare {
				fd := held[hit.Path]
				if fd == nil {
					fd = ix.find(hit.Doc, all)
					held[hit.Path] = fd
				}
				fd.explain(&hit, a.words, q.Snippets)
			}
			res.Hits = append(res.Hits, hit)
		}
		a.w.into(res)
		out[i] = res
	}
	return out, nil
}

// postings are what Among reads of the index at a few learnings: their internal ids (in the
// index's order, bleve's order of hits of equal score), each text field's BM25 statistics,
// and, by word and field, each word's count of learnings and frequency and norm at those.
type postings struct {
	paths []string
	ids   []bleveindex.IndexInternalID
	n     uint64             // learnings in the index
	avg   map[string]float64 // by field: bleve's average length (0: tf-idf scoring)
	read  map[[2]string]*posted
	order [][2]string // read's keys, as asked
}

// posted is one word's postings in one field: how many learnings hold it there, and at
// each of the learnings asked (by index in postings.ids) how often (0: not at all) and the
// field's norm.
type posted struct {
	df   uint64
	freq []uint64
	norm []float64
}

// readAt finds the learnings hits found in the index (those it does not hold are left out):
// by the internal ids a search of this index found them at, when it never changes, else by
// their paths (looking 48 up was 0.15–0.2 ms of a session start in a resident engine).
func (ix *Index) readAt(rd bleveindex.IndexReader, hits []Hit) (*postings, error) {
	n, err := rd.DocCount()
	if err != nil {
		return nil, err
	}
	p := &postings{n: n, read: map[[2]string]*posted{}}
	type doc struct {
		path string
		id   bleveindex.IndexInternalID
	}
	var docs []doc
	for _, h := range hits {
		id := h.id
		if !ix.fixed || h.from != ix.idx || id == nil {
			if id, err = rd.InternalID(h.Path); err != nil {
				return nil, err
			}
		}
		if id != nil {
			docs = append(docs, doc{h.Path, id})
		}
	}
	slices.SortFunc(docs, func(a, b doc) int { return a.id.Compare(b.id) })
	for _, d := range docs {
		p.paths, p.ids = append(p.paths, d.path), append(p.ids, d.id)
	}
	p.avg, err = fieldAverages(rd, n)
	return p, err
}

// want asks for word's postings in field.
func (p *postings) want(word, field string) {
	key := [2]string{word, field}
	if _, ok := p.read[key]; !ok {
		p.read[key] = nil
		p.order = append(p.order, key)
	}
}

// readAll reads the postings asked for, on two goroutines: a session start asks ~50 words
// and fields, and its process has the machine's cores to itself (the hook's own process
// waits for its answer).
func (p *postings) readAll(ctx context.Context, rd bleveindex.IndexReader) error {
	got := make([]*posted, len(p.order))
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := w; i < len(p.order); i += 2 {
				if got[i], errs[w] = p.posting(ctx, rd, p.order[i][0], p.order[i][1]); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, key := range p.order {
		p.read[key] = got[i]
	}
	return nil
}

// posting reads word's postings in field at p's learnings.
func (p *postings) posting(ctx context.Context, rd bleveindex.IndexReader, word, field string) (*posted, error) {
	tfr, err := rd.TermFieldReader(ctx, []byte(word), field, true, true, false)
	if err != nil {
		return nil, err
	}
	defer tfr.Close()
	got := &posted{df: tfr.Count()}
	var cur *bleveindex.TermFieldDoc
	for i, id := range p.ids {
		// the postings are in the index's order, as ids: a learning between the one asked
		// before and the one found at or after it holds no posting
		if cur == nil || cur.ID.Compare(id) < 0 {
			if got.df == 0 {
				break
			}
			if cur, err = tfr.Advance(id, nil); err != nil {
				return nil, err
			}
			if cur == nil {
				break // past the last posting
			}
		}
		if cur.ID.Equals(id) {
			if got.freq == nil {
				got.freq, got.norm = make([]uint64, len(p.ids)), make([]float64, len(p.ids))
			}
			got.freq[i], got.norm[i] = cur.Freq, cur.Norm
		}
	}
	return got, nil
}

type scored struct {
	doc   int
	score float64
}

// score is bleve's score of q at each of p's learnings that q's words match, best first, in
// the index's order among equal scores (its collector's, by hit number). bleve scores q's
// text as a disjunction of a term query per word and field (Query.bleveQuery): the sum of the
// matching clauses' scores times the share of clauses that match (coord). A clause scores
// its field weight (BM25 of the word's frequency and the field's length, from its norm)
// times its query weight: boost × idf × the query's norm, 1/sqrt of the sum of every clause's
// (boost × idf)², those that match nothing included. The filters weigh nothing and add 0.
func (p *postings) score(q Query) []scored {
	type clause struct {
		boost, idf, avg float64
		postings        *posted
	}
	var clauses []clause
	sumSq := 0.0
	for _, t := range q.Terms {
		for _, f := range textFields {
			c := clause{boost: fieldBoost[f], avg: p.avg[f], postings: p.read[[2]string{t, f}]}
			df := uint64(0)
			if c.postings != nil {
				df = c.postings.df
			}
			c.idf = termIDF(p.n, df, c.avg)
			w := c.boost * c.idf
			sumSq += w * w
			clauses = append(clauses, c)
		}
	}
	norm := 1.0 / math.Sqrt(sumSq)
	var out []scored
	for d := range p.ids {
		sum, matched := 0.0, 0
		for _, c := range clauses {
			if c.postings == nil || c.postings.freq == nil || c.postings.freq[d] == 0 {
				continue
			}
			tf := math.Sqrt(float64(c.postings.freq[d]))
			var s float64
			if c.avg > 0 { // as bleve's term scorer (docScore, Score)
				fieldLength := 1 / (c.postings.norm[d] * c.postings.norm[d])
				s = c.idf * (tf * search.BM25_k1) /
					(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/c.avg)))
			} else {
				s = tf * c.postings.norm[d] * c.idf
			}
			if qw := c.boost * c.idf * norm; qw != 1.0 {
				s *= qw
			}
			sum += s
			matched++
		}
		if matched > 0 {
			out = append(out, scored{d, sum * (float64(matched) / float64(len(clauses)))})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return out
}

// pathsOf are the paths of hits, in their order.
func pathsOf(hits []Hit) []string {
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = h.Path
	}
	return paths
}
