package drain

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/queue"
)

// A model can write a lesson the session never taught: a command nobody ran, a file nobody
// touched, a flag the tools do not have. What a learning names precisely — a code span, a
// path, an identifier, a flag, a variable, a version — can be checked against the digest
// the model read: a proposal whose precise terms are mostly absent from it is invented, and
// is dropped before anything is written. Prose without such terms ("confirm before
// deploying") cannot be checked this way and is kept; the prompt asks for lessons grounded in
// what the session shows.

// keyTermRe finds the precise terms of a text: code spans, flags, paths and file names,
// dotted or snake/camel-case identifiers, ALL_CAPS variables, versions, error codes.
var keyTermRe = regexp.MustCompile("`[^`\n]{2,120}`" +
	`|--?[A-Za-z][\w-]{1,40}` + // flags
	`|(?:[\w.-]+/)+[\w.-]+` + // paths
	`|\b[\w-]+\.(?:go|ts|tsx|js|jsx|py|rs|rb|java|kt|json|ya?ml|toml|md|sh|sql|tf|lock|cfg|ini|env|txt|mod|sum)\b` + // file names
	`|\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b` + // a.b.c
	`|\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b` + // snake, camel, Pascal
	`|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{2,}[0-9]+\b` + // ENV_VARS, ERR42
	`|\bv?\d+\.\d+(?:\.\d+)?\b`) // versions

// keyTerms lists the precise terms of a proposal's title, body and triggers, lower-cased
// and stripped of surrounding punctuation, without repeats. Common words and the project
// key are not terms.
func keyTerms(p Proposal) []string {
	seen := map[string]bool{}
	var out []string
	texts := append([]string{p.Title, p.Body}, p.Triggers...)
	texts = append(texts, p.Files...)
	for _, text := range texts {
		for _, m := range keyTermRe.FindAllString(text, -1) {
			for _, t := range splitCode(m) {
				t = strings.ToLower(strings.Trim(t, "`'\".,;:()[]{}<>!?"))
				if len(t) < 3 || seen[t] || commonTerm[t] {
					continue
				}
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// splitCode turns a code span into the terms a digest would hold: the span's words that
// look like commands, paths or identifiers (a span is rarely quoted whole, quotes and
// spacing differ).
func splitCode(m string) []string {
	if !strings.HasPrefix(m, "`") {
		return []string{m}
	}
	var out []string
	for _, f := range strings.FieldsFunc(strings.Trim(m, "`"), func(r rune) bool {
		return unicode.IsSpace(r) || r == '|' || r == '&' || r == ';' || r == '(' || r == ')' || r == '"' || r == '\''
	}) {
		if len(f) >= 3 && strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			out = append(out, f)
		}
	}
	return out
}

// commonTerm are words a term pattern catches that say nothing precise.
var commonTerm = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs.": true, "n/a": true, "and/or": true,
	"--help": true, "--version": true, "-v": true,
}

// digestText is everything the model was shown of the session, lower-cased.
func digestText(e *queue.Entry) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range e.Digest.Notes {
		b.WriteString(n.Tool)
		b.WriteByte('\n')
		b.WriteString(n.Input)
		b.WriteByte('\n')
		b.WriteString(n.Text)
		b.WriteByte('\n')
	}
	b.WriteString(e.Branch)
	return strings.ToLower(b.String())
}

// grounded says whether a proposal is grounded in the digest: true when it names no precise
// term, or when at least half of the terms it names appear in what the session shows. It
// returns the terms it did not find.
func grounded(p Proposal, digest string) (bool, []string) {
	terms := keyTerms(p)
	var missing []string
	for _, t := range terms {
		if !strings.Contains(digest, t) {
			missing = append(missing, t)
		}
	}
	return len(terms) == 0 || 2*len(missing) <= len(terms), missing
}
