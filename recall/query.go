package recall

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/bounded"
)

// A Topic is one query recall asks the index: the prompt; at a session start, the branch,
// each recent commit subject, and the files those commits touched. A learning qualifies on
// the best of a start's topics, so a session whose commits are about two things recalls
// for either.
type Topic struct {
	Kind    string   `json:"kind"` // prompt, branch, commit or files
	Text    string   `json:"text"` // what it was made of
	Terms   []Term   `json:"terms"`
	Phrases []Phrase `json:"phrases,omitempty"`
	// Support are words that count for the topic when a learning holds them and never
	// against it: at a session start, the parts of the paths the commits touched.
	Support []Term `json:"support,omitempty"`
	// Clauses are a prompt's parts that ask for different things, each judged on the
	// prompt's candidates as a topic of its own.
	Clauses []Topic `json:"clauses,omitempty"`
	// Leaves are the words of the whole text in order (parts of identifiers, not the
	// identifiers whole): what a learning's triggers are looked for in.
	Leaves []string `json:"-"`
}

// A Term is one thing a topic says: a word, an identifier, or words the vocabulary has a
// short form for; and the forms that count as it.
type Term struct {
	Word string   `json:"word"` // analyzed, as the index holds it ("pull request": several words)
	Kind TermKind `json:"kind"`
	// Forms are the word lists any of which counts as the term, its own first, then what the
	// vocabulary says it also goes by (a form of several words counts when a learning holds
	// all of them).
	Forms [][]string `json:"forms"`
	// Parts are what an identifier is cut into (segments, humps, extension): a learning
	// that holds some of them and not the identifier matches it in part.
	Parts []string `json:"parts,omitempty"`
}

// TermKind says what a term is.
type TermKind string

const (
	Word  TermKind = "word"  // a word of prose
	Whole TermKind = "whole" // an identifier or path
	// Long: words the text says in full that the vocabulary abbreviates (pull request: pr)
	Long TermKind = "long"
	Part TermKind = "part" // a part of a path the recent commits touched
)

// supportWords are the words the topic's hits are weighed with, not searched for.
func (tp Topic) supportWords() []string {
	out := make([]string, 0, len(tp.Support))
	for _, t := range tp.Support {
		out = append(out, t.Word)
	}
	return out
}

// words are the distinct analyzed words the topic asks the index for.
func (tp Topic) words() []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, t := range tp.Terms {
		for _, f := range t.Forms {
			for _, w := range f {
				add(w)
			}
		}
		for _, w := range t.Parts {
			add(w)
		}
	}
	return out
}

// Words people use to talk to an agent that say nothing about the work (the analyzer has
// already removed English stop words; these are in their analyzed form): the adverbs,
// conjunctions and pronouns of a chatty prompt ("since", "anyway", "probably", "whatever")
// weigh as much as a rare word when no learning holds them, and a prompt saying many of them
// covered too little of itself for its one answer. "already" is not among them: a token or
// an event already used or processed is what a learning is about.
var chatter = lazySet(`please pls thanks thank ok okay hey hi hello can could would
	you your i me my we us our let lets go get got make sure look take check try help need
	want like just also now again still really actually maybe think know see thing things
	something stuff work working works done do does did doing use using used way good bad
	new old one two run fix fixed fixing issue problem question why how what when where
	which who whom whose say says said tell told ask asked seem seems
	since yet onto anyway anyways though although even ever else somehow somewhere
	anything everything everyone someone whenever wherever however whatever whether either
	neither several lot lots bit kinda sorta gonna wanna basically literally apparently
	probably perhaps definitely obviously honestly totally today yesterday tomorrow soon ago
	upon toward towards`)

// Branch name words that say nothing about the work.
var branchNoise = lazySet(`main master trunk develop development dev head
	feat feature features fix bugfix hotfix chore wip refactor release releases topic tmp
	test tests ci docs doc`)

// Commit subject words that say nothing about the work: what every subject could say
// ("add" is most subjects' first word: "add CODEOWNERS for the network stacks" matched a
// learning on add, network, stack at 66% of the subject, heldout3 neg-start-infra-codeowners).
var subjectNoise = lazySet(`wip more update updates updated bump bumps bumped tweak tweaks add adds added
	cleanup clean minor misc changes change stuff typo typos`)

// manifests are the files a package manager keeps: its manifest and its lock file. Every
// change of a project's dependencies touches them, whatever the work was, so a learning that
// names one is about the project's dependencies, not about this work, and their words
// (pyproject, toml, uv, lock) say nothing of it. Read off held out 8 and 7: on the session
// starts of the suite and held-out sets 1–8, leaving them out as evidence dropped 1
// irrelevant learning and 6 labelled related (the uv learning for uv.lock and
// pyproject.toml, corepack for package.json, the version catalog for libs.versions.toml)
// and no relevant one. A prompt that names one still names it.
var manifests = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(`uv.lock poetry.lock pdm.lock pipfile.lock pipfile
	pyproject.toml requirements.txt package.json package-lock.json npm-shrinkwrap.json
	pnpm-lock.yaml yarn.lock bun.lock bun.lockb deno.lock go.mod go.sum cargo.toml
	cargo.lock gemfile gemfile.lock composer.json composer.lock terraform.lock.hcl
	flake.lock mix.lock pubspec.lock podfile.lock package.resolved gradle.lockfile
	libs.versions.toml packages.lock.json`) {
		m[f] = true
	}
	return m
})

// isManifest reports whether the file at p (a touched path, or a learning's name of one, as
// analyzed) is a package manager's manifest or lock file. The analyzer drops a name's leading
// dot (.terraform.lock.hcl is terraform.lock.hcl), so the set's names have none.
func isManifest(p string) bool {
	return manifests()[strings.TrimLeft(strings.ToLower(path.Base(p)), ".")]
}

// lazySet is the set of the analyzed words of text, worked out on first use (not at
// start-up, which every reflect process pays).
func lazySet(text string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range index.Analyze(text) {
			m[w] = true
		}
		return m
	})
}

// maxTerms bounds a topic: a pasted log says what it is about in its first lines.
const maxTerms = 40

// Empty says a topic holds no word recall searches for ("thanks", "go on"): nothing to recall.
func (tp Topic) Empty() bool { return len(tp.words()) == 0 }

// PromptTopic is the query of a prompt: its words, identifiers whole and in parts, what the
// vocabulary says they also go by, and its quoted strings and error messages as phrases.
func PromptTopic(prompt string) Topic {
	tp := topic("prompt", prompt, chatter())
	tp.Phrases = phrases(prompt)
	if cs := clauses(prompt); len(cs) > 1 {
		for _, c := range cs {
			if ct := topic("clause", c, chatter()); len(ct.Terms) >= 2 {
				tp.Clauses = append(tp.Clauses, ct)
			}
		}
	}
	if len(tp.Clauses) < 2 {
		tp.Clauses = nil
	}
	return tp
}

// clauseBreak ends a clause: a sentence's end, a line's, a semicolon, a comma or "and" or
// "then" between two requests.
var clauseBreak = regexp.MustCompile(`[.?!;:]\s+|\n+|,\s*(and|then)?\s*|\s+(and|then|also)\s+`)

// clauses are the parts of a prompt that ask for different things: "add a column, migrate
// the dev database and run the db tests" asks three. A break inside brackets or quotes is
// not one: the commas of slog.Debug("refresh", "token", tok) or of a quoted error separate
// arguments, not requests.
func clauses(prompt string) []string {
	var out []string
	inside := enclosed(prompt)
	from := 0
	for _, m := range clauseBreak.FindAllStringIndex(prompt, -1) {
		if inside[m[0]] {
			continue
		}
		if c := strings.TrimSpace(prompt[from:m[0]]); c != "" {
			out = append(out, c)
		}
		from = m[1]
	}
	if c := strings.TrimSpace(prompt[from:]); c != "" {
		out = append(out, c)
	}
	return out
}

// enclosed marks each byte of s that is inside brackets, double quotes or backticks (a
// bracket or quote left open encloses nothing: a stray one must not join a prompt's clauses).
func enclosed(s string) []bool {
	in := make([]bool, len(s)+1)
	var stack []int // where each open bracket or quote is
	for i := 0; i < len(s); i++ {
		c := s[i]
		if n := len(stack); n > 0 && c == closer(s[stack[n-1]]) {
			for j := stack[n-1] + 1; j < i; j++ {
				in[j] = true
			}
			stack = stack[:n-1]
			continue
		}
		if closer(c) != 0 && !inQuote(s, stack) {
			stack = append(stack, i)
		}
	}
	return in
}

// closer is what closes an opening bracket or quote, or 0 for any other byte.
func closer(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '"', '`':
		return c
	}
	return 0
}

// inQuote reports whether the innermost open bracket or quote is a quote: inside one, a
// bracket is text.
func inQuote(s string, stack []int) bool {
	n := len(stack)
	return n > 0 && (s[stack[n-1]] == '"' || s[stack[n-1]] == '`')
}

// StartTopics are the queries of a session start: the branch (not main or master), each
// recent commit subject, and the files the commits touched. What it returns is shared: the
// caller does not change it.
func StartTopics(w Workspace) []Topic {
	key := topicsKey(w)
	if tps, ok := startTopics.Get(key); ok {
		return tps
	}
	tps := startTopicsOf(w)
	startTopics.Put(key, tps)
	return tps
}

// startTopics keeps, for the life of the process, the topics of the session starts it
// answered (64 workspaces), by what they were made of: they follow from a workspace's branch,
// subjects and files alone, and a resident engine (package hooks/resident) answers a project's
// session starts one after another, analyzing the same words again (0.2–0.26 ms of each hook).
var startTopics = bounded.Map[string, []Topic]{Max: 64}

// topicsKey names what a workspace's topics are made of: each part prefixed with its length,
// so that no subject (a remote's commit may say anything) reads as two, or a list's end.
func topicsKey(w Workspace) string {
	var b strings.Builder
	count := func(n int, sep byte) { b.WriteString(strconv.Itoa(n)); b.WriteByte(sep) }
	part := func(s string) { count(len(s), ':'); b.WriteString(s) }
	part(w.Branch)
	count(len(w.Subjects), ';')
	for _, s := range w.Subjects {
		part(s)
	}
	count(len(w.Files), ';')
	for _, f := range w.Files {
		part(f)
	}
	return b.String()
}

func startTopicsOf(w Workspace) []Topic {
	var out []Topic
	add := func(tp Topic) {
		if len(tp.Terms) > 0 {
			out = append(out, tp)
		}
	}
	if w.Branch != "" {
		// a branch name is a sentence written with dashes, not an identifier
		words := strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ").Replace(w.Branch)
		tp := topic("branch", words, branchNoise(), chatter())
		tp.Text = w.Branch
		add(tp)
	}
	var support []Term
	var files Topic
	if len(w.Files) > 0 {
		files = filesTopic(w.Files)
		seen := map[string]bool{}
		for _, t := range files.Terms {
			if isManifest(t.Word) {
				continue // a manifest's words say the dependencies changed, not what the work was
			}
			for _, p := range t.Parts {
				if !seen[p] && !strings.ContainsAny(p, "./-_") {
					seen[p] = true
					support = append(support, Term{Word: p, Kind: Part, Forms: [][]string{{p}}})
				}
			}
		}
	}
	for _, s := range w.Subjects {
		tp := topic("commit", s, subjectNoise(), chatter())
		tp.Support = support
		add(tp)
	}
	add(files)
	return out
}

// topic analyzes text into a topic, leaving out the words of the noise sets: each word once,
// each identifier once with its parts, and the vocabulary's other forms of each.
func topic(kind, text string, noise ...map[string]bool) Topic {
	tp := Topic{Kind: kind, Text: text}
	terms := index.AnalyzeTerms(text)
	for _, t := range terms {
		if !t.Whole {
			tp.Leaves = append(tp.Leaves, t.Text)
		}
	}
	seen := map[string]bool{}
	keep := func(w string) bool { return len(w) >= 2 && !isID(w) && !inAny(w, noise) }
	for i := 0; i < len(terms) && len(tp.Terms) < maxTerms; i++ {
		t := terms[i]
		w := t.Text
		if !t.Whole {
			if keep(w) && !seen[w] {
				seen[w] = true
				forms := append([][]string{{w}}, vocabulary().alts(w)...)
				if !sameAsOne(tp.Terms, forms) {
					tp.Terms = append(tp.Terms, Term{Word: w, Kind: Word, Forms: forms})
				}
			}
			continue
		}
		// an identifier: the words inside it are its parts, not terms of their own
		var parts []string
		for i+1 < len(terms) && terms[i+1].Start < t.End {
			i++
			if p := terms[i].Text; keep(p) && !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
		if seen[w] || len(w) > 60 || isID(w) {
			continue
		}
		seen[w] = true
		tp.Terms = append(tp.Terms, Term{Word: w, Kind: Whole, Forms: append([][]string{{w}}, vocabulary().alts(w)...), Parts: parts})
	}
	for _, l := range vocabulary().abbreviate(tp.Leaves) {
		if w := strings.Join(l.long, " "); !seen[w] {
			seen[w] = true
			tp.Terms = append(tp.Terms, Term{Word: w, Kind: Long, Forms: [][]string{l.long, l.short}})
		}
	}
	return tp
}

// filesTopic is what the files recent commits touched say: each path, whole and in parts
// (its directories, its file name, its stem and extension: a .tf file says terraform), and
// its file name whole. A
// path's words are evidence, not a sentence: no phrases, no vocabulary.
func filesTopic(files []string) Topic {
	tp := Topic{Kind: "files", Text: strings.Join(files, " ")}
	seen := map[string]bool{}
	for _, f := range files {
		ts := index.AnalyzeTerms(f)
		if len(ts) == 0 || seen[ts[0].Text] {
			continue
		}
		seen[ts[0].Text] = true
		t := Term{Word: ts[0].Text, Kind: Whole, Forms: [][]string{{ts[0].Text}}}
		if !ts[0].Whole {
			t.Kind = Word
		}
		for _, p := range ts[1:] {
			if len(p.Text) >= 2 && !isID(p.Text) && !slices.Contains(t.Parts, p.Text) {
				t.Parts = append(t.Parts, p.Text)
			}
		}
		tp.Terms = append(tp.Terms, t)
		// the file's name on its own: a learning may name schema.yml, not its directory
		if base := index.AnalyzeTerms(path.Base(f)); len(base) > 0 && base[0].Whole && base[0].Text != t.Word && !seen[base[0].Text] {
			seen[base[0].Text] = true
			tp.Terms = append(tp.Terms, Term{Word: base[0].Text, Kind: Whole, Forms: [][]string{{base[0].Text}}})
		}
		if len(tp.Terms) >= maxTerms {
			break
		}
	}
	return tp
}

// sameAsOne reports whether a term of these forms is already among terms: "the dev
// database and the db tests" says one thing twice.
func sameAsOne(terms []Term, forms [][]string) bool {
	for _, t := range terms {
		for _, f := range forms[1:] {
			if len(f) == 1 && f[0] == t.Word {
				return true
			}
		}
	}
	return false
}

func inAny(w string, sets []map[string]bool) bool {
	for _, s := range sets {
		if s[w] {
			return true
		}
	}
	return false
}

// isID reports whether an analyzed word is an id rather than a word: a number not of three
// to five digits (those are status codes, ports and error codes), numbers joined by dashes,
// dots or colons (dates, times, versions), or a run of hex digits with both digits
// and letters (a hash, part of a UUID, an address), or an identifier made of such runs.
func isID(s string) bool {
	s = strings.TrimPrefix(s, "0x")
	digits, hex, other, joins := 0, 0, 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f':
			hex++
		case c == '-' || c == '.' || c == ':':
			joins++
		default:
			other++
		}
	}
	if other > 0 {
		return false
	}
	if hex == 0 { // dates, times and version numbers are ids too
		return joins > 0 || digits >= 6 || digits < 3
	}
	return digits > 0 && digits+hex >= 4
}
