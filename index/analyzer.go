package index

import (
	"maps"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// analyzerName is the analyzer of every text field, of a search's words and of a recall's
// query: one code path, so that what a prompt says and what a learning holds are cut into
// the same words.
//
// It is the English analyzer (possessive, lower case, stop words, Porter stemming) over a
// tokenizer that knows code. An identifier — load_to_snowflake, NEXT_PUBLIC_API_URL,
// r.PathValue, pipeline-state, internal/auth/redirect.go, localhost:5433, PathValue — is kept
// whole (lower case, not stemmed) and also cut into its parts: paths into segments, then at
// colons and @, dots (so a file name gives its stem and its extension), dashes and
// underscores, and camelCase humps. Each level that is itself compound is kept whole too, so
// `internal/auth/redirect.go` gives internal/auth/redirect.go, internal, auth, redirect.go,
// redirect and go. The unicode tokenizer bleve's English analyzer uses kept such an
// identifier as one word only, so a search for "pipeline" missed pipeline_state and a prompt
// saying "PathValue" missed a learning about r.PathValue.
const analyzerName = "reflect"

const tokenizerName = "reflect_code"

// compoundName is the filter that says a verb and its particle as one word (compound).
const compoundName = "reflect_compound"

func init() {
	// bleve names analysis components in a process-wide registry; an index built with this
	// analyzer can only be opened by a process that registered it.
	if err := registry.RegisterTokenizer(tokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return codeTokenizer{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterTokenFilter(compoundName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return compoundFilter{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterAnalyzer(analyzerName, func(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		// built once per process: bleve builds a mapping's analyzers at every open of an
		// index (its mapping is read back from the index), and loading the stop words was a
		// tenth of an open (BenchmarkStartHook, pprof); what it builds holds no state
		built.Lock()
		defer built.Unlock()
		if built.analyzer != nil {
			return built.analyzer, nil
		}
		tok, err := cache.TokenizerNamed(tokenizerName)
		if err != nil {
			return nil, err
		}
		var filters []analysis.TokenFilter
		for _, name := range []string{en.PossessiveName, lowercase.Name, compoundName, en.StopName, porter.Name} {
			f, err := cache.TokenFilterNamed(name)
			if err != nil {
				return nil, err
			}
			filters = append(filters, f)
		}
		built.analyzer = &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}
		return built.analyzer, nil
	}); err != nil {
		panic(err)
	}
}

// built is the analyzer, once built.
var built struct {
	sync.Mutex
	analyzer analysis.Analyzer
}

// codeTokenizer cuts text into words and identifiers (see analyzerName). A whole identifier
// is a token of type wholeType; its parts are ordinary words. An identifier joined by
// punctuation is kept as written (a KeyWord, which the stemmer leaves alone); a camelCase one
// is stemmed like the word it may be typed as, so "pathvalue" finds PathValue.
type codeTokenizer struct{}

// wholeType marks an identifier kept whole (bleve's token types only matter to its own
// tokenizers; this one is not theirs).
const wholeType = analysis.Shingle

// maxWhole is the longest identifier kept whole: longer runs (URLs with queries, base64)
// are only cut into parts.
const maxWhole = 80

func (codeTokenizer) Tokenize(text []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 0
	emit := func(start, end int, whole, joined bool) {
		if end-start < 2 && !whole {
			return // a lone letter or digit says nothing
		}
		pos++
		typ := analysis.AlphaNumeric
		if whole {
			typ = wholeType
		}
		out = append(out, &analysis.Token{Start: start, End: end, Term: append([]byte(nil), text[start:end]...),
			Position: pos, Type: typ, KeyWord: joined})
	}
	for i := 0; i < len(text); {
		start, end := scanRun(text, i)
		if start < 0 {
			break
		}
		split(text, start, end, 0, emit)
		i = end
	}
	return out
}

// scanRun finds the next run of word characters and the joiners between them, from i; it
// returns -1 when there is none. Joiners at either end of the run are left out.
func scanRun(text []byte, i int) (int, int) {
	start := -1
	for i < len(text) {
		r, n := utf8.DecodeRune(text[i:])
		if isWordRune(r) {
			start = i
			break
		}
		i += n
	}
	if start < 0 {
		return -1, -1
	}
	end := start
	for i < len(text) {
		r, n := utf8.DecodeRune(text[i:])
		switch {
		case isWordRune(r):
			i += n
			end = i
		case isJoiner(r) || isApostrophe(r):
			// a joiner belongs to the run only between word characters: "file." ends a sentence
			next, _ := utf8.DecodeRune(text[i+n:])
			if i+n >= len(text) || !isWordRune(next) && !isJoiner(next) {
				return start, end
			}
			i += n
		default:
			return start, end
		}
	}
	return start, end
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_'
}

// isJoiner: the characters that hold an identifier together, in the order split cuts at
// them (underscore is a word rune that split also cuts at).
func isJoiner(r rune) bool {
	switch r {
	case '/', '\\', ':', '@', '.', '-':
		return true
	}
	return false
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// levels are the joiners split cuts at, outermost first: paths, then host:port, scope::name
// and user@host, then dotted names and file extensions, then dashes and underscores.
var levels = []string{`/\`, ":@", ".", "-_"}

// split emits text[start:end] cut at the joiners of level and below: whole when it holds
// one of them (or camelCase humps), then each part in turn.
func split(text []byte, start, end, level int, emit func(start, end int, whole, joined bool)) {
	for ; level < len(levels); level++ {
		if !containsAny(text[start:end], levels[level]) {
			continue
		}
		if end-start <= maxWhole {
			emit(start, end, true, true)
		}
		from := start
		for i := start; i <= end; i++ {
			if i == end || isAny(text[i], levels[level]) {
				if s, e := trimJoiners(text, from, i); s < e {
					split(text, s, e, level+1, emit)
				}
				from = i + 1
			}
		}
		return
	}
	humps := camelHumps(text[start:end])
	if len(humps) < 2 || containsApostrophe(text[start:end]) {
		emit(start, end, false, false)
		return
	}
	emit(start, end, true, false)
	for i, h := range humps {
		e := end
		if i+1 < len(humps) {
			e = start + humps[i+1]
		}
		emit(start+h, e, false, false)
	}
}

// camelHumps returns where the humps of a camelCase word start (PathValue: 0, 4;
// HTTPServer: 0, 4; parseJSON: 0, 5), or nil when it is not one: fewer than two humps of
// two letters or more (OAuth, iOS and Go are words).
func camelHumps(w []byte) []int {
	if pluralAcronym(w) {
		return nil
	}
	var starts []int
	var prev rune
	for i, r := range string(w) {
		switch {
		case i == 0:
			starts = append(starts, 0)
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			starts = append(starts, i)
		case unicode.IsLower(r) && unicode.IsUpper(prev) && len(starts) > 0:
			// HTTPServer: the hump starts at the capital before the first lower-case letter
			at := i - utf8.RuneLen(prev)
			if at > starts[len(starts)-1] {
				starts = append(starts, at)
			}
		}
		prev = r
	}
	long := 0
	for k, s := range starts {
		e := len(w)
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		if e-s >= 2 {
			long++
		}
	}
	if long < 2 {
		return nil
	}
	return starts
}

// pluralAcronym: capitals then a lone s (APIs, DAGs, URLs, JWTs, CPUs) is an acronym's
// plural, a word, not camelCase: cut at its humps it gave ap, da, ur and ts (TypeScript's
// abbreviation) as words of the text.
func pluralAcronym(w []byte) bool {
	n := len(w)
	if n < 3 || w[n-1] != 's' {
		return false
	}
	for _, c := range w[:n-1] {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

func trimJoiners(text []byte, s, e int) (int, int) {
	for s < e && (isAny(text[s], `/\:@.-_`) || text[s] == '\'') {
		s++
	}
	for e > s && (isAny(text[e-1], `/\:@.-_`) || text[e-1] == '\'') {
		e--
	}
	return s, e
}

func isAny(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

func containsAny(b []byte, set string) bool {
	for _, c := range b {
		if isAny(c, set) {
			return true
		}
	}
	return false
}

func containsApostrophe(b []byte) bool {
	for _, r := range string(b) {
		if isApostrophe(r) {
			return true
		}
	}
	return false
}

// compoundFilter says an irregular verb form as its verb (irregular), a British spelling as
// the American one (british), a derived noun as its verb (derived), a word the stemmer would fold into another one unstemmed
// (unstemmed), and a phrasal verb as
// the one word it is also written as: "log in",
// "logged in" and "login"; "timed out" and "timeout"; "set up" and "setup"; "rolled back"
// and "rollback". The particle is a stop word, so "the job timed out" was held as "time" and
// never met a learning about a timeout, nor "signing in" one about a login. The verb and its
// particle become the compound, in their place (the verb alone means something else: "log",
// "time", "set"); the words of an identifier are left alone ("sign-in" is already whole).
type compoundFilter struct{}

// compounds maps a verb's forms, then its particle, to the word both are also written as
// (a compound with a dash where that is how it is written: sign-in). This table, irregular and
// british are built on first use: as package variables they were most of the index package's
// 0.07–0.09 ms of init (79 KB) in every reflect-engine process, history search and version
// included (GODEBUG=inittrace=1; now 0.01 ms).
var compounds = sync.OnceValue(func() map[string]map[string]string {
	m := map[string]map[string]string{}
	for _, c := range []struct{ forms, particle, compound string }{
		{"log logs logged logging", "in", "login"},
		{"log logs logged logging", "out", "logout"},
		{"sign signs signed signing", "in", "sign-in"},
		{"sign signs signed signing", "out", "sign-out"},
		{"sign signs signed signing", "up", "sign-up"},
		{"time times timed timing", "out", "timeout"},
		{"set sets setting", "up", "setup"},
		{"roll rolls rolled rolling", "back", "rollback"},
		{"roll rolls rolled rolling", "out", "rollout"},
		{"clean cleans cleaned cleaning", "up", "cleanup"},
		{"back backs backed backing", "up", "backup"},
		{"shut shuts shutting", "down", "shutdown"},
		{"start starts started starting", "up", "startup"},
		{"tear tears tore torn tearing", "down", "teardown"},
		{"fall falls fell falling", "back", "fallback"},
	} {
		for _, f := range strings.Fields(c.forms) {
			if m[f] == nil {
				m[f] = map[string]string{}
			}
			m[f][c.particle] = c.compound
		}
	}
	return m
})

// irregular maps the irregular past forms of verbs said of code and builds to the verb, which
// the stemmer does not (and a few regular forms it cuts wrong): "the build broke", "waitFor hung", "emails sent twice", "lost shuffle
// data" say break, hang, send and lose. Forms that are also other words people use of code
// are left out (found: "not found"; left: a left join; fed, led, met, read, set, shut, split).
func irregular() map[string]string {
	return map[string]string{
		"broke": "break", "broken": "break", "hung": "hang", "sent": "send", "paid": "pay",
		"built": "build", "rebuilt": "rebuild", "lost": "lose", "wrote": "write", "written": "write",
		"rewrote": "rewrite", "rewritten": "rewrite", "froze": "freeze", "frozen": "freeze",
		"threw": "throw", "thrown": "throw", "kept": "keep", "began": "begin", "begun": "begin",
		"chose": "choose", "chosen": "choose", "spent": "spend", "caught": "catch", "drew": "draw",
		"drawn": "draw", "forgot": "forget", "forgotten": "forget", "hidden": "hide",
		"overrode": "override", "overridden": "override", "undid": "undo", "undone": "undo",
		"ran": "run", "took": "take", "taken": "take", "gave": "give", "given": "give",
		// regular, but cut by the stemmer apart from their verb: it undoubles the last consonant
		// of "added" (ad) and "diffed" (dif) but not of add and diff
		"added": "add", "adding": "add", "diffed": "diff", "diffing": "diff",
	}
}

// derived maps derived forms the Porter stemmer cuts apart from their verb to that verb, which
// it then stems with the verb's own forms: its -y step keeps the y of a noun (expiry is expiri,
// delivery deliveri, summary summari) that the verb's forms drop (expire, expired, expiration:
// expir), its -ify step keeps the i of the verb (verify, verified: verifi) that the -ication
// noun drops (verification: verif), and it leaves failure (failur) and flake apart from fail
// and flaky. So "token expiry" never met "token expired", "webhook deliveries" a webhook
// "delivered twice", nor "verify the signature" a learning about signature verification. Only
// forms whose verb means the same thing are listed (not entry: enter, registry: register,
// resolution: resolve, certificate: certify).
func derived() map[string]string {
	return byForm(
		"expire", "expiry expiries",
		"deliver", "delivery deliveries",
		"redeliver", "redelivery redeliveries",
		"recover", "recovery recoveries",
		"discover", "discovery discoveries",
		"verify", "verification verifications",
		"notify", "notification notifications",
		"modify", "modification modifications",
		"specify", "specification specifications",
		"identify", "identification",
		"summarize", "summary summaries",
		"fail", "failure failures",
		"flaky", "flake flakes flaked flaking",
	)
}

// unstemmed are words the Porter stemmer folds into another word of code, each mapped to
// the form it is held in (not stemmed): production is product to it, so prod (production)
// found learnings about a product table; important is import, so "the important part" met
// learnings about imports; general and generic are generate (gener); authorization is
// author, a commit's.
var unstemmed = sync.OnceValue(func() map[string]string {
	return byForm(
		"production", "production productions",
		"important", "important importance importantly",
		"general", "general generally",
		"generic", "generic generics",
		"authorization", "authorization authorizations authorize authorized authorizes authorizing",
	)
})

// byForm maps each of a list's forms (the second of each pair, space-separated) to the word
// it is held as (the first).
func byForm(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		for _, f := range strings.Fields(pairs[i+1]) {
			m[f] = pairs[i]
		}
	}
	return m
}

// british maps British spellings of words said of code to the American ones, which the
// stemmer cuts apart ("organisation" is organis, "organization" organ; analys, analyz):
// the -ise verbs of code and their forms, and a few words spelt with -our, -re, -ogue, -ence.
func british() map[string]string {
	m := map[string]string{
		"behaviour": "behavior", "behaviours": "behaviors", "colour": "color", "colours": "colors",
		"favour": "favor", "favourite": "favorite", "favourites": "favorites", "analyse": "analyze",
		"analysed": "analyzed", "analyses": "analyzes", "analysing": "analyzing", "catalogue": "catalog",
		"catalogues": "catalogs", "dialogue": "dialog", "dialogues": "dialogs", "grey": "gray",
		"licence": "license", "licences": "licenses", "centre": "center", "centres": "centers",
		"defence": "defense",
	}
	stems := `organ initial serial deserial normal optim author custom sanit synchron final minim
		maxim priorit local internationa virtual container token parametr parameter recogn summar
		util visual categor memo capital standard central real special general random neutral
		stabil modern character emphas apolog critic harmon personal quant session modular
		material regular monet digit vector`
	for _, st := range strings.Fields(stems) {
		for _, suf := range []string{"e", "ed", "es", "ing", "ation", "ations", "er", "ers"} {
			m[st+"is"+suf] = st + "iz" + suf
		}
	}
	return m
}

// baseForms maps every form of irregular, british and derived to the word it is held as: one
// lookup a token rather than three. Where two tables held a form, irregular's would win over
// british's and british's over derived's, as in the chain of lookups this replaced; they hold
// none in common.
var baseForms = sync.OnceValue(func() map[string]string {
	m := derived()
	maps.Copy(m, british())
	maps.Copy(m, irregular())
	return m
})

func (compoundFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	baseForms, unstemmed, compounds := baseForms(), unstemmed(), compounds()
	out := in[:0]
	wholeEnd := 0 // where the last identifier kept whole ends: its parts are inside it
	for i := 0; i < len(in); i++ {
		t := in[i]
		if t.Type == wholeType {
			wholeEnd = max(wholeEnd, t.End)
		}
		if t.Type != wholeType && !t.KeyWord {
			if base, ok := baseForms[string(t.Term)]; ok {
				t.Term = []byte(base)
			}
			if w, ok := unstemmed[string(t.Term)]; ok {
				t.Term, t.KeyWord = []byte(w), true
			}
		}
		if t.Type != wholeType && t.Start >= wholeEnd && i+1 < len(in) {
			next := in[i+1]
			if c, ok := compounds[string(t.Term)][string(next.Term)]; ok && next.Type != wholeType && next.Start == t.End+1 {
				t.Term, t.End, t.KeyWord = []byte(c), next.End, strings.Contains(c, "-")
				i++
			}
		}
		out = append(out, t)
	}
	return out
}

// Term is one word of a text as the index holds it.
type Term struct {
	Text       string
	Whole      bool // an identifier kept whole
	Start, End int  // its bytes in the text
}

// AnalyzeTerms returns the words of text as the index holds them, in order, repeats
// included, each marked whether it is an identifier kept whole (its parts follow it, within
// its bytes).
func AnalyzeTerms(text string) []Term {
	ts, err := analysisMapping.(*mapping.IndexMappingImpl).AnalyzeText(analyzerName, []byte(text))
	if err != nil {
		return nil
	}
	out := make([]Term, 0, len(ts))
	for _, t := range ts {
		out = append(out, Term{Text: string(t.Term), Whole: t.Type == wholeType, Start: t.Start, End: t.End})
	}
	return out
}

// Leaves are the words of text in order, repeats included, without the identifiers kept
// whole: the sequence phrases are matched in.
func Leaves(text string) []string {
	var out []string
	for _, t := range AnalyzeTerms(text) {
		if !t.Whole {
			out = append(out, t.Text)
		}
	}
	return out
}
