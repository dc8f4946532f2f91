package index

import (
	"context"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/reflect-memory/reflect/internal/bounded"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"github.com/go-git/go-git/v5/plumbing"
)

// Query is one search. Text is what a person typed (bleve query-string syntax, plus a|b
// for alternatives); Terms is what recall asks (analyzed words, any of which may match).
type Query struct {
	Text  string
	Terms []string
	// Also are words the hits are weighed and explained with but that are not searched for
	// (recall's evidence that may add to a match but never brings a learning up).
	Also []string
	// Paths, when set, are the only learnings the query may find (by their paths in the
	// repository, the index's document ids): a second look at the hits of a first search.
	Paths []string
	// Bare: hits carry their learning and score, not what they matched (no Terms,
	// Strength or Snippet): a first look, whose hits a second one explains.
	Bare     bool
	Projects []string // learnings of these projects only; empty: every project
	Kinds    []string
	Tags     []string
	Statuses []string // empty: current only
	Limit    int
	Snippets bool
	// held are the text fields that hold each of Terms (bits in textFields' order), and
	// zero the idf a word held by none gets in each field, when the memo knows them (pruned)
	held map[string]uint8
	zero map[string]float64
}

// Hit is one learning found.
type Hit struct {
	Doc
	Score  float64  `json:"score"`
	Terms  []string `json:"terms,omitempty"`  // query words found (analyzed form)
	Fields []string `json:"fields,omitempty"` // fields they were found in
	// Strength of each word found: the best over fields of the field's boost times a
	// saturating count (tf/(tf+1.2)), so a word in the title says more than one in the
	// body, and a word said five times not much more than one said twice.
	Strength map[string]float64 `json:"-"`
	// Whole are the words found that the learning holds as an identifier kept whole
	// (CronJob holds cronjob whole): a word typed in lower case that is one.
	Whole   map[string]bool `json:"-"`
	Snippet string          `json:"snippet,omitempty"`
	// Marks are the byte ranges of matched words in Snippet.
	Marks [][2]int `json:"-"`
	// id is the learning's internal id in the index that found it, from (Among)
	id   bleveindex.IndexInternalID
	from bleve.Index
}

// Result is what a search found.
type Result struct {
	Hits  []Hit  `json:"hits"`
	Total uint64 `json:"total"`
	// Source is "index", or "scan" when the index could not be used.
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	// Weights is the inverse document frequency of each of Query.Terms: how much
	// finding that word says about a learning.
	Weights map[string]float64 `json:"-"`
	// Unseen are those of Query.Terms that no learning the query chooses from holds
	// (rarity.go).
	Unseen map[string]bool `json:"-"`
	// MaxWeight is the weight of a word found in a single learning.
	MaxWeight float64 `json:"-"`
	// Unit is the weight of the rarest word in a memory of refLearnings learnings, or
	// MaxWeight in a smaller one: what recall measures weights in (rarity.go).
	Unit float64 `json:"-"`
}

var analysisMapping = newMapping()

// Analyze returns the words of text as the index stores them (lower case, stemmed,
// without stop words), in order, without repeats.
func Analyze(text string) []string {
	ts, err := analysisMapping.(*mapping.IndexMappingImpl).AnalyzeText(analyzerName, []byte(text))
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		w := string(t.Term)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (q Query) limit() int {
	if q.Limit <= 0 {
		return 10
	}
	return q.Limit
}

func (q Query) statuses() []string {
	if len(q.Statuses) == 0 {
		return []string{"current"}
	}
	return q.Statuses
}

// bleveQuery is the text part of q: each of Terms in each text field. A word's clause in a
// field that holds it nowhere finds nothing but costs a lookup in the field's dictionary and
// a searcher (at a session start's first search, 32 words in 5 fields, most clauses are
// such); when the memo says which fields hold each word (q.held), they are left out, and the
// query scores every learning exactly as with them (pruned).
func (q Query) bleveQuery() query.Query {
	if len(q.Terms) > 0 {
		var alts []query.Query
		var left []string // the fields of the clauses left out
		for _, t := range q.Terms {
			for i, f := range textFields {
				if q.held != nil && q.held[t]&(1<<i) == 0 {
					left = append(left, f)
					continue
				}
				tq := bleve.NewTermQuery(t)
				tq.SetField(f)
				tq.SetBoost(fieldBoost[f])
				alts = append(alts, tq)
			}
		}
		return bleve.NewDisjunctionQuery(append(alts, q.pruned(left)...)...)
	}
	return parseText(q.Text)
}

// pruned stands in for the clauses left out of a query, one in field of left each, so that
// it scores as with them. bleve scores a disjunction as the sum of its matching clauses'
// scores times the share of its clauses that match (coord), each clause's score times its
// query weight over the norm of all the clauses' weights (queryNorm: 1/sqrt of the sum of
// (boost*idf)², a clause that matches nothing included). So: as many clauses, of which one
// holds the weight of them all, a word no learning holds in the title (idf of a word held by
// none, q.zero) boosted to sqrt(sum of (boost_f*zero_f)²), and the others match nothing and
// weigh nothing.
func (q Query) pruned(left []string) []query.Query {
	if len(left) == 0 {
		return nil
	}
	sum := 0.0
	for _, f := range left {
		w := fieldBoost[f] * q.zero[f]
		sum += w * w
	}
	weigh := bleve.NewTermQuery("\x00") // no analyzer makes it: no learning holds it
	weigh.SetField("title")
	weigh.SetBoost(math.Sqrt(sum) / q.zero["title"])
	out := []query.Query{weigh}
	for range left[1:] {
		out = append(out, bleve.NewMatchNoneQuery())
	}
	return out
}

// parseText turns a person's query into bleve's: each space-separated term is read as
// bleve query-string syntax (field:word, "a phrase", +must, -not, word^2, fuzzy~), and a
// term made of alternatives a|b|c matches any of them. A bare word also matches the title
// with a boost, so a learning named for the word comes first.
func parseText(text string) query.Query {
	var must, should, not []query.Query
	for _, tok := range splitTerms(text) {
		op := byte(0)
		if tok[0] == '+' || tok[0] == '-' {
			op, tok = tok[0], tok[1:]
		}
		if tok == "" {
			continue
		}
		var alts []query.Query
		for _, alt := range splitAlternatives(tok) {
			alts = append(alts, termQuery(alt))
		}
		var q query.Query = bleve.NewDisjunctionQuery(alts...)
		if len(alts) == 1 {
			q = alts[0]
		}
		switch op {
		case '+':
			must = append(must, q)
		case '-':
			not = append(not, q)
		default:
			should = append(should, q)
		}
	}
	if len(must) == 0 && len(should) == 0 {
		if len(not) == 0 {
			return bleve.NewMatchNoneQuery()
		}
		must = append(must, bleve.NewMatchAllQuery())
	}
	b := bleve.NewBooleanQuery()
	if len(must) > 0 {
		b.AddMust(must...)
	}
	if len(should) > 0 {
		b.AddShould(should...)
		if len(must) == 0 {
			b.SetMinShould(1)
		}
	}
	if len(not) > 0 {
		b.AddMustNot(not...)
	}
	return b
}

// termQuery is one term of a person's query. A term that names its field (title:oauth)
// is bleve's; any other is asked of every text field, the title, tags and entities
// weighing more than the body.
func termQuery(s string) query.Query {
	if fieldNamed(s) {
		return bleve.NewQueryStringQuery(s)
	}
	var alts []query.Query
	for _, f := range textFields {
		q := bleve.NewQueryStringQuery(f + ":" + s)
		q.SetBoost(fieldBoost[f])
		alts = append(alts, q)
	}
	return bleve.NewDisjunctionQuery(alts...)
}

// fieldNamed reports whether a term starts with field: (outside quotes).
func fieldNamed(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.ContainsAny(s[:i], `"\ `)
}

// splitTerms splits on spaces outside double quotes.
func splitTerms(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			i++
			cur.WriteByte(s[i])
			continue
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ' ' || c == '\t' || c == '\n'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteByte(c)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// splitAlternatives splits a|b on bars outside quotes; a term without one is itself.
func splitAlternatives(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case '|':
			if !quoted {
				if i > start {
					out = append(out, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// filters are the conditions every hit must meet; they add nothing to the score.
func (q Query) filters() []query.Query {
	var out []query.Query
	any := func(field string, values []string, lower bool) {
		if len(values) == 0 {
			return
		}
		var alts []query.Query
		for _, v := range values {
			if lower {
				v = strings.ToLower(v)
			}
			tq := bleve.NewTermQuery(v)
			tq.SetField(field)
			tq.SetBoost(0)
			alts = append(alts, tq)
		}
		out = append(out, bleve.NewDisjunctionQuery(alts...))
	}
	any("project", q.Projects, false)
	any("kind", q.Kinds, false)
	any("tag", q.Tags, true)
	if len(q.Paths) > 0 {
		ids := bleve.NewDocIDQuery(q.Paths)
		ids.SetBoost(0)
		out = append(out, ids)
	}
	return out
}

// request is the search of q in the index: its text, filters and exclusions.
func (q Query) request() *bleve.SearchRequest {
	b := bleve.NewBooleanQuery()
	b.AddMust(append([]query.Query{q.bleveQuery()}, q.filters()...)...)
	if ex := q.excluded(); len(ex) > 0 {
		b.AddMustNot(ex...)
	}
	return bleve.NewSearchRequestOptions(b, q.limit(), 0, false)
}

// excluded are the statuses a query leaves out. Most learnings are current, so leaving
// the few others out walks far less than requiring "current" of every candidate.
func (q Query) excluded() []query.Query {
	var out []query.Query
	for _, s := range []string{"current", "archived", "superseded"} {
		if !in(s, q.statuses()) {
			tq := bleve.NewTermQuery(s)
			tq.SetField("status")
			out = append(out, tq)
		}
	}
	return out
}

// Search runs q against the index (or, when it could not be opened, a scan of git).
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	if ix.idx == nil {
		res, err := ix.scan.search(ctx, q)
		if res != nil {
			res.Source, res.Note = "scan", ix.note
			if !q.Bare {
				words := q.words()
				for i := range res.Hits {
					ix.explain(&res.Hits[i], words, q.Snippets)
				}
			}
		}
		return res, err
	}
	words := q.words() // every word asked is explained, the common ones too
	w := ix.weigh(ctx, &q)
	req := q.request()
	// the hits' learnings come with them when the memo holds none yet (a state's first
	// search), else the memo's are used and only the others loaded, by a search of their
	// ids: loading them all again was a fifth of a session start's hook in process
	// (BenchmarkStartHook, 3.7 → 2.9 ms), and the search of ids costs a state's first
	// prompt a tenth (BenchmarkRecallHook with the memo emptied before each, 1.07 → 1.17)
	first := ix.memo().empty()
	if first {
		req.Fields = storedFields
	}
	sr, err := ix.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	if !first {
		if err := ix.load(ctx, sr.Hits); err != nil {
			return nil, err
		}
	}
	res := &Result{Total: sr.Total, Source: "index", Note: ix.note}
	for _, h := range sr.Hits {
		hit := Hit{Doc: ix.memo().doc(h.ID, h.Fields), Score: h.Score, id: slices.Clone(h.IndexInternalID), from: ix.idx}
		if !q.Bare {
			ix.explain(&hit, words, q.Snippets)
		}
		res.Hits = append(res.Hits, hit)
	}
	w.into(res)
	return res, nil
}

// weighed is what Result tells of the words a query asked (Result.Weights and the rest).
type weighed struct {
	weights         map[string]float64
	unseen          map[string]bool
	maxWeight, unit float64
}

// into sets res's Weights, Unseen, MaxWeight and Unit from w.
func (w weighed) into(res *Result) {
	res.Weights, res.Unseen, res.MaxWeight, res.Unit = w.weights, w.unseen, w.maxWeight, w.unit
}

// weigh weighs q's words among the learnings it chooses from, and leaves those that say
// little out of its search (informative) and, when the memo knows them, the fields that hold
// none of the rest (bleveQuery).
func (ix *Index) weigh(ctx context.Context, q *Query) weighed {
	var w weighed
	if len(q.Terms) == 0 {
		return w
	}
	asked := append(append([]string(nil), q.Terms...), q.Also...)
	c := ix.counts(ctx, asked, q.Projects)
	w.weights, w.unseen, w.maxWeight, w.unit = c.weigh(asked)
	q.Terms = c.informative(q.Terms)
	if c.zero != nil {
		q.held, q.zero = c.held, c.zero
	}
	return w
}

// memo keeps what the searches of an index have read and analyzed of the learnings they
// found, and counted of the words they asked: a recall asks several searches whose hits are
// mostly the same learnings, and a resident engine (hooks/resident) opens the index afresh
// for every hook, whose searches find mostly the learnings and ask the words of the hooks
// before. What it holds depends on the index's state alone (memoOf): nothing in it goes stale.
type memo struct {
	key    string // the index's state: its generation and the learnings tree it reflects
	mu     sync.Mutex
	docs   map[string]Doc
	tokens map[string][]token // by path and field
	size   int                // bytes of docs and tokens, roughly
	// how many learnings hold each word, and how many of each scope's, by scopeKey
	// (rarity.go): a session start's topics share most of their words
	all    map[string]uint64
	fields map[string]uint8   // by word: the text fields (bits in textFields' order) that hold it
	zero   map[string]float64 // by text field: the idf of a word it holds nowhere (zeroIDF)
	n      uint64
	scopes map[string]*scopeCounts
}

// memos holds, by generation, the memo of the index state this process opened last. An
// index's content is its generation's (a rebuild writes a new one) at the learnings tree it
// reflects (a catch-up changes both in one batch), so two opens of the same state may share
// what they read. Reading it again at every open was a fifth of a session start's hook in a
// resident engine: counting its 58 words took 0.36–0.54 ms, and loading the 48 hits of its
// first search more, of 4.8–6.0 ms at 10,000 learnings. A recall over team memories opens
// one index of each, hence a memo for each generation.
var memos struct {
	sync.Mutex
	byGen map[string]*memo
}

// Past these, a memo is started afresh: a resident engine lives for hours, and each hook adds
// the learnings it found and the words it asked; a process that opened more generations than
// maxMemos forgets them all.
const (
	maxMemoBytes = 8 << 20
	maxMemoWords = 1 << 16
	maxMemos     = 8
)

// memoOf is the memo of the index of generation gen at learnings tree tree.
func memoOf(gen string, tree plumbing.Hash) *memo {
	key := gen + "@" + tree.String()
	memos.Lock()
	defer memos.Unlock()
	if m := memos.byGen[gen]; m != nil && m.key == key && !m.full() {
		return m
	}
	if memos.byGen == nil || len(memos.byGen) >= maxMemos {
		memos.byGen = map[string]*memo{}
	}
	m := &memo{key: key}
	memos.byGen[gen] = m
	return m
}

// full reports whether m holds more than a memo is let to.
func (m *memo) full() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	words := len(m.all)
	for _, sc := range m.scopes {
		words += len(sc.in)
	}
	return m.size > maxMemoBytes || words > maxMemoWords
}

// load reads into the memo the stored fields of the hits it does not hold, in one search of
// their ids: a search's hits are mostly learnings an earlier search of the same state found.
func (ix *Index) load(ctx context.Context, hits search.DocumentMatchCollection) error {
	m := ix.memo()
	var missing []string
	m.mu.Lock()
	for _, h := range hits {
		if _, ok := m.docs[h.ID]; !ok {
			missing = append(missing, h.ID)
		}
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDocIDQuery(missing), len(missing), 0, false)
	req.Fields = storedFields
	req.SortBy([]string{"_id"}) // no scores to compute
	sr, err := ix.idx.SearchInContext(ctx, req)
	if err != nil {
		return err
	}
	for _, h := range sr.Hits {
		m.doc(h.ID, h.Fields)
	}
	return nil
}

// empty reports whether m holds no learning yet.
func (m *memo) empty() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.docs) == 0
}

// doc is the learning at path: from its stored fields when given, else as the memo holds it
// (a learning no search loaded is its path alone).
func (m *memo) doc(path string, fields map[string]any) Doc {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.docs[path]; ok && fields == nil {
		return d
	}
	d := docFromFields(path, fields)
	if fields == nil {
		return d // not loaded: were it kept, it would stand for the learning in every later open
	}
	if m.docs == nil {
		m.docs = map[string]Doc{}
	}
	if _, ok := m.docs[path]; !ok {
		m.size += len(d.Path) + len(d.Title) + len(d.Body) + 256 // and the short fields
	}
	m.docs[path] = d
	return d
}

// fieldTokens are the analyzed words of one of d's fields.
func (m *memo) fieldTokens(d Doc, field string) []token {
	key := d.Path + "\x00" + field
	m.mu.Lock()
	ts, ok := m.tokens[key]
	m.mu.Unlock()
	if ok {
		return ts
	}
	ts = analyzed(FieldText(d, field))
	m.mu.Lock()
	if m.tokens == nil {
		m.tokens = map[string][]token{}
	}
	if _, ok := m.tokens[key]; !ok {
		m.size += len(key) + len(ts)*int(unsafe.Sizeof(token{}))
	}
	m.tokens[key] = ts
	m.mu.Unlock()
	return ts
}

// analyzedTexts keeps the analyzed words of the field texts that searches explained, for the
// life of the process: a text's words depend on the text alone, so what it holds is never
// stale, whichever index or state of git the text came from. A resident engine (package
// hooks/resident) opens the index afresh for every hook, and the learnings a project's prompts
// find are mostly the same few: analyzing their fields again was a quarter of a prompt's hook
// in process (0.33 of 1.48 ms at 10,000 learnings, BenchmarkRecallHook). It is emptied when
// what it holds passes 8 MB (a learning's body may be 32 KB, its words ~10 times
// that in tokens, so a count of texts bounded nothing).
var analyzedTexts = bounded.Map[string, []token]{Max: 8 << 20, Cost: func(text string, ts []token) int {
	size := len(text) + len(ts)*int(unsafe.Sizeof(token{})) // bytes: the text and its tokens, roughly
	for _, t := range ts {
		size += len(t.term)
	}
	return size
}}

// analyzed is tokens(text), from analyzedTexts when an earlier search analyzed the same text.
func analyzed(text string) []token {
	if ts, ok := analyzedTexts.Get(text); ok {
		return ts
	}
	ts := tokens(text)
	analyzedTexts.Put(text, ts)
	return ts
}

// counts returns what the weights of terms among the learnings a query of scope chooses
// from are computed from (rarity.go). Without the scope's counts, in a large memory, the
// weights are the whole memory's (counts.weigh).
func (ix *Index) counts(ctx context.Context, terms, scope []string) counts {
	m := ix.memo()
	key := scopeKey(scope)
	m.mu.Lock()
	var missing, missingIn []string
	sc := m.scopes[key]
	for _, t := range terms {
		if _, ok := m.all[t]; !ok {
			missing = append(missing, t)
		}
		if sc == nil || !hasKey(sc.in, t) {
			missingIn = append(missingIn, t)
		}
	}
	n := m.n
	m.mu.Unlock()
	if len(missing) > 0 || n == 0 || large(n, scope) && len(missingIn) > 0 {
		if err := ix.count(ctx, missing, missingIn, scope, key); err != nil {
			return counts{}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// the terms' counts only: the memo holds every word of a session start's topics
	c := counts{n: m.n, all: make(map[string]uint64, len(terms)), held: make(map[string]uint8, len(terms))}
	for _, t := range terms {
		c.all[t] = m.all[t]
		c.held[t] = m.fields[t]
	}
	c.zero = m.zero
	if sc := m.scopes[key]; large(m.n, scope) && sc != nil {
		in := make(map[string]uint64, len(terms))
		for _, t := range terms {
			v, ok := sc.in[t]
			if !ok { // not counted in the scope: the whole memory's weights (counts.weigh)
				return c
			}
			in[t] = v
		}
		c.scoped, c.in = sc.scoped, in
	}
	return c
}

// zeroIDF is, by text field, the idf bleve gives a word no learning holds in it, as its term
// searcher computes it (BM25 when the field holds any word, else its tf-idf fallback); nil
// when the reader cannot say.
func zeroIDF(rd bleveindex.IndexReader, n uint64) map[string]float64 {
	avg, err := fieldAverages(rd, n)
	if err != nil || avg == nil {
		return nil
	}
	out := make(map[string]float64, len(textFields))
	for _, f := range textFields {
		out[f] = termIDF(n, 0, avg[f])
	}
	return out
}

// fieldAverages is, by text field, the average length bleve's term searcher scores BM25 with
// (bm25ScoreMetrics): the field's cardinality over the count of learnings, rounded up; 0 for
// a field that holds no word, which it scores by tf-idf. nil when the reader cannot say.
func fieldAverages(rd bleveindex.IndexReader, n uint64) (map[string]float64, error) {
	br, ok := rd.(bleveindex.BM25Reader)
	if !ok || n == 0 {
		return nil, nil
	}
	out := make(map[string]float64, len(textFields))
	for _, f := range textFields {
		card, err := br.FieldCardinality(f)
		if err != nil {
			return nil, err
		}
		out[f] = math.Ceil(float64(card) / float64(n))
	}
	return out, nil
}

// termIDF is the idf bleve's term scorer gives a word df of n learnings hold in a field of
// average length avg (computeIDF): BM25's (idfOf), or tf-idf's in a field that holds no word.
func termIDF(n, df uint64, avg float64) float64 {
	if avg > 0 {
		return idfOf(float64(n), float64(df))
	}
	return 1 + math.Log(float64(n)/float64(df+1))
}

func hasKey(m map[string]uint64, k string) bool { _, ok := m[k]; return ok }

// scopeCounts are the counts of a scope's learnings: how many, and how many hold each word.
type scopeCounts struct {
	scoped uint64
	in     map[string]uint64
}

// count fills the memo with what weights needs and does not hold: for missing, how many
// learnings hold each; for missingIn, how many of the scope's, when the memory is large.
func (ix *Index) count(ctx context.Context, missing, missingIn, scope []string, key string) error {
	adv, err := ix.idx.Advanced()
	if err != nil {
		return err
	}
	rd, err := adv.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	n, err := rd.DocCount()
	if err != nil {
		return err
	}
	found := make(map[string]uint64, len(missing))
	held := make(map[string]uint8, len(missing))
	for _, t := range missing {
		df := uint64(0)
		for i, f := range textFields {
			tfr, err := rd.TermFieldReader(ctx, []byte(t), f, false, false, false)
			if err != nil {
				held[t] |= 1 << i // its clause stays
				continue
			}
			if c := tfr.Count(); c > 0 {
				df = max(df, c)
				held[t] |= 1 << i
			}
			tfr.Close()
		}
		found[t] = df
	}
	var in map[string]uint64
	var scoped uint64
	ok := false
	if large(n, scope) && len(missingIn) > 0 {
		in, scoped, ok = countIn(ctx, rd, missingIn, scope)
	}
	m := ix.memo()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.all == nil {
		m.all = map[string]uint64{}
	}
	maps.Copy(m.all, found)
	if m.fields == nil {
		m.fields = map[string]uint8{}
	}
	maps.Copy(m.fields, held)
	if m.zero == nil {
		m.zero = zeroIDF(rd, n)
	}
	m.n = n
	if ok {
		if m.scopes == nil {
			m.scopes = map[string]*scopeCounts{}
		}
		sc := m.scopes[key]
		if sc == nil {
			sc = &scopeCounts{in: map[string]uint64{}}
			m.scopes[key] = sc
		}
		maps.Copy(sc.in, in)
		sc.scoped = scoped
	}
	return nil
}

// informative drops from the search the words found in most learnings (weight under a
// fifth of the rarest word's, i.e. in more than about a third of all learnings): they say
// little about relevance and walking their long lists is most of a search's cost. The three
// weightiest words always stay. The hits returned are still explained with every word.
func informative(terms []string, weights map[string]float64, maxWeight float64) []string {
	sorted := append([]string(nil), terms...)
	sort.SliceStable(sorted, func(i, j int) bool { return weights[sorted[i]] > weights[sorted[j]] })
	var out []string
	for i, t := range sorted {
		if i < 3 || weights[t] >= maxWeight/5 {
			out = append(out, t)
		}
	}
	return out
}

// words are the analyzed words a query looks for (not those it excludes).
func (q Query) words() map[string]bool {
	out := map[string]bool{}
	if len(q.Terms) > 0 {
		for _, t := range q.Terms {
			out[t] = true
		}
		for _, t := range q.Also {
			out[t] = true
		}
		return out
	}
	for _, tok := range splitTerms(q.Text) {
		if tok[0] == '-' {
			continue
		}
		for _, a := range splitAlternatives(strings.TrimPrefix(tok, "+")) {
			if i := strings.IndexByte(a, ':'); i > 0 && !strings.HasPrefix(a, `"`) {
				a = a[i+1:]
			}
			for _, w := range Analyze(a) {
				out[w] = true
			}
		}
	}
	return out
}

// explain finds which of words the hit holds, in which fields, and (with snippet) cuts
// the part of the body around the first of them. It analyzes the stored text of the few
// hits returned instead of storing term vectors for every learning in the index.
func (ix *Index) explain(h *Hit, words map[string]bool, withSnippet bool) {
	ix.find(h.Doc, words).explain(h, words, withSnippet)
}

// found is what a learning holds of some words: by text field, how often it says each; the
// words it holds as an identifier kept whole; and where in the body each is said.
type found struct {
	tf    []map[string]float64 // in textFields' order
	whole map[string]bool
	body  []token
}

// find is what d holds of words.
func (ix *Index) find(d Doc, words map[string]bool) *found {
	fd := &found{tf: make([]map[string]float64, len(textFields))}
	for i, f := range textFields {
		for _, tok := range ix.memo().fieldTokens(d, f) {
			if !words[tok.term] {
				continue
			}
			if fd.tf[i] == nil {
				fd.tf[i] = map[string]float64{}
			}
			fd.tf[i][tok.term]++
			if tok.whole {
				if fd.whole == nil {
					fd.whole = map[string]bool{}
				}
				fd.whole[tok.term] = true
			}
			if f == "body" {
				fd.body = append(fd.body, tok)
			}
		}
	}
	return fd
}

// explain explains h by what its learning holds of words (which fd was found of, or more).
// A word's strength is the best over fields of the field's boost times a saturating count.
func (fd *found) explain(h *Hit, words map[string]bool, withSnippet bool) {
	terms := map[string]bool{}
	h.Strength = map[string]float64{}
	for i, f := range textFields {
		held := false
		for t, n := range fd.tf[i] {
			if words[t] {
				held, terms[t] = true, true
				h.Strength[t] = max(h.Strength[t], fieldBoost[f]*n/(n+1.2))
			}
		}
		if held {
			h.Fields = append(h.Fields, f)
		}
	}
	for t := range fd.whole {
		if words[t] {
			if h.Whole == nil {
				h.Whole = map[string]bool{}
			}
			h.Whole[t] = true
		}
	}
	h.Terms = keys(terms)
	if withSnippet {
		var spans [][2]int
		for _, tok := range fd.body {
			if words[tok.term] {
				spans = append(spans, [2]int{tok.start, tok.end})
			}
		}
		h.Snippet, h.Marks = snippet(h.Body, spans, 160)
	}
}

type token struct {
	term       string
	start, end int
	whole      bool // an identifier kept whole
}

// tokens analyzes text keeping each word's byte offsets.
func tokens(text string) []token {
	ts, err := analysisMapping.(*mapping.IndexMappingImpl).AnalyzeText(analyzerName, []byte(text))
	if err != nil {
		return nil
	}
	out := make([]token, 0, len(ts))
	for _, t := range ts {
		out = append(out, token{string(t.Term), t.Start, t.End, t.Type == wholeType})
	}
	return out
}

// snippet cuts about width bytes of body around the first span, on word boundaries,
// and returns where the spans fall in it.
func snippet(body string, spans [][2]int, width int) (string, [][2]int) {
	lead := len(body) - len(strings.TrimLeft(body, " \n\t\r"))
	body = strings.TrimSpace(body)
	var kept [][2]int
	for _, s := range spans {
		s[0], s[1] = s[0]-lead, s[1]-lead
		if s[0] >= 0 && s[1] <= len(body) && s[0] < s[1] {
			kept = append(kept, s)
		}
	}
	spans = kept
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	from := 0
	if len(spans) > 0 && spans[0][0] > width/3 {
		from = spans[0][0] - width/3
		for from > 0 && body[from-1] != ' ' && body[from-1] != '\n' {
			from--
		}
	}
	to := min(len(body), from+width)
	for to < len(body) && body[to] != ' ' && body[to] != '\n' {
		to++
	}
	text := body[from:to]
	prefix := ""
	if from > 0 {
		prefix = "…"
	}
	var marks [][2]int
	for _, s := range spans {
		if s[0] >= from && s[1] <= to {
			marks = append(marks, [2]int{s[0] - from + len(prefix), s[1] - from + len(prefix)})
		}
	}
	out := prefix + text
	if to < len(body) {
		out += "…"
	}
	// one line: newlines become spaces (same width, marks stay put)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, out), marks
}

// Claimed counts the learnings that claim id: more than one means a second file poses as
// the learning (sync refuses such a file, but git can commit one), and neither is trusted.
func (ix *Index) Claimed(ctx context.Context, id string) (int, error) {
	if ix.idx == nil {
		n := 0
		for _, d := range ix.scan.docs {
			if d.ID == id {
				n++
			}
		}
		return n, nil
	}
	q := bleve.NewTermQuery(id)
	q.SetField("id")
	sr, err := ix.idx.SearchInContext(ctx, bleve.NewSearchRequestOptions(q, 0, 0, false))
	if err != nil {
		return 0, err
	}
	return int(sr.Total), nil
}
