package correction

// The correction classifier. It runs inside the UserPromptSubmit hook's 500 ms
// capture budget with no LLM, so it is plain cue tables over a normalised prompt.
//
// Classify, in order:
//
//  1. The head: the first two non-empty lines of the prompt, skipping fenced code
//     blocks, cut at 400 bytes. A correction is said first; a pasted log whose
//     tenth line reads "something went wrong" is not one.
//  2. Normalise each line: drop markdown prefixes (> # - * + "1.") and wrapping
//     quotes, drop ** and __, map typographic quotes and dashes to ASCII, collapse
//     white space, lower-case. Inline `code` spans are masked in the copy the cues
//     read, so `// don't panic` in backticks is never a cue; a second copy keeps
//     case and code for extracting Instead and Avoid.
//  3. Positive cues carry weights in (0,1) and combine as a noisy OR,
//     1 - Π(1 - w), so two weak cues ("actually," 0.3 + "use X" 0.3) make one
//     correction (0.51) and a strong one ("that's wrong" 0.8) is enough alone.
//  4. Negative cues subtract: approval ("yes that's right", "great job") 0.45
//     unless a "but"/"however"/"though" follows it, thanks 0.2, neutral "wrong"
//     ("what went wrong", "something is wrong with") 0.25, and 0.3 for a first
//     line that is an ordinary question (starts with what/how/is/can/…, ends
//     with "?") unless an accusing-question cue ("why did you", "who told you
//     to") matched.
//  5. The prompt is a correction when the score reaches threshold (0.5).
//
// Imperative cues ("don't", "never", "stop …ing", "revert that", "use X") count
// only at the start of a clause (start of line, after punctuation, or after
// "no", "please", "and", "but", "just", …), which is what separates
// "don't use npm" from "write a test that checks we don't crash".
//
// "X instead of Y" is a correction only with a leading negation or a choosing
// verb ("no, return an error instead", "use a map instead of a slice"); a bare
// "return an error instead of panicking in parse()" reads as a feature request
// and scores 0.25. A clause that ends in "instead" ("put it in the handler
// instead.") replaces something the agent did and scores 0.5. A bare "use X to
// do Y" is an ordinary request (0.3), even right after a failure.
//
// Cost: a cue is tried only where one of its anchor words starts, only when
// one of its keywords is among the head's words (a 2048-bit Bloom filter), and
// its regexp runs anchored on at most 128 bytes. Scanning the whole head with
// fifty unanchored regexps cost 100–200 µs for a 2 KB prompt; this costs 5–10
// µs for a correction or a log, 25–30 µs for a head that is cues from end to
// end (BenchmarkClassify, 2 vCPUs).

import (
	"strings"
	"unicode/utf8"
)

// Verdict is how Classify reads a prompt: how sure it is that the prompt corrects the agent,
// and what the correction names.
type Verdict struct {
	Score   float64 // 0..1, how sure the classifier is
	Cue     string  // the phrase that triggered it, e.g. "use … instead"
	Instead string  // the preferred alternative when the prompt names one ("pnpm" in "no, use pnpm instead of npm"), else ""
	Avoid   string  // what to stop doing when named ("npm"), else ""
}

const (
	threshold = 0.5
	headLines = 2
	headBytes = 400
	// scanBytes bounds the bytes read while looking for the head
	// (fenced blocks are skipped) and for a remember note.
	scanBytes = 8 << 10
)

// questionStart are first words of an ordinary question.
var questionStart = map[string]bool{"what": true, "how": true, "where": true, "when": true, "which": true, "who": true,
	"is": true, "are": true, "does": true, "do": true, "can": true, "could": true, "would": true, "will": true,
	"should": true, "has": true, "have": true, "any": true, "did": true, "was": true, "were": true, "whats": true, "what's": true, "hows": true, "how's": true}

// Classify reports whether prompt reads as a correction of what the agent just did.
// When ok is false, only Score is meaningful.
func Classify(prompt string) (Verdict, bool) {
	lo, cs, first := head(prompt)
	if strings.TrimSpace(lo) == "" {
		return Verdict{}, false
	}

	keep := 1.0
	best, bestW := "", 0.0
	question := false
	hits := 0
	neg := 0.0

	noW, noLabel, noAfter := leadingNo(lo)
	if noW > 0 {
		keep *= 1 - noW
		best, bestW = noLabel, noW
		hits = 1
	}
	var words wordSet
	eachWord(lo, func(p, q int) bool { words.add(lo[p:q]); return true })
	// state: 0 untried, 1 its keywords are in the head, -1 matched or hopeless.
	var state [maxCues]int8
	cues, cuesByAnchor := cueTable()
	try := func(p int, word string) {
		for _, ci := range cuesByAnchor[word] {
			c := &cues[ci]
			if state[ci] == 0 {
				state[ci] = 1
				if c.kw != nil && !words.hasAny(c.kw) {
					state[ci] = -1
				}
			}
			if state[ci] < 0 || c.cs && !clauseStart(lo, p) {
				continue
			}
			m := c.re.FindStringSubmatchIndex(lo[p:min(len(lo), p+cueWindow)])
			if m == nil {
				continue
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += p
				}
			}
			if c.reject != nil && c.reject(lo, m) {
				continue
			}
			state[ci] = -1
			switch {
			case c.neg:
				if !c.unless || !hasContrast(lo[m[1]:]) {
					neg += c.w
				}
			default:
				keep *= 1 - c.w
				hits++
				if c.w > bestW {
					best, bestW = c.label, c.w
				}
				question = question || c.question
			}
		}
	}
	try(0, "")
	eachWord(lo, func(p, q int) bool { try(p, lo[p:q]); return true })
	score := 1 - keep - neg
	if !question && isQuestion(lo[:first]) {
		score -= 0.3
	}
	score = max(0, min(1, score))

	c := Verdict{Score: score, Cue: best}
	if score < threshold {
		return c, false
	}
	if noW == 0 || hits > 1 {
		noAfter = 0 // "no, pnpm" names pnpm only when "no" is the sole cue
	}
	c.Instead, c.Avoid = extract(lo, cs, noAfter)
	return c, true
}

// wordSet is a 2048-bit Bloom filter (two probes) of the words in a head;
// a false positive only costs one regexp attempt.
type wordSet [32]uint64

func wordHash(w string) (uint32, uint32) {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return h & 2047, (h >> 16) & 2047
}

func (s *wordSet) add(w string) {
	a, b := wordHash(w)
	s[a>>6] |= 1 << (a & 63)
	s[b>>6] |= 1 << (b & 63)
}

func (s *wordSet) hasAny(ws []string) bool {
	for _, w := range ws {
		a, b := wordHash(w)
		if s[a>>6]&(1<<(a&63)) != 0 && s[b>>6]&(1<<(b&63)) != 0 {
			return true
		}
	}
	return false
}

func hasContrast(s string) bool {
	return strings.Contains(s, " but ") || strings.Contains(s, "however") || strings.Contains(s, "though") ||
		strings.HasPrefix(s, " but") || strings.HasPrefix(s, ", but")
}

func isQuestion(line string) bool {
	line = strings.TrimSpace(line)
	if !strings.HasSuffix(line, "?") {
		return false
	}
	w := wordAt(line, 0)
	return questionStart[w]
}

// leadingNo scores a prompt that opens with "no"/"nope"/"nah", after an
// interjection ("hmm, no, …"). "no problem", "no worries", "no, that's fine"
// and "no tests were run" are not corrections. It also returns where the text
// after the "no" starts, for extract.
func leadingNo(lo string) (w float64, label string, after int) {
	word := wordAt(lo, 0)
	i := len(word)
	if interjections[word] {
		for i < len(lo) && strings.IndexByte(" ,.!-", lo[i]) >= 0 {
			i++
		}
		word = wordAt(lo, i)
		i += len(word)
	}
	switch {
	case word == "nope" || word == "nah" || word == "nop":
		w, label = 0.65, "nope"
	case len(word) >= 2 && word[0] == 'n' && strings.Trim(word[1:], "o") == "":
		w, label = 0.6, "no, …"
	default:
		return 0, "", 0
	}
	j := i
	for j < len(lo) && strings.IndexByte(" ,.!;:-\n", lo[j]) >= 0 {
		j++
	}
	rest := lo[j:]
	if rest == "" {
		return w, label, j
	}
	if strings.ContainsAny(lo[i:j], ",.!;:-\n") {
		for _, p := range noDismissals {
			if strings.HasPrefix(rest, p) {
				return 0, "", 0
			}
		}
		return w, label, j
	}
	if noRebuttals[wordAt(rest, 0)] {
		return w, label, j
	}
	return 0, "", 0
}

// interjections may come before a leading "no".
var interjections = map[string]bool{"hmm": true, "hmmm": true, "um": true, "uh": true, "ah": true, "oh": true,
	"well": true, "erm": true, "ugh": true, "wait": true, "actually": true}

// noDismissals are what follows "no," in a dismissal or an answer that is not a correction.
var noDismissals = []string{"thanks", "thank", "problem", "prob", "worries", "worry", "it's fine", "its fine", "that's fine",
	"thats fine", "that's ok", "thats ok", "that's okay", "all good", "that's all", "nothing else", "i'm good", "im good",
	"we're good", "not now", "not yet", "later", "rush", "need to", "need for", "that's right", "that's correct",
	"that works", "it works", "looks good", "you're right", "you are right", "good", "great", "perfect", "i don't think so",
	"go ahead", "carry on", "continue", "keep going", "proceed", "that's it", "that's all", "nothing", "not really"}

// noRebuttals are words that make "no <word> …" (without a comma) a rebuttal.
var noRebuttals = map[string]bool{"that's": true, "thats": true, "that": true, "this": true, "it's": true, "its": true,
	"not": true, "don't": true, "dont": true, "do": true, "use": true, "you": true, "i": true, "stop": true, "wait": true,
	"no": true, "please": true, "wrong": true, "just": true, "revert": true, "undo": true, "never": true, "actually": true,
	"why": true, "try": true, "we": true, "the": true, "nope": true, "what": true, "you're": true, "your": true}

// head returns the normalised head of prompt: lo for the cues, cs with case
// and code kept (byte-aligned with lo), and the end of the first line in both.
func head(prompt string) (lo, cs string, firstEnd int) {
	var bl, bc []byte
	lines := 0
	var fence codeFence
	scan := prompt
	if len(scan) > scanBytes {
		scan = scan[:scanBytes]
	}
	for scan != "" && lines < headLines && len(bl) < headBytes {
		var line string
		if k := strings.IndexByte(scan, '\n'); k >= 0 {
			line, scan = scan[:k], scan[k+1:]
		} else {
			line, scan = scan, ""
		}
		t := strings.TrimSpace(line)
		if fence.marker(t) {
			continue
		}
		if fence.open != "" {
			continue
		}
		// Normalising never lengthens a line, so the raw bytes past the budget are not needed.
		if room := headBytes - len(bl) + 8; len(t) > room {
			for room > 0 && !utf8.RuneStart(t[room]) {
				room--
			}
			t = t[:room]
		}
		l, c := normLine(t)
		if l == "" {
			continue
		}
		if lines > 0 {
			bl = append(bl, '\n')
			bc = append(bc, '\n')
		}
		bl = append(bl, l...)
		bc = append(bc, c...)
		lines++
		if lines == 1 {
			firstEnd = len(bl)
		}
	}
	if len(bl) > headBytes {
		n := headBytes
		for n > 0 && !utf8.RuneStart(bc[n]) {
			n--
		}
		bl, bc = bl[:n], bc[:n]
	}
	firstEnd = min(firstEnd, len(bl))
	return string(bl), string(bc), firstEnd
}
