package correction

// Text helpers shared by the classifier, the extraction, remember notes and titles.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// wordAt returns the run of letters starting at i.
func wordAt(s string, i int) string {
	if i < 0 || i >= len(s) {
		return ""
	}
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] == '\'') {
		j++
	}
	return s[i:j]
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// eachWord calls f with the bounds of each word of lo (a run of [a-z0-9])
// until f returns false.
func eachWord(lo string, f func(p, q int) bool) {
	for p := 0; p < len(lo); {
		if !isWordByte(lo[p]) {
			p++
			continue
		}
		q := p
		for q < len(lo) && isWordByte(lo[q]) {
			q++
		}
		if !f(p, q) {
			return
		}
		p = q
	}
}

// codeFence follows fenced code blocks through a prompt line by line: open is the marker
// of the block the lines are in ("```" or "~~~"), "" outside one.
type codeFence struct{ open string }

// marker reports whether the trimmed line t starts with a fence marker, and follows it:
// outside a block the marker opens one; inside, it closes the block only when it is the
// marker that opened it.
func (f *codeFence) marker(t string) bool {
	m := ""
	switch {
	case strings.HasPrefix(t, "```"):
		m = "```"
	case strings.HasPrefix(t, "~~~"):
		m = "~~~"
	default:
		return false
	}
	if f.open == "" {
		f.open = m
	} else if strings.HasPrefix(t, f.open) {
		f.open = ""
	}
	return true
}

// normLine normalises one trimmed line. The two results have the same
// length and rune boundaries; lo is lower-cased with inline code masked.
func normLine(t string) (lo, cs string) {
	quoted := false
	for {
		t0 := t
		t = strings.TrimLeft(t, " \t")
		switch {
		case strings.HasPrefix(t, ">"):
			t = t[1:]
		case strings.HasPrefix(t, "#"):
			t = strings.TrimLeft(t, "#")
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
			t = t[2:]
		default:
			if n := listNumber(t); n > 0 {
				t = t[n:]
			} else if r, size := utf8.DecodeRuneInString(t); size > 0 && strings.ContainsRune(`"'“”‘’`, r) && !strings.HasPrefix(t, "'s") {
				t = t[size:]
				quoted = true
			}
		}
		if t == t0 {
			break
		}
	}
	if quoted {
		t = strings.TrimRight(t, ` "'“”‘’`)
	}

	bl := make([]byte, 0, len(t))
	bc := make([]byte, 0, len(t))
	space := true // drop leading space
	for i := 0; i < len(t); {
		if c := t[i]; c < utf8.RuneSelf { // ASCII, the common case
			switch {
			case (c == '*' || c == '_') && i+1 < len(t) && t[i+1] == c:
				i += 2
			case c <= ' ' || c == 0x7f:
				i++
				if !space {
					bl = append(bl, ' ')
					bc = append(bc, ' ')
					space = true
				}
			default:
				i++
				space = false
				bc = append(bc, c)
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				bl = append(bl, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:])
		i += size
		switch r {
		case '’', '‘', 'ʼ', '′', '´':
			r = '\''
		case '“', '”', '„', '″':
			r = '"'
		case '—', '–', '‒', '―':
			r = '-'
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError && size == 1 {
			if !space {
				bl = append(bl, ' ')
				bc = append(bc, ' ')
				space = true
			}
			continue
		}
		space = false
		l := r
		if r >= 'A' && r <= 'Z' {
			l = r + 'a' - 'A'
		} else if r >= utf8.RuneSelf {
			if lr := unicode.ToLower(r); utf8.RuneLen(lr) == utf8.RuneLen(r) {
				l = lr
			}
		}
		bl = utf8.AppendRune(bl, l)
		bc = utf8.AppendRune(bc, r)
	}
	for len(bl) > 0 && bl[len(bl)-1] == ' ' {
		bl, bc = bl[:len(bl)-1], bc[:len(bc)-1]
	}
	// Mask inline code in lo: "`// don't panic`" must not read as "don't".
	for i := 0; i < len(bl); i++ {
		if bl[i] != '`' {
			continue
		}
		j := i + 1
		for j < len(bl) && bl[j] != '`' {
			j++
		}
		if j >= len(bl) {
			break
		}
		for k := i + 1; k < j; k++ {
			bl[k] = 'x'
		}
		i = j
	}
	return string(bl), string(bc)
}

// listNumber returns the length of a "12. " or "3) " list marker, else 0.
func listNumber(t string) int {
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || t[i+1] != ' ' {
		return 0
	}
	return i + 2
}

// firstSentence returns s up to the end of its first sentence: a . ! or ?
// followed by a space, outside code, not after "e.g", "i.e", "etc", "vs".
// lo is s lower-cased with code masked (byte-aligned).
func firstSentence(s, lo string) string {
	for i := 0; i < len(lo); i++ {
		c := lo[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(lo) && lo[i+1] != ' ' {
			continue
		}
		if c == '.' {
			w := lo[:i]
			if k := strings.LastIndexByte(w, ' '); k >= 0 {
				w = w[k+1:]
			}
			if w == "e.g" || w == "i.e" || w == "etc" || w == "vs" || w == "cf" || w == "approx" || w == "" {
				continue
			}
		}
		return s[:i+1]
	}
	return s
}

// cutWords cuts s to at most n runes at a word boundary, marking the cut with "…".
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for k := 0; k < n-1 && end < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	t := s[:end]
	if k := strings.LastIndexByte(t, ' '); k > len(t)/2 {
		t = t[:k]
	}
	return strings.TrimRight(t, " ,;:.-") + "…"
}
