package recall

import (
	"strings"
	"sync"

	"github.com/reflect-memory/reflect/index"
)

// Words people use to talk to an agent that say nothing about the work (the analyzer has
// already removed English stop words; these are in their analyzed form).
var chatter = lazySet(`please pls thanks thank ok okay hey hi hello can could would
	you your i me my we us our let lets go get got make sure look take check try help need
	want like just also now again still really actually maybe think know see thing things
	something stuff work working works done do does did doing use using used way good bad
	new old one two run fix fixed fixing issue problem question why how what when where
	which who whom whose`)

// Branch name words that say nothing about the work.
var branchNoise = lazySet(`main master trunk develop development dev head
	feat feature features fix bugfix hotfix chore wip refactor release releases topic tmp
	test tests ci docs doc`)

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

const maxTerms = 32

// PromptTerms are the words of a prompt recall searches for.
func PromptTerms(prompt string) []string {
	return filterTerms(index.Analyze(clean(prompt)), chatter())
}

// StartTerms are the words a session start searches for: the branch (not main or
// master) and the subjects of recent commits. The project key itself scopes the search.
func StartTerms(w Workspace) []string {
	var parts []string
	if w.Branch != "" {
		parts = append(parts, strings.NewReplacer("/", " ", "-", " ", "_", " ", ".", " ").Replace(w.Branch))
	}
	parts = append(parts, w.Subjects...)
	var words []string
	for i, p := range parts {
		ws := index.Analyze(clean(p))
		if i == 0 && w.Branch != "" {
			ws = filterTerms(ws, branchNoise())
		}
		words = append(words, ws...)
	}
	return filterTerms(words, chatter())
}

// clean drops what is not prose: ids (hex runs such as commit hashes and UUIDs), long
// numbers (three or four digits stay: status codes and ports mean something) and very
// long tokens.
func clean(s string) string {
	var out []string
	for _, w := range strings.Fields(s) {
		var keep []string
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune("-_.:/=#@,;()[]{}'\"`", r) }) {
			if len(part) > 40 || isID(part) {
				continue
			}
			keep = append(keep, part)
		}
		if len(keep) > 0 {
			out = append(out, strings.Join(keep, " "))
		}
	}
	return strings.Join(out, " ")
}

// isID reports whether s is a number not of three or four digits, or a run of hex digits
// with both digits and letters (a hash, part of a UUID, an address).
func isID(s string) bool {
	s = strings.TrimPrefix(strings.ToLower(s), "0x")
	digits, hex := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f':
			hex++
		default:
			return false
		}
	}
	if hex == 0 {
		return digits >= 5 || digits < 3
	}
	return digits > 0 && digits+hex >= 4
}

func filterTerms(words []string, drop map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if drop[w] || seen[w] || len(w) < 2 {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}
