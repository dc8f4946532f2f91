package correction

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	titleMax       = 80
	titleScanBytes = 1 << 10
)

// titleLead are openings dropped from a title: interjections and note markers.
var titleLead = []string{"remember that ", "remember: ", "remember:", "remember - ", "remember, ", "please remember ",
	"note for the future:", "note for future:", "note to self:", "note for later:", "for future reference:",
	"for future reference,", "for future reference ", "from now on,", "from now on ", "going forward,", "going forward ",
	"moving forward,", "in the future,", "in future,", "next time,", "henceforth,", "please, ", "please ",
	"actually, ", "actually ", "ugh, ", "ugh ", "hmm, ", "ok, ", "okay, ", "well, ", "wait, ", "hey, "}

// Title makes a one-line title (≤ 80 chars, no trailing period, first
// letter upper-case) from a note or a correction prompt. Openings that carry no
// meaning ("no,", "nope.", "wrong:", "remember:", "please") are dropped, then the
// first sentence of the first non-empty line outside fenced code is kept; a
// prompt that is all code has no title ("").
func Title(s string) string {
	var lo, cs string
	var fence codeFence
	for raw := range strings.Lines(s) {
		t := strings.TrimSpace(raw)
		if fence.marker(t) {
			continue
		}
		if t == "" || fence.open != "" {
			continue
		}
		if len(t) > titleScanBytes { // a title needs the first 80 characters and the openings before them
			n := titleScanBytes
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			t = t[:n]
		}
		l, c := normLine(t)
		if l == "" {
			continue
		}
		lo, cs = l, c
		break
	}
	for changed := true; changed && lo != ""; {
		changed = false
		for _, p := range titleLead {
			if strings.HasPrefix(lo, p) && len(lo) > len(p) {
				lo, cs = lo[len(p):], cs[len(p):]
				changed = true
			}
		}
		// "no," "nope." "wrong:" — only with punctuation, so "No need to …" stays.
		w := wordAt(lo, 0)
		if w == "no" || w == "nope" || w == "nah" || w == "wrong" || w == "incorrect" || w == "ugh" || w == "argh" {
			j := len(w)
			k := j
			for k < len(lo) && strings.IndexByte(" ,.!;:-", lo[k]) >= 0 {
				k++
			}
			if k > j && k < len(lo) && strings.ContainsAny(lo[j:k], ",.!;:-") {
				lo, cs = lo[k:], cs[k:]
				changed = true
			}
		}
		lo = strings.TrimLeft(lo, " ")
		cs = cs[len(cs)-len(lo):]
	}
	t := strings.TrimSpace(firstSentence(cs, lo))
	t = cutWords(t, titleMax)
	t = strings.TrimRight(t, " .,;:!-")
	if r, size := utf8.DecodeRuneInString(t); size > 0 && unicode.IsLower(r) {
		t = string(unicode.ToUpper(r)) + t[size:]
	}
	return t
}

// Title is the title of the learning a correction becomes: "Use X instead of Y" when the
// prompt names both, "Use X" when it names only the alternative, else the prompt's own
// title. The hook and the drain both title corrections with it, so that the drain finds the
// hook's learning of the same correction as a duplicate.
func (v Verdict) Title(prompt string) string {
	switch {
	case v.Instead != "" && v.Avoid != "":
		return Title("Use " + v.Instead + " instead of " + v.Avoid)
	case v.Instead != "":
		return Title("Use " + v.Instead)
	}
	return Title(prompt)
}
