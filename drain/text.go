package drain

// Text helpers: clipping, and quoting as markdown, what a proposal shows.

import (
	"strings"
	"unicode/utf8"
)

func isWord(s string) bool { return cmdName.MatchString(strings.ToLower(s)) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clipLine is the first line of s, cut to n runes; "…" marks anything left out.
func clipLine(s string, n int) string {
	s = strings.TrimSpace(s)
	l := strings.TrimSpace(firstLine(s))
	c := clipRunes(l, n)
	if l != s && !strings.HasSuffix(c, "…") {
		c += " …"
	}
	return c
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// clipWords cuts s to at most n runes at a word boundary, marking the cut with "…".
func clipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	t := string(r[:n-1])
	if k := strings.LastIndexByte(t, ' '); k > len(t)/2 {
		t = t[:k]
	}
	return strings.TrimRight(t, " ,;:.-") + "…"
}

// code is s as markdown inline code, with enough backticks to hold the ones in s.
func code(s string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// fence is s as a fenced code block, cut to a few lines.
func fence(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = append(lines[:5], "…")
	}
	for i, l := range lines {
		lines[i] = clipRunes(l, hBodyCmd)
	}
	body := strings.Join(lines, "\n")
	ticks := "```"
	for strings.Contains(body, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + body + "\n" + ticks
}
