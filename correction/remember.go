package correction

import (
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

const rememberNoteMax = 300

// Remember extracts an explicit note-to-self from a prompt: "remember: X",
// "remember that X", "please remember X", "note for the future: X", "from now on
// X", "going forward, X", "for future reference, X" → X (trimmed, first sentence
// or line up to ~300 chars); ok=false otherwise.
//
// A marker counts only at the start of a clause (line start, after . ! ? ; or a
// comma, or after "and", "also", "btw", "but", "please", "oh"), outside code, so
// "do you remember the API?", "I can't remember" and "make the widget remember
// its position" are not notes. "remember to X" is a task reminder unless the
// rest of the sentence makes it standing ("always", "every time", "before
// committing", "from now on", …): "remember to free the buffer" is not a note,
// "remember to run go vet before committing" is. "always X"/"never X" at the
// start of a sentence are standing instructions and become the note whole
// ("Always use pnpm here"), except "never mind" and a verb in the third person
// ("always returns nil" describes code). A note that ends in "?" is a question,
// not a note.
func Remember(prompt string) (note string, ok bool) {
	scan := prompt[:min(len(prompt), scanBytes)]
	stem := rememberNextStem(scan, 0)
	if stem < 0 {
		return "", false
	}
	var fence codeFence
	for off := 0; off < len(scan) && stem >= 0; {
		end := strings.IndexByte(scan[off:], '\n')
		if end < 0 {
			end = len(scan)
		} else {
			end += off
		}
		t := strings.TrimSpace(scan[off:end])
		hasStem := stem < end
		following := scan[min(end+1, len(scan)):]
		off = end + 1
		if hasStem {
			stem = rememberNextStem(scan, off)
		}
		if fence.marker(t) {
			continue
		}
		if fence.open != "" || t == "" || !hasStem {
			continue
		}
		lo, cs := normLine(t)
		eachWord(lo, func(p, q int) bool {
			if !rememberAnchors[lo[p:q]] || !rememberClauseStart(lo, p) {
				return true
			}
			m := rememberRe.FindStringSubmatchIndex(lo[p:min(len(lo), p+cueWindow)])
			if m == nil {
				return true
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += p
				}
			}
			note, ok = rememberAt(lo, cs, m, following)
			return !ok
		})
		if ok {
			return note, true
		}
	}
	return "", false
}

// rememberNextStem returns the offset of the first word at or after i, in
// any case, that is part of every marker ("remember", "note", "always", …),
// or -1: lines before it are not normalised.
func rememberNextStem(s string, i int) int {
	var buf [10]byte
	for p := i; p < len(s); {
		if c := s[p] | 0x20; c < 'a' || c > 'z' {
			p++
			continue
		}
		q, n := p, 0
		for ; q < len(s); q++ {
			c := s[q] | 0x20
			if c < 'a' || c > 'z' {
				break
			}
			if n < len(buf) {
				buf[n] = c
			}
			n++
		}
		if n <= len(buf) {
			switch string(buf[:n]) {
			case "remember", "note", "reference", "forward", "future", "henceforth", "always", "never", "now", "here", "next":
				return p
			}
		}
		p = q
	}
	return -1
}

// rememberAnchors are the first words of the markers rememberRe reads.
var rememberAnchors = map[string]bool{"remember": true, "note": true, "for": true, "from": true, "going": true,
	"henceforth": true, "moving": true, "in": true, "next": true, "always": true, "never": true}

// rememberRe reads a marker where an anchor starts a clause; group 1 is
// "remember", 2 a marker whose text follows, 3 "always"/"never".
var rememberRe = anchoredRe(`(remember)\b` +
	`|(note (?:for|to) (?:the )?(?:future(?: self| sessions| reference| runs)?|self|yourself|later|next time)|for (?:future|later) reference|from now on|from here on(?: out)?|going forward|henceforth|moving forward,|in (?:the )?future,|for the future,|next time,|in future sessions)` +
	`|(always|never)\s`)

// rememberLead are words after which a marker may start.
var rememberLead = map[string]bool{"and": true, "also": true, "btw": true, "but": true, "please": true, "pls": true,
	"plz": true, "oh": true, "plus": true, "ps": true}

// rememberClauseStart reports whether a marker at p starts a clause: the
// line's start, after . ! ? ; : or a comma, or after "and", "also", "please", ….
func rememberClauseStart(lo string, p int) bool {
	i := p
	for i > 0 && lo[i-1] == ' ' {
		i--
	}
	if i == 0 || strings.IndexByte(".!?;:,", lo[i-1]) >= 0 {
		return true
	}
	j := i
	for j > 0 && isWordByte(lo[j-1]) {
		j--
	}
	return j < i && rememberLead[lo[j:i]]
}

var rememberStanding = lazyregexp.New(`\b(?:always|every time|each time|whenever|in (?:the )?future|from now on|going forward|next time|in every|on every|before (?:every|each|any|committing|pushing|merging|releasing|deploying|you (?:commit|push|merge|release|deploy)|a (?:commit|push|release|merge|deploy))|after (?:every|each|any))\b`)

func rememberAt(lo, cs string, m []int, following string) (string, bool) {
	switch {
	case m[2] >= 0: // remember
		i := m[3]
		rest := lo[i:]
		explicit := false
		for _, p := range []string{" that ", ":", " -", " this:", ",", " this,"} {
			if strings.HasPrefix(rest, p) {
				i += len(p)
				explicit = true
				break
			}
		}
		for i < len(lo) && lo[i] == ' ' {
			i++
		}
		if strings.HasPrefix(lo[i:], "to ") {
			if !rememberStanding.MatchString(lo[i:]) {
				return "", false
			}
			i += len("to ")
		} else if !explicit {
			w := wordAt(lo, i)
			if w == "" || rememberNotNote[w] {
				return "", false
			}
		}
		n := rememberText(lo, cs, i, following)
		if !explicit && !strings.Contains(n, " ") {
			return "", false
		}
		return rememberValid(n)
	case m[4] >= 0: // a leading marker
		i := m[5]
		for i < len(lo) && strings.IndexByte(" :,-", lo[i]) >= 0 {
			i++
		}
		return rememberValid(rememberText(lo, cs, i, following))
	case m[6] >= 0: // always / never
		i := m[6]
		w := wordAt(lo, m[7]+1)
		if w == "" || lo[m[6]:m[7]] == "never" && w == "mind" || rememberNotVerb[w] ||
			strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			return "", false
		}
		// Only at a sentence start: "the test fails, always" describes.
		before := strings.TrimRight(lo[:m[6]], " ")
		for _, p := range []string{"please", "pls", "plz", "and", "also", "but"} {
			before = strings.TrimSuffix(before, p)
			before = strings.TrimRight(before, " ")
		}
		if before != "" && !strings.ContainsAny(before[len(before)-1:], ".!?;:") {
			return "", false
		}
		note := rememberText(lo, cs, i, following)
		if leansBack(strings.ToLower(note)) {
			// "the key is in 1Password. never commit it": the rule is about what the
			// sentence before it names, which the note must carry
			prev := previousSentence(cs[:m[6]])
			if prev == "" {
				return "", false
			}
			note = prev + "; " + note
		}
		return rememberValid(note)
	}
	return "", false
}

// previousSentence is the sentence that ends where s does (trailing punctuation dropped),
// "" when s holds none.
func previousSentence(s string) string {
	s = strings.TrimRight(s, " .!?;:")
	start := 0
	for _, sep := range []string{". ", "! ", "? ", "; "} {
		if k := strings.LastIndex(s, sep); k >= 0 && k+len(sep) > start {
			start = k + len(sep)
		}
	}
	p := strings.TrimSpace(s[start:])
	if len(strings.Fields(p)) < 2 {
		return ""
	}
	return p
}

// rememberNotNote are words after a bare "remember" that make it a question or a
// phrase, not a note ("remember when we …?", "remember me").
var rememberNotNote = map[string]bool{"when": true, "how": true, "what": true, "where": true, "why": true, "who": true,
	"which": true, "if": true, "whether": true, "me": true, "me?": true, "it": true, "them": true, "us": true,
	"this": true, "that": true, "these": true, "those": true}

var rememberNotVerb = map[string]bool{"with": true, "on": true, "in": true, "at": true, "the": true, "a": true, "an": true,
	"for": true, "when": true, "if": true, "because": true, "after": true, "before": true, "been": true, "was": true,
	"is": true, "be": true, "has": true, "had": true, "have": true, "again": true, "true": true, "false": true}

// rememberText reads the note that starts at i: to the end of its sentence,
// or, when the marker ends the line ("remember:"), the next line or list.
func rememberText(lo, cs string, i int, following string) string {
	if strings.TrimSpace(cs[i:]) != "" {
		return cutWords(strings.TrimSpace(firstSentence(cs[i:], lo[i:])), rememberNoteMax)
	}
	var parts []string
	size := 0
	for raw := range strings.Lines(following) {
		t := strings.TrimSpace(raw)
		if t == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		list := strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || listNumber(t) > 0
		if len(parts) > 0 && !list {
			break
		}
		l, c := normLine(t)
		if c == "" {
			continue
		}
		if !list {
			return cutWords(firstSentence(c, l), rememberNoteMax)
		}
		parts = append(parts, strings.TrimRight(c, ".;"))
		size += len(c) + 2
		if size > rememberNoteMax {
			break
		}
	}
	return cutWords(strings.Join(parts, "; "), rememberNoteMax)
}

func rememberValid(n string) (string, bool) {
	n = strings.TrimSpace(strings.TrimRight(n, ",;: "))
	if strings.HasSuffix(n, "?") || !strings.ContainsFunc(n, unicode.IsLetter) || len(n) < 2 {
		return "", false
	}
	return n, true
}
