package drain

// Triggers: the words a later prompt will use when a learning is wanted, often not its
// title's (docs/ARCHITECTURE.md, "The learning file"): the failed command's program and
// distinctive arguments, a fragment of the error, the identifiers named (whole and split
// into words), the tools named.

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

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
	s = strings.Trim(s, " .,;:!?\"'`()[]{}<>")
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
	identWordRe = regexp.MustCompile(`[A-Z]+[a-z0-9]*|[a-z0-9]+`)
	// identTokRe: a word that names something in code or infrastructure — an identifier with an
	// inner capital or underscore, a name with dashes and digits (eu-west-1), a version, a
	// file name.
	identTokRe = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9]*(?:[_A-Z][A-Za-z0-9]*)+|[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+|[A-Z]{2,}[A-Z0-9]*|v?\d+(?:\.\d+)+)$`)
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

// identifiers are the words of s that look like identifiers, in order.
func identifiers(s string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;:=!?*", r)
	}) {
		tok = strings.Trim(tok, ".-/")
		if strings.Contains(tok, "/") || strings.HasPrefix(tok, "$") {
			continue // paths and variables are files or entities, not what a person types
		}
		if identTokRe.MatchString(tok) && !slices.Contains(out, tok) && !isNumber(tok) {
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
	} else if l := errorFragment(f0); l != "" {
		t.add(l)
		for _, id := range identifiers(l) {
			t.identifier(id)
		}
	}
	for _, s := range attempts(notes[fc.success].Input) {
		if p, sub := s.program(); p != "" {
			t.add(strings.TrimSpace(p + " " + sub))
		}
	}
	return t.list
}

// commandTriggers adds a shell line's programs (with their subcommand) and distinctive words.
func commandTriggers(t *triggerSet, line string) {
	for _, s := range attempts(line) {
		p, sub := s.program()
		if p == "" {
			continue
		}
		t.add(strings.TrimSpace(p + " " + sub))
		for _, d := range distinctive(s) {
			if len([]rune(d)) <= 40 && !strings.ContainsAny(d, " *$|") {
				t.identifier(d)
			}
		}
	}
}

var (
	// fragmentNoise are the parts of an error line that change from run to run.
	fragmentNoise = regexp.MustCompile(`(?:/[^\s:'"]+)+|\b0x[0-9a-f]+\b|\b\d+(?:\.\d+)?m?s\b|^[^\s:]+:\d+(?::\d+)?:\s*|^\s*(?:error|fatal|err)(?:\[\w+\])?:\s*`)
)

// errorFragment is the error a failure printed, without paths, positions and timings, cut
// to a phrase a person might paste or type.
func errorFragment(n queue.Note) string {
	l := meaningfulLine(n)
	l = strings.TrimLeft(l, "│╷╵ ")
	l = fragmentNoise.ReplaceAllString(l, " ")
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
