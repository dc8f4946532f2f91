package drain

// Triggers: the words a later prompt will use when a learning is wanted, often not its
// title's (docs/ARCHITECTURE.md, "The learning file"): the failed command's program and
// distinctive arguments, a fragment of the error, the identifiers named (whole and split
// into words), the tools named.

import (
	"slices"
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

const (
	hMaxTriggers    = 10
	hTriggerRunes   = 60 // an error fragment
	hTriggerMinRune = 3
)

// triggerSet collects triggers: trimmed, one line, unique (case-insensitively), capped.
type triggerSet struct{ list []string }

func (t *triggerSet) add(s string) {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimLeft(strings.TrimRight(s, " .,;:!?\"'`()[]{}<>"), " ,;:!?\"'`()[]{}<>")
	if len([]rune(s)) < hTriggerMinRune || len(t.list) >= hMaxTriggers {
		return
	}
	if slices.ContainsFunc(t.list, func(v string) bool { return strings.EqualFold(v, s) }) {
		return
	}
	t.list = append(t.list, s)
}

// identifier adds an identifier whole and, when it is made of several words
// (TestStatementForAccount, ledger_test, DJANGO_SETTINGS_MODULE), split into them.
func (t *triggerSet) identifier(id string) {
	t.add(id)
	if w := splitIdentifier(id); len(w) > 1 {
		t.add(strings.Join(w, " "))
	}
}

var (
	identWordRe = lazyregexp.New(`[A-Z]+[a-z0-9]*|[a-z0-9]+`)
	// identTokRe: a word that names something in code or infrastructure — an identifier with an
	// inner capital or underscore, a name with dashes and digits (eu-west-1), a version, a
	// file name.
	identTokRe = lazyregexp.New(`^(?:[A-Za-z_][A-Za-z0-9]*(?:[_A-Z][A-Za-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+|[A-Z]{2,}[A-Z0-9]*|v?\d+(?:\.\d+)+)$`)
)

// splitIdentifier is the words of an identifier, lower-case.
func splitIdentifier(id string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == '/' }) {
		for _, w := range identWordRe.FindAllString(part, -1) {
			out = append(out, strings.ToLower(w))
		}
	}
	return out
}

// shoutWords are capitals that are not names: test runners' and loggers' markers.
var shoutWords = setOf(`FAIL FAILED ERROR ERR OK PASS PASSED WARN WARNING INFO DEBUG FATAL PANIC SKIP NOTE HINT TODO USAGE`)

// identifiers are the words of s that look like identifiers, in order.
func identifiers(s string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;:=!?*", r)
	}) {
		if strings.HasPrefix(tok, "--") && len(tok) > 4 && identTokRe.MatchString(strings.TrimLeft(tok, "-")+"-x") {
			out = append(out, strings.TrimRight(tok, ".,")) // a flag: --locked, --frozen-lockfile
			continue
		}
		tok = strings.Trim(tok, ".-/")
		if strings.Contains(tok, "/") || strings.HasPrefix(tok, "$") {
			continue // paths and variables are files or entities, not what a person types
		}
		if identTokRe.MatchString(tok) && !slices.Contains(out, tok) && !isNumber(tok) && !shoutWords[tok] {
			out = append(out, tok)
		}
	}
	return out
}

// fixTriggers: what failed (program and subcommand, distinctive arguments), what the
// error said, the identifiers in both, the program that worked.
func fixTriggers(notes []queue.Note, fc *fixChain) []string {
	var t triggerSet
	f0 := notes[fc.failures[0]]
	commandTriggers(&t, f0.Input)
	if m := missingProgram(viewOf(f0)); m != "" {
		t.add(m + ": command not found")
	} else {
		errorTriggers(&t, f0)
	}
	for _, s := range attempts(notes[fc.success].Input) {
		if p, sub := s.program(); p != "" {
			t.add(strings.TrimSpace(p + " " + sub))
		}
	}
	return t.list
}

var (
	errorCodeRe = lazyregexp.New(`\b(?:[A-Z]{1,5}\d{3,5}|E[A-Z]{4,}|[A-Z][A-Za-z]+(?:Error|Exception|Exit|Panic))\b`)
	quotedRe    = lazyregexp.New(`"([^"\s][^"]{1,38})"|'([^'\s][^']{1,38})'|‘([^’]{2,38})’`)
)

// errorTriggers adds the fragments of a failure's error that a person would search for:
// its error codes and exception names (E0433, EUNSUPPORTEDPROTOCOL, ModuleNotFoundError),
// the names it quotes, the identifiers it holds — not its sentence, whose everyday words
// ("database", "does not exist") would make the learning come up for any prompt that
// uses them.
func errorTriggers(t *triggerSet, n queue.Note) {
	l := strings.ReplaceAll(errorLine(n), `\n`, " ")
	for _, c := range errorCodeRe.FindAllString(l, -1) {
		if !shoutWords[c] {
			t.identifier(c)
		}
	}
	for _, m := range quotedRe.FindAllStringSubmatch(l, -1) {
		q := strings.TrimSpace(m[1] + m[2] + m[3])
		if !strings.ContainsAny(q, "/\\") && len(strings.Fields(q)) <= 4 {
			t.add(q)
		}
	}
	for _, id := range identifiers(l) {
		t.identifier(id)
	}
}

// commandTriggers adds a shell line's programs (with their subcommand) and distinctive words.
func commandTriggers(t *triggerSet, line string) {
	for _, s := range attempts(line) {
		p, sub := s.program()
		if p == "" {
			continue
		}
		t.add(strings.TrimSpace(p + " " + sub))
		ds := distinctive(s)
		if len(ds) > 3 {
			continue // a list of files is not what a person types
		}
		for _, d := range ds {
			if len([]rune(d)) <= 40 && !strings.ContainsAny(d, " *$|") {
				t.identifier(d)
			}
		}
	}
}

var (
	// fragmentNoise are the parts of an error line that change from run to run.
	fragmentNoise = lazyregexp.New(`(?i)(?:/[^\s:'"]+)+|\b0x[0-9a-f]+\b|\b\d+(?:\.\d+)?m?s\b|^[^\s:]+:\d+(?::\d+)?:\s*|^\s*(?:error|fatal|err)(?:\[\w+\])?:\s*|^-+\s*|\.{3,}`)
	// specificError: a line that says what went wrong, not only that something did.
	specificError = lazyregexp.New(`(?i)\b(?:not found|no such|does not exist|doesn't exist|cannot|can't|couldn't|unable|denied|refused|missing|not installed|undefined|unresolved|unsupported|unknown|invalid|required|not allowed|permission|timed out|no module|[a-z]+(?:error|exception)\b|error\[|error:|fatal:)`)
	// genericLine: a line that only says something failed.
	genericLine = lazyregexp.New(`(?i)^(?:-+ )?(?:fail(?:ed)?|error|exit code|traceback|ok|=+)\b`)
)

// errorLine is the line of a failure's output that best says what went wrong: the first
// specific one, else the first meaningful one.
func errorLine(n queue.Note) string {
	in := strings.TrimSpace(n.Input)
	for raw := range strings.Lines(n.Text) {
		l := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(raw), "│╷╵|> "))
		lo := strings.ToLower(l)
		if l == "" || outputNoise.MatchString(l) || l == in || genericLine.MatchString(l) && !strings.Contains(lo, "error:") && !strings.HasPrefix(lo, "error[") {
			continue
		}
		if specificError.MatchString(l) {
			return clipWords(l, hBodyLine)
		}
	}
	return meaningfulLine(n)
}

// errorFragment is the error a failure printed, without paths, positions and timings, cut
// to a phrase a person might paste or type.
func errorFragment(n queue.Note) string {
	l := strings.ReplaceAll(errorLine(n), `\n`, " ")
	l = strings.TrimLeft(l, "│╷╵ ")
	l = fragmentNoise.ReplaceAllString(l, " ")
	l = strings.NewReplacer(`"`, "", "●", "", "×", "").Replace(l)
	l = strings.Join(strings.Fields(l), " ")
	l = strings.Trim(l, " :-")
	if len([]rune(l)) < 8 {
		return ""
	}
	return clipWords(l, hTriggerRunes)
}

// proseTriggers: the identifiers, code spans and tools a note or prompt names.
func proseTriggers(texts ...string) []string {
	var t triggerSet
	for _, s := range texts {
		for _, m := range backticked.FindAllStringSubmatch(s, -1) {
			if span := strings.TrimSpace(m[1]); len([]rune(span)) <= 40 {
				t.add(span)
			}
		}
		for _, tool := range namedTools(s) {
			t.add(tool)
		}
		for _, id := range identifiers(s) {
			t.identifier(id)
		}
	}
	return t.list
}
