package drain

import (
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
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
var keyTermRe = lazyregexp.New("`[^`\n]{2,120}`" +
	`|(?:^|[\s(\[=])--?[A-Za-z][\w-]{1,40}` + // flags, where a flag starts
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
	add := func(t string) {
		if len(t) < 2 || seen[t] || commonTerm[t] || strings.Trim(t, "0123456789.") == "" {
			return
		}
		seen[t] = true
		out = append(out, t)
	}
	for _, text := range texts {
		for _, m := range keyTermRe.FindAllString(text, -1) {
			if strings.HasPrefix(m, "`") {
				// a quoted command is checked whole as well as word by word: a real command
				// with an invented flag or target is no longer the command the session ran
				if span := squash(strings.Trim(m, "`")); strings.Contains(span, " ") {
					add(span)
				}
			}
			for _, t := range splitCode(strings.TrimLeft(m, " \t\n([=")) {
				add(strings.ToLower(strings.Trim(t, "`'\".,;:()[]{}<>!?")))
			}
		}
	}
	return out
}

// squash lower-cases s and writes every run of spaces and quotes as one space, so that a
// command quoted with other spacing or quoting is still the same command.
func squash(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '\''
	}), " ")
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
		if len(f) >= 2 && strings.IndexFunc(f, unicode.IsLetter) >= 0 {
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

// digestText is everything the model was shown of the session, lower-cased, spaces and
// quotes squashed (see squash).
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
	return " " + squash(b.String()) + " "
}

// grounded says whether a proposal is grounded in the digest: true when it names no precise
// term, or when more than half of the terms it names appear in what the session shows. It
// returns the terms it did not find.
func grounded(p Proposal, digest string) (bool, []string) {
	terms := keyTerms(p)
	var missing []string
	for _, t := range terms {
		if !occurs(digest, t) {
			missing = append(missing, t)
		}
	}
	return len(terms) == 0 || 2*len(missing) < len(terms), missing
}

// occurs reports whether term stands in text as a term of its own: not inside a longer word
// or flag ("-lint" is not in "golangci-lint", "jq" not in "jquery").
func occurs(text, term string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], term)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(term)
		if !wordByte(text, start-1) && !wordByte(text, end) {
			return true
		}
		i = start + 1
	}
}

func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c >= 0x80
}

// A model asked for lessons often answers with what the session did: "Added CSV export in
// internal/export/csv.go", "loadCatalog now merges variants". That is the task, not a lesson
// the next session needs, and it is grounded by construction. Such a title starts with a
// verb of having done, or says what the code "now" does.
var narrationVerbs = map[string]bool{
	"added": true, "fixed": true, "updated": true, "removed": true, "renamed": true, "refactored": true,
	"implemented": true, "created": true, "wrote": true, "built": true, "made": true, "moved": true,
	"switched": true, "upgraded": true, "bumped": true, "replaced": true, "changed": true, "converted": true,
	"migrated": true, "deleted": true, "extracted": true, "split": true, "merged": true, "committed": true,
	"ran": true, "reseeded": true, "seeded": true, "logged": true, "exposed": true, "fitted": true,
	"batched": true, "documented": true, "improved": true, "reworked": true, "cleaned": true,
	"introduced": true, "enabled": true, "disabled": true, "configured": true, "installed": true,
	"wired": true, "hooked": true, "tweaked": true, "adjusted": true, "simplified": true, "optimized": true,
	"optimised": true, "rewrote": true, "restructured": true, "reorganized": true, "reorganised": true,
	"shipped": true, "deployed": true, "released": true, "opened": true, "closed": true, "resolved": true,
}

// narrates says whether a title tells what the session did rather than a lesson.
func narrates(title string) bool {
	words := strings.Fields(strings.ToLower(title))
	if len(words) == 0 {
		return false
	}
	if narrationVerbs[strings.Trim(words[0], "`'\",.:;")] {
		return true
	}
	for _, w := range words[1:] {
		if w == "now" {
			return true
		}
	}
	return false
}
