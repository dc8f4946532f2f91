package redact

import "strings"

// People tell agents secrets in sentences: "the staging password is hunter2-db-pass",
// "my API token was Xk9…". A secret word, then "is" or "was" (at most two words between),
// then one value that looks like a credential — at least six bytes, a digit or a symbol
// among letters, not a placeholder — is redacted. Sentences whose value is a word ("the
// password is required", "the token is expired") are kept.

var proseWords = []string{"password", "passphrase", "passwd", "token", "secret", "api key", "api-key", "apikey", "access key", "pin code"}

func (sc *scanner) prose() {
	s := sc.s
	lower := asciiLower(s) // same length as s, so offsets carry over
	for _, w := range proseWords {
		for off := 0; ; {
			i := strings.Index(lower[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + len(w)
			if i > 0 && isWordByte(lower[i-1]) {
				continue
			}
			rest := lower[off:]
			// up to two words ("for staging", "of the db") before "is" / "was"
			p := 0
			for words := 0; words <= 2; words++ {
				p += leadingSpace(rest[p:])
				if v, ok := verbAt(rest[p:]); ok {
					p += v
					p += leadingSpace(rest[p:])
					start := off + p
					end := start
					for end < len(s) && !isSpaceByte(s[end]) {
						end++
					}
					for end > start && strings.ContainsRune(".,;:)\"'`", rune(s[end-1])) {
						end--
					}
					if v := s[start:end]; credentialLike(v) {
						sc.add(proseKind(w), start, end, prioAssign+1)
					}
					break
				}
				n := 0
				for n < len(rest[p:]) && isWordByte(rest[p+n]) {
					n++
				}
				if n == 0 {
					break
				}
				p += n
			}
		}
	}
}

func proseKind(w string) string {
	switch w {
	case "token":
		return "token"
	case "secret":
		return "secret"
	case "api key", "api-key", "apikey", "access key":
		return "api-key"
	}
	return "password"
}

func verbAt(s string) (int, bool) {
	for _, v := range []string{"is ", "was ", "is: "} {
		if strings.HasPrefix(s, v) {
			return len(v) - 1, true
		}
	}
	return 0, false
}

func leadingSpace(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// credentialLike: long enough, letters mixed with digits or symbols, not a placeholder.
func credentialLike(v string) bool {
	if len(v) < 6 || isPlaceholder(v) || strings.HasPrefix(v, markerPrefix) || strings.ContainsAny(v[:1], "$\"'`<{[(") {
		return false
	}
	letters, others := 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		default:
			others++
		}
	}
	return letters > 0 && others > 0 || charKinds(v) >= 2 && len(v) >= 12
}

// asciiLower folds A-Z only: strings.ToLower may change a string's length (U+023A 'Ⱥ' folds
// to three bytes), and the offsets found in the folded copy index s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
