package drain

// Substance: whether a proposal that looks like an existing learning says anything the
// learning does not. The worker merges a proposal into a learning ("seen again": the
// proposal's text is dropped) only when it does not; otherwise the proposal is a learning of
// its own, or supersedes the old one when the extractor says so. A tester found "feature
// flag ledger_v2 disabled" merged into "… enabled": title overlap and an extractor's
// duplicate_of say that two texts are about the same thing, not that they say the same.
//
// A text is read as a sequence of tokens: code spans and fenced lines, values (URLs, paths,
// flags, KEY=value settings, versions, numbers, durations, sizes and percentages in one
// unit, identifiers such as ledger_v2 or errors.Is, and names: well-known tools,
// environments, branches, platforms), and words. A proposal differs in substance when
//
//   - it has a value or code the learning has nowhere (a value the learning has and the
//     proposal lacks is not a difference: the proposal then adds nothing);
//   - a word, value or polarity axis (enabled/disabled, true/false, on/off, allow/deny,
//     before/after X, increase/decrease, …) that both texts use is said one way only in
//     each, and the two ways are opposite: negated in one and not in the other, or at the
//     two ends of an axis. A negation ("not", "never", "don't", "without", "instead of",
//     "no longer", "prefer … over", …) is recorded on its head, the first word it covers
//     ("don't USE npm in the cart tests"), and ends at the next preposition or conjunction
//     after it or at the end of the clause; a word said both ways in one text is not
//     compared;
//   - or, failing those, the two titles are the same words but for a slot of one or two
//     plain words after an article, a preposition, a copula or a verb of choice ("use the EU
//     region" and "use the US region").
//
// The labelled suites in substance_test.go give the measured accuracy; what the rules do
// not see (a plain-word swap elsewhere in a sentence, two texts that order the same facts
// differently around a polarity word) is listed there with the cases.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

// lesson is what a learning or a proposal says.
type lesson struct {
	Title, Body string
	// evidence: the body records what a session showed (the heuristic's failed commands,
	// their output, the user's words), so the title alone states the lesson. Outputs and
	// exit codes differ from one session to the next while the lesson stays the same.
	evidence bool
}

func (p Proposal) lesson() lesson { return lesson{Title: p.Title, Body: p.Body, evidence: p.evidence} }

// sameSubstance reports whether next says nothing of substance that old does not; when it
// does, why names the differences found.
func sameSubstance(old, next lesson) (same bool, why string) {
	o := readClaims(old.Title+"\n"+old.Body, oldProseLimit)
	text := next.Title
	if !next.evidence {
		text += "\n" + next.Body
	}
	n := readClaims(text, len(text))
	var diffs, added, negates, unnegates []string
	for _, v := range n.values {
		if !o.has(v) {
			added = append(added, fmt.Sprintf("%s %q", v.kind, v.raw))
		}
	}
	for _, k := range n.order {
		np, op := n.polar[k], o.polar[k]
		switch {
		case op == nil || np.mask == both || op.mask == both || np.mask == op.mask:
		case k.axis:
			diffs = append(diffs, fmt.Sprintf("it says %q where the existing learning says %q", np.said, op.said))
		case np.mask == negated:
			negates = append(negates, strconv.Quote(np.said))
		default:
			unnegates = append(unnegates, strconv.Quote(op.said))
		}
	}
	if len(added) > 0 {
		diffs = append([]string{"it has " + clipList(added) + " that the existing learning does not"}, diffs...)
	}
	if len(negates) > 0 {
		diffs = append(diffs, "it negates "+clipList(negates)+", which the existing learning does not")
	}
	if len(unnegates) > 0 {
		diffs = append(diffs, "the existing learning negates "+clipList(unnegates)+", it does not")
	}
	if len(diffs) == 0 {
		was, is, ok := swappedSlot(old.Title, next.Title)
		if !ok {
			return true, ""
		}
		diffs = append(diffs, fmt.Sprintf("it says %q where the existing learning says %q", is, was))
	}
	return false, clipList(diffs)
}

// swappedSlot finds two titles that are the same words but for one slot of one or two words
// after an article, a preposition or a copula ("use the EU region …" and "use the US region
// …", "log level is debug" and "log level is info"): what fills such a slot is a value even
// when it is a plain word. A slot at the start (the imperative verb) or after another word
// is more often a synonym ("deploys need" and "deploys require") and is not counted.
func swappedSlot(oldTitle, newTitle string) (was, is string, ok bool) {
	a, b := titleTokens(oldTitle), titleTokens(newTitle)
	p := 0
	for p < len(a) && p < len(b) && sameToken(a[p], b[p]) {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && sameToken(a[len(a)-1-q], b[len(b)-1-q]) {
		q++
	}
	sa, sb := a[p:len(a)-q], b[p:len(b)-q]
	if p == 0 || len(sa) == 0 || len(sb) == 0 || len(sa) > 2 || len(sb) > 2 {
		return "", "", false
	}
	if before := a[p-1]; !determiners[before] && !boundaries[before] && !copulas[before] && !slotVerbs[before] && !names[before] && !wordPrograms[before] {
		return "", "", false
	}
	if len(index.Analyze(strings.Join(sa, " "))) == 0 || len(index.Analyze(strings.Join(sb, " "))) == 0 {
		return "", "", false // only stop words changed
	}
	for _, t := range append(slices.Clone(sa), sb...) {
		if _, _, isValue := readValue(t, ""); isValue || numberWords[t] != "" {
			return "", "", false // values are compared as values: 3 and three, 1m and 1 minute
		}
	}
	return strings.Join(sa, " "), strings.Join(sb, " "), true
}

// titleTokens are the words of a title, lower case, without the punctuation around them.
func titleTokens(title string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(title)) {
		if t, _ := trimChunk(strings.TrimLeft(f, "(\"'[`")); strings.Trim(t, "`") != "" {
			out = append(out, strings.Trim(t, "`"))
		}
	}
	return out
}

// sameToken: the same word, or two forms of one (test, tests).
func sameToken(a, b string) bool {
	if a == b {
		return true
	}
	sa, sb := index.Analyze(a), index.Analyze(b)
	return len(sa) == 1 && len(sb) == 1 && sa[0] == sb[0]
}

var copulas = setOf("is are was were be been being")

// slotVerbs take a chosen thing for object: "use tabs" and "use spaces" differ. After a
// tool's name (names, wordPrograms) the slot is a subcommand: "npm ci" and "npm install".
var slotVerbs = setOf("use prefer set choose pick call install pin")

// wordPrograms are commands whose names are also English words, so names leaves them out.
var wordPrograms = setOf("git go make node python python3 pip gh")

// clipList joins the first three items of a list, and says how many more there are.
func clipList(items []string) string {
	if len(items) > 3 {
		return strings.Join(items[:3], ", ") + fmt.Sprintf(" and %d more", len(items)-3)
	}
	return strings.Join(items, ", ")
}

// A value or code span found in a text.
type value struct {
	kind string // what it is, for the message: "command", "path", "version", …
	key  string // normalised: 30s and "30 seconds" have one key
	raw  string // as written
	flat string // lower case, spaces collapsed: what is looked for in the other text
}

type polarKey struct {
	name string
	axis bool
}

const (
	affirmed uint8 = 1 << iota
	negated
	both = affirmed | negated
)

type polarity struct {
	mask uint8
	said string // the first word that said it
}

// claims is what a text says, as sameSubstance compares it.
type claims struct {
	values []value
	keys   map[string]bool
	flat   string          // the whole text, lower case, without backticks, spaces collapsed
	words  map[string]bool // its analysed words
	polar  map[polarKey]*polarity
	order  []polarKey
}

// has reports whether the text holds v: the same normalised value, v as written (between
// token boundaries), or, for a two-word slash pair such as requests/minute, both its words.
func (c *claims) has(v value) bool {
	if c.keys[v.key] || containsToken(c.flat, v.flat) {
		return true
	}
	if v.kind == "identifier" && strings.HasSuffix(v.flat, ".js") && plainWord.MatchString(strings.TrimSuffix(v.flat, ".js")) {
		// Node.js, Next.js, Vue.js: the product, which people also call by its first word
		return c.words[firstStem(strings.TrimSuffix(v.flat, ".js"))]
	}
	if v.kind == "path" {
		parts := strings.Split(strings.Trim(v.flat, "/"), "/")
		if len(parts) == 2 && plainWord.MatchString(parts[0]) && plainWord.MatchString(parts[1]) {
			for _, p := range parts {
				for _, w := range index.Analyze(p) {
					if !c.words[w] {
						return false
					}
				}
			}
			return true
		}
	}
	return false
}

func (c *claims) record(k polarKey, neg bool, said string) {
	p := c.polar[k]
	if p == nil {
		p = &polarity{said: said}
		c.polar[k] = p
		c.order = append(c.order, k)
	}
	if neg {
		p.mask |= negated
	} else {
		p.mask |= affirmed
	}
}

func (c *claims) addValue(v value) {
	v.flat = flatten(v.flat)
	if v.flat == "" || c.keys[v.key] {
		return
	}
	c.keys[v.key] = true
	c.values = append(c.values, v)
}

var (
	plainWord  = lazyregexp.New(`^[a-z]+$`)
	codeSpan   = lazyregexp.New("(`+)([^`\n]+?)(`+)")
	italicLine = lazyregexp.New(`^_[^_].*_$`)
	numberRe   = lazyregexp.New(`^\d+(?:[.,]\d+)*$`)
	versionRe  = lazyregexp.New(`^[vV]\d+(?:\.\d+)*(?:[-+][\w.]+)?$`)
	unitRe     = lazyregexp.New(`^(\d+(?:\.\d+)?)([A-Za-z]+|%)$`)
	settingRe  = lazyregexp.New(`^[A-Za-z_][\w.]*=\S+$`)
	flagRe     = lazyregexp.New(`^--?[A-Za-z][\w-]*(?:=\S+)?$`)
	identRe    = lazyregexp.New(`^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_][\w]*)*$`)
	camelRe    = lazyregexp.New(`[a-z][A-Z]`)
)

// oldProseLimit bounds how much of an existing learning's prose is read word by word: 0.4 ms
// for 2 KB here, and a drain compares a proposal with up to 12 candidates. Past it the text
// is still searched for the proposal's values, so a long learning can only make a merge
// less likely.
const oldProseLimit = 16 << 10

// readClaims reads a title and body, its first proseLimit bytes word by word. Lines that are
// entirely in italics are notes about a capture ("_Captured from a … session_"), not part of
// the lesson.
func readClaims(text string, proseLimit int) *claims {
	c := &claims{keys: map[string]bool{}, words: map[string]bool{}, polar: map[polarKey]*polarity{}}
	text = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(text)
	var kept []string
	fence := ""
	for raw := range strings.Lines(text) {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			if fence == "" {
				fence = line[:3]
			} else if strings.HasPrefix(line, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			if line != "" {
				c.addValue(value{kind: "command", key: "code:" + flatten(line), raw: line, flat: line})
			}
			kept = append(kept, line)
			continue
		}
		if italicLine.MatchString(line) {
			continue
		}
		kept = append(kept, line)
		if proseLimit -= len(raw); proseLimit >= 0 {
			c.readLine(strings.TrimLeft(line, ">-*+# "))
		}
	}
	c.flat = flatten(strings.Join(kept, "\n"))
	return c
}

// flatten lower-cases s, drops backticks and collapses spaces.
func flatten(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "`", " "))), " ")
}

// containsToken reports whether needle occurs in hay between token boundaries: not inside a
// longer word, flag or number.
func containsToken(hay, needle string) bool {
	if needle == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(needle)
		if boundaryBefore(hay, start) && boundaryAfter(hay, end) {
			return true
		}
		i = start + 1
	}
}

func tokenByte(b byte) bool {
	return b == '_' || b == '-' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || b >= 0x80
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	b := s[i-1]
	if (b == '.' || b == ',') && i >= 2 && '0' <= s[i-2] && s[i-2] <= '9' {
		return false
	}
	return !tokenByte(b)
}

func boundaryAfter(s string, i int) bool {
	if i == len(s) {
		return true
	}
	b := s[i]
	if (b == '.' || b == ',') && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9' {
		return false
	}
	return !tokenByte(b)
}

// clause is the state of the negation scan within a clause.
type clause struct {
	neg    bool
	scoped int  // words covered by the current negation
	prefer bool // "prefer" was read: "over" then negates what follows
	// pending is a before/after waiting for its object: "run lint before tests" and "run
	// tests after lint" say the same, "migrate before deploying" and "migrate after
	// deploying" do not, so the axis is keyed by the word it orders.
	pending *pendingAxis
}

type pendingAxis struct {
	axis, said string
	negated    bool
}

// endClause records a before/after left without an object and starts a new clause.
func (c *claims) endClause(st *clause) {
	c.flushPending(st)
	*st = clause{}
}

func (c *claims) flushPending(st *clause) {
	if p := st.pending; p != nil {
		st.pending = nil
		c.record(polarKey{name: p.axis, axis: true}, p.negated, p.said)
	}
}

// object gives a pending before/after its object, the word or value key just read.
func (c *claims) object(st *clause, key, said string) {
	if p := st.pending; p != nil {
		st.pending = nil
		c.record(polarKey{name: p.axis + ":" + key, axis: true}, p.negated, p.said+" "+said)
	}
}

// readLine reads one line of prose: its values into c.values, its words and values with
// their polarity into c.polar.
func (c *claims) readLine(line string) {
	var spans []string
	line = codeSpan.ReplaceAllStringFunc(line, func(m string) string {
		spans = append(spans, strings.Trim(m, "` "))
		return " \x00" + strconv.Itoa(len(spans)-1) + "\x00 "
	})
	chunks := strings.Fields(line)
	var st clause
	for i := 0; i < len(chunks); i++ {
		chunk := chunks[i]
		lead := strings.TrimLeft(chunk, `("'[`)
		if len(lead) < len(chunk) {
			c.endClause(&st)
		}
		tok, endsClause := trimChunk(lead)
		next := ""
		if i+1 < len(chunks) && !endsClause {
			next, _ = trimChunk(strings.TrimLeft(chunks[i+1], `("'[`))
		}
		if tok == "" || tok == "-" || tok == "—" || tok == "–" {
			c.endClause(&st)
			continue
		}
		if strings.HasPrefix(tok, "\x00") {
			if k, err := strconv.Atoi(strings.Trim(tok, "\x00")); err == nil && k < len(spans) {
				c.code(&st, spans[k])
			}
		} else if consumed := c.token(&st, tok, next); consumed {
			i++
		}
		if endsClause {
			c.endClause(&st)
		}
	}
	c.endClause(&st)
}

// trimChunk strips the punctuation around a whitespace-separated chunk and reports whether
// it ends a clause.
func trimChunk(s string) (tok string, endsClause bool) {
	t := strings.TrimRight(s, `,;:!?)"']`)
	if strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "..") {
		t = strings.TrimSuffix(t, ".")
	}
	return t, len(t) < len(s)
}

// code records a code span: a value, and a word for its polarity ("use `pnpm`, not `npm`").
func (c *claims) code(st *clause, span string) {
	f := flatten(span)
	if f == "" {
		return
	}
	if plainWord.MatchString(f) && !names[f] {
		c.word(st, f, f)
		return
	}
	v := value{kind: "code", key: "code:" + f, raw: span, flat: span}
	if names[f] {
		v = value{kind: "name", key: "name:" + f, raw: span, flat: span}
	}
	c.addValue(v)
	c.mark(st, polarKey{name: v.key}, span)
}

// token reads one token (not a code span); consumed says that it used next too (a unit after
// a number, "of" after "instead").
func (c *claims) token(st *clause, tok, next string) (consumed bool) {
	if v, used, ok := readValue(tok, next); ok {
		c.addValue(v)
		c.mark(st, polarKey{name: v.key}, v.raw)
		return used
	}
	w := strings.ToLower(tok)
	if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		if st.neg {
			st.scoped++ // "prefer errors.Is over == for …": the negation covers "=="
		}
		return false
	}
	switch {
	case fillers[w]:
		return false
	case (w == "instead" && strings.EqualFold(next, "of")) || (w == "rather" && strings.EqualFold(next, "than")) ||
		(w == "no" && strings.EqualFold(next, "longer")):
		st.neg, st.scoped = !st.neg, 0
		return true
	case w == "prefer" || w == "prefers" || w == "preferred":
		st.prefer = true
	case w == "over" && st.prefer:
		// "prefer X over Y" says not Y
		st.neg, st.scoped, st.prefer = !st.neg, 0, false
		return false
	case negators[w] || strings.HasSuffix(w, "n't"):
		st.neg, st.scoped = !st.neg, 0
		return false
	}
	if boundaries[w] {
		if st.neg && st.scoped > 0 {
			st.neg = false
		}
	}
	if a, ok := axes[w]; ok {
		if orderWords[w] {
			c.flushPending(st)
			st.pending = &pendingAxis{axis: a.axis, said: w, negated: st.neg == a.pos}
			if st.neg {
				st.scoped++
			}
		} else {
			c.say(st, polarKey{name: a.axis, axis: true}, st.neg == a.pos, w)
		}
		return false
	}
	if boundaries[w] || determiners[w] {
		return false
	}
	if n, ok := numberWords[w]; ok {
		v := value{kind: "number", key: "num:" + n, raw: tok, flat: n}
		c.addValue(v)
		c.mark(st, polarKey{name: v.key}, tok)
		return false
	}
	if names[w] {
		v := value{kind: "name", key: "name:" + w, raw: tok, flat: w}
		c.addValue(v)
		c.mark(st, polarKey{name: v.key}, tok)
		return false
	}
	c.word(st, w, tok)
	return false
}

// word records a word's stems with the clause's polarity.
func (c *claims) word(st *clause, w, said string) {
	stems := index.Analyze(w)
	if len(stems) == 0 {
		return
	}
	for _, s := range stems {
		c.words[s] = true
	}
	c.object(st, stems[0], said)
	c.say(st, polarKey{name: stems[0]}, st.neg, said)
	for _, s := range stems[1:] {
		c.record(polarKey{name: s}, st.neg, said)
	}
}

// mark records a value or code span with the clause's polarity.
func (c *claims) mark(st *clause, k polarKey, said string) {
	c.object(st, k.name, said)
	c.say(st, k, st.neg, said)
}

// say records k, negated or not. Within a negation only its head, the first word it
// covers, is recorded: "never push directly to main" and "don't push to main directly"
// both negate "push", and where a negation ends is not known well enough to say that
// "directly" is negated in one and not in the other.
func (c *claims) say(st *clause, k polarKey, negated bool, said string) {
	if st.neg {
		st.scoped++
		if st.scoped > 1 {
			return
		}
	}
	c.record(k, negated, said)
}

// readValue reads tok (and, for a number followed by its unit, next) as a value.
func readValue(tok, next string) (v value, usedNext bool, ok bool) {
	lo := strings.ToLower(tok)
	switch {
	case strings.Contains(tok, "://"):
		return value{kind: "URL", key: "url:" + strings.TrimRight(lo, "/"), raw: tok, flat: tok}, false, true
	case flagRe.MatchString(tok):
		return value{kind: "flag", key: "flag:" + lo, raw: tok, flat: tok}, false, true
	case settingRe.MatchString(tok):
		return value{kind: "setting", key: "set:" + lo, raw: tok, flat: tok}, false, true
	case strings.Contains(tok, "/") && len(strings.Trim(tok, "/.")) > 0:
		p := strings.TrimPrefix(lo, "./")
		return value{kind: "path", key: "path:" + strings.TrimSuffix(p, "/"), raw: tok, flat: tok}, false, true
	case versionRe.MatchString(tok):
		return value{kind: "version", key: "num:" + strings.TrimLeft(lo, "v"), raw: tok, flat: tok}, false, true
	case numberRe.MatchString(tok):
		n := strings.ReplaceAll(tok, ",", "")
		if q, ok := quantity(n, next); ok {
			return value{kind: q.kind, key: q.key, raw: tok + " " + next, flat: tok + " " + next}, true, true
		}
		kind := "number"
		if strings.Count(n, ".") > 0 {
			kind = "version"
		}
		return value{kind: kind, key: "num:" + n, raw: tok, flat: tok}, false, true
	}
	if m := unitRe.FindStringSubmatch(tok); m != nil {
		if q, ok := quantity(m[1], m[2]); ok {
			return value{kind: q.kind, key: q.key, raw: tok, flat: tok}, false, true
		}
	}
	if identRe.MatchString(tok) && identifier(tok) {
		return value{kind: "identifier", key: "id:" + lo, raw: tok, flat: tok}, false, true
	}
	if strings.ContainsAny(tok, "0123456789") && !plainWord.MatchString(lo) {
		return value{kind: "value", key: "val:" + lo, raw: tok, flat: tok}, false, true
	}
	return value{}, false, false
}

// identifier: a token that reads as a name in code: snake_case, camelCase, dotted, or
// letters with digits (ledger_v2, maxRetries, errors.Is, utf8). Abbreviations such as "e.g"
// are not.
func identifier(tok string) bool {
	if strings.ContainsAny(tok, "_0123456789") || camelRe.MatchString(tok) {
		return true
	}
	if strings.Contains(tok, ".") || strings.Contains(tok, "::") {
		for _, p := range strings.FieldsFunc(tok, func(r rune) bool { return r == '.' || r == ':' }) {
			if len(p) > 1 {
				return true
			}
		}
	}
	return false
}

type quant struct{ kind, key string }

// quantity reads a number and its unit as a duration or a size, normalised: 30s, 30 sec and
// 30 seconds are one value, as are 4GB, 4 GiB and 4G.
func quantity(num, unit string) (quant, bool) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return quant{}, false
	}
	if unit == "%" || strings.EqualFold(unit, "percent") {
		return quant{"percentage", "pct:" + strconv.FormatFloat(f, 'g', -1, 64)}, true
	}
	if secs, ok := durationUnits[strings.ToLower(unit)]; ok && unit != "M" {
		return quant{"duration", "dur:" + strconv.FormatFloat(f*secs, 'g', -1, 64)}, true
	}
	u := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "b"))
	u = strings.TrimSuffix(u, "i")
	if u == "byte" || u == "bytes" || u == "" && (unit == "B" || unit == "b") {
		u = ""
	}
	if exp, ok := sizeUnits[u]; ok && (unit != "m" && unit != "b" || u == "") {
		return quant{"size", "size:" + strconv.FormatFloat(f, 'g', -1, 64) + "e" + strconv.Itoa(exp)}, true
	}
	return quant{}, false
}

var durationUnits = map[string]float64{
	"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
	"d": 86400, "day": 86400, "days": 86400, "w": 604800, "week": 604800, "weeks": 604800,
}

// sizeUnits: the power of 1024 of a unit; "4GB" and "4GiB" are read as the same amount,
// which is how people write memory limits.
var sizeUnits = map[string]int{"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}

// orderWords are the axis words that take an object (see clause.pending).
var orderWords = setOf("before after")

// numberWords are read as numbers ("two spaces" is "2 spaces"); "one" is left out: it is
// more often a pronoun ("the old one") than a count.
var numberWords = map[string]string{"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "hundred": "100"}

// firstStem is the first analysed word of w, or "".
func firstStem(w string) string {
	if stems := index.Analyze(w); len(stems) > 0 {
		return stems[0]
	}
	return ""
}

// negators reverse the polarity of the words after them.
var negators = setOf("not no never cannot without none nothing neither nor avoid avoids avoided avoiding stop stops stopped stopping except")

// boundaries are prepositions and conjunctions: a negation ends at the first of them after a
// word it covers ("don't use npm | in the cart tests").
var boundaries = setOf("in on at for with to from by into onto of when whenever if unless because since until and or as than while during via per so but then where after before over under through across inside outside within like")

var determiners = setOf("the a an this that these those any some your our its their my")

// fillers change nothing a negation covers: "don't ever use npm" negates "use".
var fillers = setOf("always ever really just even yet also usually necessarily actually simply please only")

// axes: words at the two ends of one polarity axis; pos is the end a plain use affirms.
var axes = map[string]struct {
	axis string
	pos  bool
}{}

func init() {
	for _, a := range []struct{ axis, pos, neg string }{
		{"enabled", "enable enabled enables enabling", "disable disabled disables disabling"},
		{"on", "on", "off"},
		{"true", "true yes", "false"},
		{"allowed", "allow allowed allows allowing permit permits permitted", "deny denies denied disallow disallows disallowed forbid forbids forbidden prohibit prohibited"},
		{"accepted", "accept accepts accepted", "reject rejects rejected"},
		{"before", "before earlier", "after later"},
		{"more", "increase increases increased increasing raise raises raised more higher larger bigger greater above max maximum upper",
			"decrease decreases decreased decreasing reduce reduces reduced lower lowered less fewer smaller below min minimum"},
		{"included", "include includes included including", "exclude excludes excluded excluding"},
		{"added", "add adds added adding", "remove removes removed removing delete deletes deleted deleting"},
		{"shown", "show shows shown", "hide hides hidden"},
		{"locked", "lock locks locked locking", "unlock unlocks unlocked unlocking"},
		{"open", "open opens opened", "close closes closed"},
		{"public", "public", "private"},
		{"sync", "sync synchronous synchronously", "async asynchronous asynchronously"},
		{"required", "required mandatory", "optional"},
		{"valid", "valid", "invalid"},
		{"inclusive", "inclusive", "exclusive"},
		{"ascending", "ascending asc", "descending desc"},
		{"uppercase", "uppercase upper-case", "lowercase lower-case"},
		{"first", "first", "last"},
		{"parallel", "parallel parallelly concurrently concurrent", "serial serially sequential sequentially"},
		{"works", "works worked succeed succeeds succeeded pass passes passed", "fail fails failed failing breaks broke broken"},
		{"automatic", "automatic automatically auto", "manual manually"},
		{"local", "local locally", "remote remotely"},
		{"safe", "safe", "unsafe"},
		{"supported", "supported", "unsupported"},
	} {
		for _, w := range strings.Fields(a.pos) {
			axes[w] = struct {
				axis string
				pos  bool
			}{a.axis, true}
		}
		for _, w := range strings.Fields(a.neg) {
			axes[w] = struct {
				axis string
				pos  bool
			}{a.axis, false}
		}
	}
	for t := range proseTools {
		names[t] = true
	}
}

// names are words that name one thing among alternatives: tools, environments, branches,
// platforms. A proposal naming one the learning does not differs in substance.
var names = setOf(`staging stage production prod dev development qa uat preprod sandbox canary
	main master develop trunk linux macos darwin windows ios android`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
