package history

import (
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// term is one word, or one "quoted phrase", of a query.
type term struct {
	raw   string   // as typed, without quotes
	text  []string // its terms in the text field
	grams []string // its CJK grams: each pair of a run, or the character of a run of one
	// literal, when set, is what a message must contain (lower case) to match: the index
	// finds candidates by words and pairs, and only a literal check says that they stand
	// together (a phrase, a CJK needle of three characters or more, CJK next to other text)
	literal string
}

// parsed is a query: any of alts matches, an alternative when all its terms do.
type parsed struct {
	t    *termer
	alts [][]term
	// plain: one alternative of several terms, which may fall back to any of them
	plain bool
}

// parseQuery reads a person's query: alternatives separated by |, each a set of words and
// "quoted phrases" that must all match. Words that say nothing to the index (stop words,
// punctuation) are left out.
func parseQuery(s string) parsed {
	p := parsed{t: newTermer()}
	var alt []term
	var cur strings.Builder
	quoted, phrase := false, false
	endTerm := func() {
		if t, ok := p.t.term(cur.String(), phrase); ok {
			alt = append(alt, t)
		}
		cur.Reset()
		phrase = false
	}
	endAlt := func() {
		endTerm()
		if len(alt) > 0 {
			p.alts = append(p.alts, alt)
		}
		alt = nil
	}
	for _, r := range s {
		switch {
		case r == '"':
			if quoted {
				endTerm()
			} else {
				endTerm()
				phrase = true
			}
			quoted = !quoted
		case quoted:
			cur.WriteRune(r)
		case r == '|':
			endAlt()
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			endTerm()
		default:
			cur.WriteRune(r)
		}
	}
	endAlt()
	p.plain = len(p.alts) == 1 && len(p.alts[0]) > 1 && !strings.Contains(s, "|")
	return p
}

// term analyzes one word or phrase; ok is false when it has nothing to search for.
func (tm *termer) term(raw string, phrase bool) (term, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return term{}, false
	}
	t := term{raw: raw, text: tm.analyze(raw)}
	runs, other := cjkRuns(raw)
	for _, run := range runs {
		if len(run) == 1 {
			t.grams = append(t.grams, string(run))
			continue
		}
		for i := 0; i+1 < len(run); i++ {
			t.grams = append(t.grams, string(run[i:i+2]))
		}
	}
	if len(t.text) == 0 && len(t.grams) == 0 {
		return term{}, false
	}
	longRun := false
	for _, run := range runs {
		longRun = longRun || len(run) > 2
	}
	// a phrase, or a word the index sees as several (checkout.test.ts, ERR_MODULE), must
	// be found as typed
	several := len(t.text)+len(t.grams) > 1
	if several && (phrase || len(runs) == 0) || len(runs) > 0 && (longRun || len(runs) > 1 || other) {
		t.literal = strings.ToLower(raw)
	}
	return t, true
}

// cjkRuns returns the runs of CJK characters in s, and whether s holds anything else that
// the index sees (letters, digits).
func cjkRuns(s string) (runs [][]rune, other bool) {
	var run []rune
	for _, r := range s {
		if isCJK(r) {
			run = append(run, r)
			continue
		}
		if len(run) > 0 {
			runs = append(runs, run)
			run = nil
		}
		if isWordRune(r) {
			other = true
		}
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}
	return runs, other
}

// bleve returns the index query of one term: all its words and grams.
func (t term) bleve() query.Query {
	var qs []query.Query
	for _, w := range t.text {
		q := bleve.NewTermQuery(w)
		q.SetField("text")
		qs = append(qs, q)
	}
	for _, g := range t.grams {
		q := bleve.NewTermQuery(g)
		q.SetField("cjk")
		qs = append(qs, q)
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewConjunctionQuery(qs...)
}

// all is the query that needs every term of some alternative; any the one that needs a
// term of any.
func (p parsed) all() query.Query {
	var alts []query.Query
	for _, alt := range p.alts {
		var qs []query.Query
		for _, t := range alt {
			qs = append(qs, t.bleve())
		}
		if len(qs) == 1 {
			alts = append(alts, qs[0])
		} else {
			alts = append(alts, bleve.NewConjunctionQuery(qs...))
		}
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return bleve.NewDisjunctionQuery(alts...)
}

func (p parsed) any() query.Query {
	var qs []query.Query
	for _, alt := range p.alts {
		for _, t := range alt {
			qs = append(qs, t.bleve())
		}
	}
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

// literal reports whether some term needs a literal check of its candidates.
func (p parsed) literal() bool {
	for _, alt := range p.alts {
		for _, t := range alt {
			if t.literal != "" {
				return true
			}
		}
	}
	return false
}

// terms lists every term, for finding where a message matched.
func (p parsed) terms() []term {
	var out []term
	for _, alt := range p.alts {
		out = append(out, alt...)
	}
	return out
}

// matcher says whether a message's text matches terms the way the index does, plus their
// literal checks: the confirmation of a candidate the index found. A query has a few terms
// and a message hundreds of words: looking each term up in the message's terms (one string,
// space-bounded) costs less than a set of them, which was ~13% of a rare-needle search's CPU
// (perf, 40 runs of reflect-engine history search on 134,000 messages); the lower-case text is
// made only when a term has a literal to check.
type matcher struct {
	terms string // the text's terms, each between spaces
	grams []string
	text  string
	lower string // strings.ToLower(text), once a literal needs it
	low   bool
}

func (tm *termer) matcher(text string) *matcher {
	terms, grams := tm.split(text)
	return &matcher{terms: " " + terms + " ", grams: grams, text: text}
}

func (m *matcher) match(t term) bool {
	for _, w := range t.text {
		if !m.hasTerm(w) {
			return false
		}
	}
	for _, g := range t.grams {
		if !slices.Contains(m.grams, g) {
			return false
		}
	}
	if t.literal == "" {
		return true
	}
	if !m.low {
		m.lower, m.low = strings.ToLower(m.text), true
	}
	return strings.Contains(m.lower, t.literal)
}

// hasTerm says whether w is one of the text's terms.
func (m *matcher) hasTerm(w string) bool {
	if w == "" {
		return false
	}
	for from := 1; from < len(m.terms); {
		i := strings.Index(m.terms[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if m.terms[i-1] == ' ' && m.terms[i+len(w)] == ' ' {
			return true
		}
		from = i + 1
	}
	return false
}

// matches reports whether the message matches p: all terms of an alternative, or (anyTerm)
// one term.
func (m *matcher) matches(p parsed, anyTerm bool) bool {
	for _, alt := range p.alts {
		n := 0
		for _, t := range alt {
			if m.match(t) {
				n++
				if anyTerm {
					return true
				}
			}
		}
		if n == len(alt) {
			return true
		}
	}
	return false
}
