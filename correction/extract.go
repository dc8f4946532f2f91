package correction

// Instead and Avoid are read from the case-kept copy: the object of a choosing
// verb ("use X", "switch to X", "X, not Y", "not Y, X", "instead of Y use X"),
// "you keep using Y instead of X" read the other way round; Avoid is an object
// after "don't use"/"stop using"/"you don't need", else the verb phrase after
// "don't"/"never"/"stop"/"no need to" ("run the migrations against prod").

import (
	"strings"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

var (
	// Tried where their first word starts (see eachWord).
	reChoose  = lazyregexp.New(`^(?:use|using|prefer|go with|go for|switch to|switch back to|stick with|stick to|try|pick|choose)\s+`)
	reNegVerb = lazyregexp.New(`^(?:don'?t|do not|never|stop|quit|no more|no need to|no need for|avoid|you (?:don'?t|do not) need(?: to)?)\s+(?:ever\s+|even\s+)?`)

	reCommaNot = lazyregexp.New(`,\s*not\s+`)
	reLeadNot  = lazyregexp.New(`^(?:(?:nope|nah|no+)\W*\s*)?not\s+`)
	reAfterAlt = lazyregexp.New(`^\s*[,;-]?\s*(?:but\s+|use\s+|rather\s+|it'?s\s+|instead\s+)?`)
	reLinkWord = lazyregexp.New(`\b(?:in|into|inside|to|from|at|on|under|with|is|are|be|use|using|call|run)\s+`)
	reClauseX  = lazyregexp.New(`^(?:(?:nope|nah|no+)\W*\s*)?(?:it'?s|it is|it should be|should be|that should be|i want|we use|i meant|i said|use|the answer is)?\s*`)
)

var (
	chooseWords  = map[string]bool{"use": true, "using": true, "prefer": true, "go": true, "switch": true, "stick": true, "try": true, "pick": true, "choose": true}
	negVerbWords = map[string]bool{"don": true, "dont": true, "do": true, "never": true, "stop": true, "quit": true, "no": true, "avoid": true}
)

// findAt returns the matches of the anchored re tried at each word of lo
// for which ok holds, as [start, end) pairs, at most n.
func findAt(lo string, re *lazyregexp.Regexp, n int, ok func(word string, p int) bool) [][2]int {
	var out [][2]int
	eachWord(lo, func(p, q int) bool {
		if ok(lo[p:q], p) {
			if m := re.FindStringIndex(lo[p:min(len(lo), p+cueWindow)]); m != nil {
				out = append(out, [2]int{p, p + m[1]})
			}
		}
		return len(out) < n
	})
	return out
}

// extract finds the preferred alternative and the thing to avoid.
// noAfter, when not 0, is where the text after a lone leading "no" starts:
// "no, pnpm" names pnpm.
func extract(lo, cs string, noAfter int) (instead, avoid string) {
	// "use X [instead of Y | rather than Y | , not Y]"; "don't use Y" gives Avoid.
	choose := findAt(lo, reChoose, 6, func(w string, _ int) bool { return chooseWords[w] })
	for _, m := range choose {
		verb := strings.TrimSpace(lo[m[0]:m[1]])
		if negatedBefore(lo[:m[0]]) {
			if avoid == "" && (verb == "use" || verb == "using") {
				avoid, _ = phrase(lo, cs, m[1], false)
			}
			continue
		}
		if agentBefore(lo[:m[0]]) {
			// "you keep using var instead of :=": what it did, then what to do.
			y, end := phrase(lo, cs, m[1], false)
			if avoid == "" {
				avoid = y
			}
			r := strings.TrimLeft(lo[end:], " ,")
			for _, p := range []string{"instead of ", "rather than "} {
				if strings.HasPrefix(r, p) && instead == "" {
					instead, _ = phrase(lo, cs, len(lo)-len(r)+len(p), false)
				}
			}
			continue
		}
		if instead != "" {
			continue
		}
		x, end := phrase(lo, cs, m[1], false)
		if x == "" {
			continue
		}
		rest := lo[end:]
		switch r := strings.TrimLeft(rest, " ,"); {
		case strings.HasPrefix(r, "instead of "), strings.HasPrefix(r, "rather than "):
			if avoid == "" {
				avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("instead of "), false)
				if strings.HasPrefix(r, "rather") {
					avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("rather than "), false)
				}
			}
		case strings.HasPrefix(r, "not "):
			if avoid == "" {
				avoid, _ = phrase(lo, cs, len(lo)-len(r)+len("not "), false)
			}
		case strings.HasPrefix(r, "instead"), strings.HasPrefix(r, "rather"):
		default:
			if verb == "try" || verb == "pick" || verb == "choose" || verb == "go for" {
				continue // "try running it again" names no alternative
			}
		}
		instead = x
	}

	// "instead of Y[,] use X"
	if k := strings.Index(lo, "instead of "); k >= 0 {
		y, end := phrase(lo, cs, k+len("instead of "), false)
		if avoid == "" {
			avoid = y
		}
		if instead == "" {
			r := strings.TrimLeft(lo[end:], " ,")
			r = strings.TrimPrefix(r, "please ")
			r = strings.TrimPrefix(r, "just ")
			for _, v := range []string{"use ", "try ", "go with ", "switch to "} {
				if strings.HasPrefix(r, v) {
					instead, _ = phrase(lo, cs, len(lo)-len(r)+len(v), false)
					break
				}
			}
		}
	}

	// "not Y, X"
	if m := reLeadNot.FindStringIndex(lo); m != nil {
		y, end := phrase(lo, cs, m[1], false)
		if y != "" && !hedgeAfterNot(lo, m[1]) && !notDegree[wordAt(lo, m[1])] {
			if a := reAfterAlt.FindStringIndex(lo[end:]); a != nil && a[1] > 0 && instead == "" {
				instead, _ = phrase(lo, cs, end+a[1], false)
			}
			if avoid == "" {
				avoid = y
			}
		}
	}

	// "X, not Y": X is the clause before the comma.
	if instead == "" || avoid == "" {
		for _, m := range reCommaNot.FindAllStringIndex(lo, 4) {
			if hedgeAfterNot(lo, m[1]) || m[0] == 0 {
				continue
			}
			start := strings.LastIndexAny(lo[:m[0]], ".;:!?\n") + 1
			for start < m[0] && lo[start] == ' ' {
				start++
			}
			start = max(start, m[0]-80)
			if p := reClauseX.FindStringIndex(lo[start:m[0]]); p != nil {
				start += p[1]
			}
			// "the tests are in pkg/foo, not pkg/bar": the alternative follows the last link word.
			if p := reLinkWord.FindAllStringIndex(lo[start:m[0]], -1); p != nil {
				start += p[len(p)-1][1]
			}
			x := strings.TrimSpace(cs[start:m[0]])
			if x == "" || strings.Count(x, " ") > 5 {
				continue
			}
			if instead == "" {
				instead = trimPhrase(x)
			}
			if avoid == "" {
				avoid, _ = phrase(lo, cs, m[1], false)
			}
			break
		}
	}

	// "don't run the migrations", "stop adding comments", "never use npm".
	if avoid == "" {
		neg := findAt(lo, reNegVerb, 4, func(w string, p int) bool {
			return w == "you" || negVerbWords[w] && clauseStart(lo, p)
		})
		for _, m := range neg {
			w := wordAt(lo, m[1])
			if w == "" || w == "know" || w == "worry" || w == "mind" || w == "forget" || w == "think" {
				continue
			}
			mt := strings.TrimSpace(lo[m[0]:m[1]])
			if w == "use" || w == "using" {
				avoid, _ = phrase(lo, cs, m[1]+len(w)+1, false)
			} else if strings.HasSuffix(mt, "need") {
				avoid, _ = phrase(lo, cs, m[1], false) // "you don't need sudo"
			} else {
				avoid, _ = phrase(lo, cs, m[1], true)
			}
			if avoid != "" {
				break
			}
		}
	}

	// "no, pnpm"
	if instead == "" && noAfter > 0 && noAfter < len(lo) {
		if x, end := phrase(lo, cs, noAfter, false); x != "" && strings.TrimSpace(strings.Trim(lo[end:], ".! \n")) == "" && strings.Count(x, " ") < 3 {
			instead = x
		}
	}
	if pronouns[strings.ToLower(instead)] {
		instead = ""
	}
	if pronouns[strings.ToLower(avoid)] {
		avoid = ""
	}
	return instead, avoid
}

// pronouns are phrases that name nothing on their own ("stop it").
var pronouns = map[string]bool{"it": true, "that": true, "this": true, "them": true, "those": true, "these": true,
	"one": true, "so": true, "again": true, "now": true}

// agentBefore reports whether the text just before a verb says the agent
// did it ("you keep using", "why did you use").
func agentBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	for _, n := range []string{"you keep", "you kept", "you", "you're", "you are", "you were", "you've been", "you have been", "you still", "why are you", "why did you", "why would you"} {
		if strings.HasSuffix(before, n) {
			k := len(before) - len(n)
			if k == 0 || !(before[k-1] >= 'a' && before[k-1] <= 'z') {
				return true
			}
		}
	}
	return false
}

// negatedBefore reports whether the text just before a verb negates it.
func negatedBefore(before string) bool {
	before = strings.TrimRight(before, " ")
	for _, n := range []string{"don't", "dont", "do not", "never", "stop", "not", "not to", "never to", "no more", "quit", "avoid", "shouldn't", "should not", "didn't", "did not"} {
		if strings.HasSuffix(before, n) {
			k := len(before) - len(n)
			if k == 0 || !(before[k-1] >= 'a' && before[k-1] <= 'z') {
				return true
			}
		}
	}
	return false
}

// objectStops ends an object phrase ("pnpm" in "use pnpm to install deps").
var objectStops = map[string]bool{"instead": true, "not": true, "rather": true, "for": true, "to": true, "in": true,
	"on": true, "at": true, "when": true, "because": true, "since": true, "so": true, "and": true, "but": true,
	"like": true, "here": true, "there": true, "please": true, "as": true, "from": true, "then": true, "again": true,
	"now": true, "anymore": true, "if": true, "unless": true, "which": true, "with": true, "always": true,
	"everywhere": true, "too": true, "also": true, "ever": true, "thanks": true, "thx": true, "pls": true, "over": true,
	"or": true, "this": false, "going": true, "from now on": true, "it's": true, "is": true, "was": true,
	"i": true, "we": true, "you": true, "only": true, "use": true, "try": true}

// clauseStops ends a verb phrase ("run the migrations in prod" in "don't run the migrations in prod, …").
var clauseStops = map[string]bool{"instead": true, "but": true, "because": true, "since": true, "unless": true,
	"please": true, "thanks": true, "thx": true, "again": true, "anymore": true, "ever": true, "use": true, "just": true}

// phrase reads the phrase that starts at i: up to 6 words for an object,
// 10 for a clause, ending at punctuation or a stop word. It returns the phrase
// with its case (from cs) and the index where it ends.
func phrase(lo, cs string, i int, clause bool) (string, int) {
	maxTok, stop := 6, objectStops
	if clause {
		maxTok, stop = 10, clauseStops
	}
	for i < len(lo) && lo[i] == ' ' {
		i++
	}
	start, end := i, i
	for n := 0; n < maxTok && i < len(lo) && lo[i] != '\n'; n++ {
		j := i
		quoted := lo[i] == '`' || lo[i] == '"'
		if quoted {
			if k := strings.IndexByte(lo[i+1:], lo[i]); k >= 0 {
				j = i + 1 + k + 1
			} else {
				quoted = false
			}
		}
		if !quoted {
			for j < len(lo) && lo[j] != ' ' && lo[j] != '\n' && !(lo[j] == '`' && j > i) {
				j++
			}
		}
		word := lo[i:j]
		if !quoted {
			word = strings.TrimRight(word, ",;:!?).")
		}
		if word == "" || stop[word] || word == "-" || word == "--" || word == "–" || word == "—" || (word == "this" || word == "next") && strings.HasPrefix(lo[j:], " time") {
			break
		}
		end = i + len(word)
		if end < j || j < len(lo) && strings.IndexByte(",;:!?.)", lo[j]) >= 0 {
			break // punctuation ends the phrase
		}
		i = j
		for i < len(lo) && lo[i] == ' ' {
			i++
		}
	}
	if end <= start {
		return "", start
	}
	return trimPhrase(cs[start:end]), end
}

func trimPhrase(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ",;:!?.")
	if len(s) >= 2 && (s[0] == '`' && s[len(s)-1] == '`' || s[0] == '"' && s[len(s)-1] == '"') && !strings.ContainsAny(s[1:len(s)-1], "`\"") {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimSpace(s)
	if len(s) > titleMax {
		s = cutWords(s, titleMax)
	}
	return s
}
