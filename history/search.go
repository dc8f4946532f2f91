package history

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Query is one search of the archive; NewQuery fills in the default limits.
type Query struct {
	Text string
	// AllTerms forbids the fallback of a plain multi-word query to any of its words.
	AllTerms bool
	// Project scopes the search to the sessions of that project, unless Global.
	Project string
	Global  bool
	// Recent ranks the matching sessions newest first instead of by their hits.
	Recent bool
	// Limit is how many sessions are shown.
	Limit int
	// WindowsPerSession evidence windows of Before and After messages around a hit.
	WindowsPerSession, Before, After int
	// MessageChars bounds a prompt or a reply, ToolMessageChars a tool call's input or a
	// tool's output, BudgetChars everything shown; longer text is cut in the middle.
	MessageChars, ToolMessageChars, BudgetChars int
	// LockTimeout bounds the wait for an import that is writing the index.
	LockTimeout time.Duration
	// Now is the time recency is measured from (zero: now).
	Now time.Time
}

// NewQuery returns a query of text with the default limits.
func NewQuery(text string) Query {
	return Query{Text: text, Limit: 3, WindowsPerSession: 2, Before: 3, After: 5,
		MessageChars: 1200, ToolMessageChars: 600, BudgetChars: 12000}
}

// Modes a search reports.
const (
	ModeAll         = "all terms"
	ModeAlternative = "any alternative"
	ModeAny         = "any term (fallback)"
)

// Result is what a search found, grouped by session, best first.
type Result struct {
	Query   string `json:"query"`
	Mode    string `json:"mode"`
	Scope   string `json:"scope"` // project or global
	Project string `json:"project,omitempty"`
	// Hits counts the matching messages in scope. Capped: more matched than the best
	// 1,000 that were ranked (and, for a query checked literally, counted); Sessions then
	// counts the sessions of those.
	Hits     int  `json:"hits"`
	Capped   bool `json:"capped,omitempty"`
	Sessions int  `json:"sessions"` // sessions with a hit
	// BudgetReached: --budget-chars ended the output early.
	BudgetReached bool         `json:"budget_reached,omitempty"`
	Results       []SessionHit `json:"results"`
	Note          string       `json:"note,omitempty"`
}

// SessionHit is one matching session and its evidence.
type SessionHit struct {
	Session  string    `json:"session"`
	Harness  string    `json:"harness"`
	Project  string    `json:"project"`
	CWD      string    `json:"cwd,omitempty"`
	Branch   string    `json:"branch,omitempty"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	Hits     int       `json:"hits"`
	Score    float64   `json:"score"`
	Windows  []Window  `json:"windows"`
	// Omitted counts the windows the budget left out.
	Omitted int `json:"windows_omitted,omitempty"`
}

// Window is a run of consecutive messages around one or more hits.
type Window struct {
	Subagent string    `json:"subagent,omitempty"` // the Claude subagent whose transcript it is from
	From     int       `json:"from"`
	To       int       `json:"to"`
	Messages []Message `json:"messages"`
}

// Message is one message of a window, cut to the budgets.
type Message struct {
	Seq       int       `json:"seq"`
	Role      string    `json:"role"`
	Kind      string    `json:"kind"`
	Tool      string    `json:"tool,omitempty"`
	Input     string    `json:"input,omitempty"`
	Text      string    `json:"text,omitempty"`
	Error     bool      `json:"error,omitempty"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Time      time.Time `json:"time,omitzero"`
	Sidechain bool      `json:"sidechain,omitempty"`
	Hit       bool      `json:"hit,omitempty"`
	// Cut counts the characters left out of Input and Text.
	Cut int `json:"cut_chars,omitempty"`
}

// maxHits bounds the hits a search ranks: the best ones by text score. Two common words
// matched in 40% of 100,000 messages took 23 ms to collect at 5,000 hits, 16 ms at 1,000;
// a few sessions are shown, and the best thousand messages choose them well enough.
const maxHits = 1000

// hit is one matching message.
type hit struct {
	stream string
	seq    int
	class  byte
	score  float64
}

// weights of a hit by class: what a person typed and a failed tool say the most.
var weights = map[byte]float64{'u': 3, 'e': 3, 'r': 1.5, 'c': 1.5, 'a': 1}

// halfLife is the age at which recency weighs a session ¾ (never under ½).
const halfLife = 30 * 24 * time.Hour

// Search finds the messages that match q and returns, for the best sessions, windows of the
// messages around the best hits.
func (a *Archive) Search(ctx context.Context, q Query) (*Result, error) {
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	res := &Result{Query: q.Text, Mode: ModeAll, Scope: "project", Project: q.Project, Results: []SessionHit{}}
	if q.Global {
		res.Scope, res.Project = "global", ""
	} else if q.Project == "" {
		res.Project = learnings.Global
	}
	// the catalog (catalog.go) is read while the index opens, on the other core
	type loaded struct {
		cat *catalog
		err error
	}
	catalogued := make(chan loaded, 1)
	go func() {
		cat, err := a.loadCatalog()
		catalogued <- loaded{cat, err}
	}()
	p := parseQuery(q.Text)
	var idx bleve.Index
	var idxErr error
	if len(p.alts) > 0 {
		if _, err := os.Stat(filepath.Join(a.indexDir(), "index_meta.json")); err != nil {
			idxErr = ErrEmpty
		} else {
			idx, idxErr = openIndex(a.indexDir(), true, q.LockTimeout)
		}
	}
	if idx != nil {
		defer idx.Close()
	}
	l := <-catalogued
	if l.err != nil {
		return nil, l.err
	}
	cat := l.cat
	if len(p.alts) == 0 {
		res.Note = "nothing to search for: the query has no words the index knows"
		return res, nil
	}
	if len(p.alts) > 1 {
		res.Mode = ModeAlternative
	}
	if idxErr != nil {
		return nil, idxErr
	}
	hits, total, capped, err := a.find(ctx, idx, cat, p, p.all(), false, q, res.Project)
	if err != nil {
		return nil, err
	}
	if len(hits) == 0 && p.plain && !q.AllTerms {
		res.Mode = ModeAny
		if hits, total, capped, err = a.find(ctx, idx, cat, p, p.any(), true, q, res.Project); err != nil {
			return nil, err
		}
	}
	res.Hits, res.Capped = total, capped
	if capped {
		res.Note = "sessions ranked by the best " + formatInt(maxHits) + " hits"
	}
	ranked := rank(cat, hits, q)
	res.Sessions = len(ranked)
	if len(ranked) > q.Limit {
		ranked = ranked[:q.Limit]
	}
	b := &budget{left: q.BudgetChars}
	for _, g := range ranked {
		sh, err := a.evidence(cat, g, p, q, b)
		if err != nil {
			return nil, err
		}
		res.Results = append(res.Results, sh)
	}
	res.BudgetReached = b.reached
	return res, nil
}

// find runs one index query in scope and returns its best hits, confirmed where the query
// needs a literal check, with the number of messages that match and whether there were
// more than the hits returned.
func (a *Archive) find(ctx context.Context, idx bleve.Index, cat *catalog, p parsed, bq query.Query, anyTerm bool, q Query, project string) ([]hit, int, bool, error) {
	if !q.Global {
		scope := bleve.NewTermQuery(project)
		scope.SetField("project")
		bq = bleve.NewConjunctionQuery(bq, scope)
	}
	req := bleve.NewSearchRequestOptions(bq, maxHits, 0, false)
	sr, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, 0, false, err
	}
	hits := make([]hit, 0, len(sr.Hits))
	for _, h := range sr.Hits {
		stream, seq, class, ok := parseID(h.ID)
		if !ok {
			continue
		}
		// a document whose stream or message the catalog does not know is the leftover of
		// an import that died; the next import replaces it
		strm := cat.stream(stream)
		if strm == nil || seq >= strm.Messages || cat.session(strm.Session) == nil {
			continue
		}
		hits = append(hits, hit{stream, seq, class, h.Score})
	}
	capped := sr.Total > uint64(len(sr.Hits))
	total := int(sr.Total) - (len(sr.Hits) - len(hits))
	if p.literal() {
		if hits, err = a.confirm(cat, hits, p, anyTerm); err != nil {
			return nil, 0, false, err
		}
		total = len(hits) // of those examined
	}
	return hits, total, capped, nil
}

// confirm keeps the hits whose message really matches: the index found its words and CJK
// pairs, the literal check finds them together.
func (a *Archive) confirm(cat *catalog, hits []hit, p parsed, anyTerm bool) ([]hit, error) {
	// one store at a time, read into one buffer: its hits are confirmed before the next is read
	var streams []string
	byStream := map[string][]int{}
	for i, h := range hits {
		if _, ok := byStream[h.stream]; !ok {
			streams = append(streams, h.stream)
		}
		byStream[h.stream] = append(byStream[h.stream], i)
	}
	keep := make([]bool, len(hits))
	var buf []byte
	var lines storeLines
	for _, stream := range streams {
		var err error
		buf, lines, err = a.readStoreInto(stream, cat.stream(stream).Messages, buf, lines)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, i := range byStream[stream] {
			r, ok := lines.get(hits[i].seq)
			keep[i] = ok && p.t.matcher(r.searchable()).matches(p, anyTerm)
		}
	}
	out := hits[:0]
	for i, h := range hits {
		if keep[i] {
			out = append(out, h)
		}
	}
	return out, nil
}

// group is one session's hits.
type group struct {
	sess  *Session
	hits  []hit
	score float64
}

// rank groups hits by session and orders the sessions: by hits weighted by what kind of
// message they are in, times recency (or newest first, with Recent).
func rank(cat *catalog, hits []hit, q Query) []*group {
	by := map[string]*group{}
	for _, h := range hits {
		s := cat.session(cat.stream(h.stream).Session)
		g := by[s.Key]
		if g == nil {
			g = &group{sess: s}
			by[s.Key] = g
		}
		g.hits = append(g.hits, h)
		g.score += weights[h.class]
	}
	out := make([]*group, 0, len(by))
	for _, g := range by {
		age := q.Now.Sub(g.sess.Updated)
		if age < 0 {
			age = 0
		}
		g.score *= 0.5 + 0.5*math.Exp2(-float64(age)/float64(halfLife))
		g.score = math.Round(g.score*100) / 100
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if q.Recent && !a.sess.Updated.Equal(b.sess.Updated) {
			return a.sess.Updated.After(b.sess.Updated)
		}
		if a.score != b.score {
			return a.score > b.score
		}
		if !a.sess.Updated.Equal(b.sess.Updated) {
			return a.sess.Updated.After(b.sess.Updated)
		}
		return a.sess.Key < b.sess.Key
	})
	return out
}

// minShown is the least of a message worth showing when the budget runs out.
const minShown = 40

// budget is what is left of --budget-chars.
type budget struct {
	left    int
	reached bool
}

// span is a window being chosen.
type span struct {
	stream   string
	from, to int
}

// evidence chooses a session's windows around its best hits and reads their messages.
func (a *Archive) evidence(cat *catalog, g *group, p parsed, q Query, b *budget) (SessionHit, error) {
	s := g.sess
	sh := SessionHit{Session: s.ID, Harness: s.Harness, Project: s.Project, CWD: s.CWD, Branch: s.Branch,
		Started: s.Started, Updated: s.Updated, Messages: s.Messages, Hits: len(g.hits), Score: g.score, Windows: []Window{}}
	best := append([]hit(nil), g.hits...)
	sort.SliceStable(best, func(i, j int) bool {
		x, y := best[i], best[j]
		if weights[x.class] != weights[y.class] {
			return weights[x.class] > weights[y.class]
		}
		if x.score != y.score {
			return x.score > y.score
		}
		if x.stream != y.stream {
			return x.stream < y.stream
		}
		return x.seq < y.seq
	})
	isHit := map[span]bool{}
	for _, h := range g.hits {
		isHit[span{h.stream, h.seq, h.seq}] = true
	}
	// around each best hit not shown yet, a window; one close to another joins it, as long
	// as the two stay within twice a window's length
	longest := 2 * (q.Before + q.After + 1)
	var spans []span
	for _, h := range best {
		n := cat.stream(h.stream).Messages
		w := span{h.stream, max(0, h.seq-q.Before), min(n-1, h.seq+q.After)}
		placed := false
		for i := range spans {
			o := &spans[i]
			if o.stream != w.stream {
				continue
			}
			if h.seq >= o.from && h.seq <= o.to {
				placed = true // already shown
				break
			}
			if w.from <= o.to+1 && o.from <= w.to+1 && max(o.to, w.to)-min(o.from, w.from) < longest {
				o.from, o.to = min(o.from, w.from), max(o.to, w.to)
				placed = true
				break
			}
		}
		if !placed && len(spans) < q.WindowsPerSession {
			spans = append(spans, w)
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		x, y := spans[i], spans[j]
		xa, ya := cat.stream(x.stream).Agent, cat.stream(y.stream).Agent
		if xa != ya {
			return xa < ya // the main transcript first
		}
		return x.from < y.from
	})
	for i := 1; i < len(spans); i++ {
		if prev := &spans[i-1]; prev.stream == spans[i].stream && spans[i].from <= prev.to+1 {
			prev.to = max(prev.to, spans[i].to)
			spans = append(spans[:i], spans[i+1:]...)
			i--
		}
	}
	lines := map[string]storeLines{}
	for i, w := range spans {
		if b.reached {
			sh.Omitted = len(spans) - i
			break
		}
		l, ok := lines[w.stream]
		if !ok {
			var err error
			l, err = a.readStore(w.stream, cat.stream(w.stream).Messages)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return sh, err
			}
			lines[w.stream] = l
		}
		// a window that starts on a tool's output also shows the call
		if first, ok := l.get(w.from); ok && first.Kind == kindResult && w.from > 0 {
			if call, ok := l.get(w.from - 1); ok && call.Kind == kindCall && call.Call == first.Call {
				w.from--
			}
		}
		win := Window{Subagent: cat.stream(w.stream).Agent, From: w.from, To: w.from - 1, Messages: []Message{}}
		for seq := w.from; seq <= w.to && !b.reached; seq++ {
			r, ok := l.get(seq)
			if !ok {
				continue
			}
			if b.left < minShown {
				b.reached = true // a few characters of a message show nothing
				break
			}
			win.Messages = append(win.Messages, show(r, isHit[span{w.stream, seq, seq}], p, q, b))
			win.To = seq
		}
		if len(win.Messages) > 0 {
			sh.Windows = append(sh.Windows, win)
		}
	}
	return sh, nil
}

// show cuts a record to the budgets: its own (per message, per tool message), then what is
// left of the total. A hit is cut around where it matched when that is not near its start
// or end.
func show(r record, isHit bool, p parsed, q Query, b *budget) Message {
	m := Message{Seq: r.Seq, Role: r.Role, Kind: r.Kind, Tool: r.Tool, Error: r.Error, ExitCode: r.Exit,
		Time: r.Time, Sidechain: r.Side, Hit: isHit}
	limit := q.MessageChars
	if r.Role == roleTool {
		limit = q.ToolMessageChars
	}
	focus := func(s string) int {
		if !isHit {
			return -1
		}
		return where(s, p)
	}
	// the stores hold redacted text; redacting again what is shown costs little and
	// catches what an older version of the patterns missed
	input, c1 := cut(r.Input, q.ToolMessageChars, focus(r.Input))
	text, c2 := cut(r.Text, limit, focus(r.Text))
	input, text = redact.String(input), redact.String(text)
	n := utf8.RuneCountInString(input) + utf8.RuneCountInString(text)
	if n > b.left {
		// the last message shown: what is left of the budget, shared as the message is
		b.reached = true
		keepIn := b.left * utf8.RuneCountInString(input) / max(1, n)
		var d1, d2 int
		input, d1 = cut(input, keepIn, -1)
		text, d2 = cut(text, b.left-keepIn, -1)
		c1, c2 = c1+d1, c2+d2
		n = utf8.RuneCountInString(input) + utf8.RuneCountInString(text)
	}
	b.left -= min(n, b.left)
	if b.left == 0 {
		b.reached = true
	}
	m.Input, m.Text, m.Cut = input, text, c1+c2
	return m
}

// where returns the position (in characters) in s of the first match of any term of p, -1
// when none is found as typed.
func where(s string, p parsed) int {
	lower := strings.ToLower(s)
	best := -1
	for _, t := range p.terms() {
		needles := []string{t.literal, strings.ToLower(t.raw)}
		needles = append(needles, t.text...)
		for _, n := range needles {
			if n == "" {
				continue
			}
			if i := strings.Index(lower, n); i >= 0 && (best < 0 || i < best) {
				best = i
			}
		}
	}
	if best < 0 {
		return -1
	}
	return utf8.RuneCountInString(lower[:best])
}

// cut shortens s to limit characters (plus markers): the middle goes, or, when focus (a
// character position) would go with it, the text on both sides of an excerpt around focus.
// It returns the characters left out.
func cut(s string, limit, focus int) (string, int) {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0
	}
	if limit <= 0 {
		return "", n
	}
	rs := []rune(s)
	head := limit / 2
	tail := limit - head
	margin := min(20, head/2) // room for the match itself
	if focus < 0 || focus+margin <= head || focus >= n-tail {
		return string(rs[:head]) + marker(n-limit) + string(rs[n-tail:]), n - limit
	}
	// head, an excerpt centred on the match, tail
	h, t := limit/4, limit/4
	e := limit - h - t
	from := max(h, focus-e/3)
	to := min(n-t, from+e)
	from = max(h, to-e)
	return string(rs[:h]) + marker(from-h) + string(rs[from:to]) + marker(n-t-to) + string(rs[n-t:]), n - limit
}

func marker(n int) string {
	if n <= 0 {
		return ""
	}
	return " [… " + formatInt(n) + " chars cut …] "
}
