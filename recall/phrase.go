package recall

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/index"
)

// A Phrase is a run of words a prompt quotes or pastes as an error message. A learning
// that holds several of them next to each other, in the same order, is about the same
// message, which a bag of words cannot tell.
type Phrase struct {
	Kind  string   `json:"kind"` // quoted or error
	Text  string   `json:"text"`
	Words []string `json:"-"` // its words as the index holds them, in order, identifiers in parts
}

// errorLine finds a line that reads as an error message or a log of one.
var errorLine = regexp.MustCompile(`(?i)\b(error|exception|traceback|fail(ed|ure|s)?|fatal|panic|denied|refused|forbidden|cannot|can't|unable|invalid|no such|not (found|permitted|authorized|allowed)|timed out|timeout|exceeded|unsupported|deprecated|violat\w*)\b|(?-i:\bE[A-Z]{4,}\b)`)

// maxPhraseWords bounds a phrase (and the work of matching it).
const maxPhraseWords = 40

// phrases are the quoted strings and the error lines of a prompt, of two words or more.
func phrases(prompt string) []Phrase {
	var out []Phrase
	seen := map[string]bool{}
	add := func(kind, text string) {
		text = strings.TrimSpace(text)
		words := index.Leaves(text)
		if len(words) < 2 || seen[text] {
			return
		}
		seen[text] = true
		if len(words) > maxPhraseWords {
			words = words[:maxPhraseWords]
		}
		out = append(out, Phrase{Kind: kind, Text: text, Words: words})
	}
	for _, q := range quoted(prompt) {
		add("quoted", q)
	}
	for _, line := range strings.Split(prompt, "\n") {
		if errorLine.MatchString(line) {
			add("error", line)
		}
	}
	return out
}

// quoted returns the strings between quotes: "…", `…`, “…”, and '…' when the quotes are
// not apostrophes (a letter on neither outer side).
func quoted(s string) []string {
	var out []string
	pairs := map[rune]rune{'"': '"', '`': '`', '“': '”', '\'': '\'', '‘': '’'}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		closing, ok := pairs[r]
		if !ok || (r == '\'' || r == '‘') && i > 0 && isLetterBefore(s, i) {
			i += n
			continue
		}
		j := strings.IndexRune(s[i+n:], closing)
		for j >= 0 && closing == '\'' && i+n+j+1 < len(s) && isLetterAt(s, i+n+j+1) {
			// an apostrophe inside the quote (doesn't): look for the next one
			k := strings.IndexRune(s[i+n+j+1:], closing)
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			i += n
			continue
		}
		inner := s[i+n : i+n+j]
		if !strings.Contains(inner, "\n") {
			out = append(out, inner)
		}
		i += n + j + utf8.RuneLen(closing)
	}
	return out
}

func isLetterBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// longestRun is the longest run of words that phrase and text share, next to each other
// and in order: where it starts in phrase and how long it is.
func longestRun(phrase, text []string) (start, n int) {
	if len(phrase) == 0 || len(text) == 0 {
		return 0, 0
	}
	prev := make([]int, len(text)+1)
	cur := make([]int, len(text)+1)
	for i := 1; i <= len(phrase); i++ {
		for j := 1; j <= len(text); j++ {
			if phrase[i-1] == text[j-1] {
				cur[j] = prev[j-1] + 1
				if cur[j] > n {
					n, start = cur[j], i-cur[j]
				}
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	return start, n
}
