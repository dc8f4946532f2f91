package redact

import "strings"

// maxKeyBlock bounds how far a private key block may run from BEGIN to END.
// The largest PGP secret key blocks with subkeys are around 10 KB; past this
// distance an END belongs to something else, and the block was cut short.
const maxKeyBlock = 64 << 10

// findPrivateKey redacts a whole PEM or OpenPGP private key block, header
// and footer included: -----BEGIN [RSA |EC |OPENSSH |ENCRYPTED ]PRIVATE
// KEY----- … -----END …-----, and -----BEGIN PGP PRIVATE KEY BLOCK-----.
// Public keys and certificates are left alone. The block may sit in a JSON
// string with "\n" escapes (a service-account file in a transcript). A block
// without its END (a truncated paste) is redacted as far as its base64 goes.
func findPrivateKey(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	h := i + len("-----BEGIN ")
	label, after, ok := pemLabel(s, h)
	if !ok || !strings.Contains(label, "PRIVATE KEY") {
		return i, false
	}
	end := sc.end.next(s, "-----END ", after)
	if end >= 0 && end-after <= maxKeyBlock {
		endLabel, endAfter, ok := pemLabel(s, end+len("-----END "))
		nextBegin := sc.begin.next(s, "-----BEGIN ", after)
		if ok && strings.Contains(endLabel, "PRIVATE KEY") && (nextBegin < 0 || nextBegin > end) {
			sc.add("private-key", i, endAfter, prio)
			return endAfter, true
		}
	}
	e := keyBody(s, after)
	sc.add("private-key", i, e, prio)
	return e, true
}

// pemLabel reads the label of a BEGIN or END line that starts at h and
// returns it with the index just past its closing dashes.
func pemLabel(s string, h int) (label string, after int, ok bool) {
	for e := h; e < len(s) && e-h <= 64; e++ {
		c := s[e]
		if strings.HasPrefix(s[e:], "-----") {
			return s[h:e], e + 5, e > h
		}
		if !isUpper(c) && !isDigit(c) && c != ' ' {
			return "", 0, false
		}
	}
	return "", 0, false
}

// keyBody returns the end of the base64 lines that follow a BEGIN line with
// no END: lines of base64 (separated by newlines or "\n" escapes, possibly
// indented) and armour headers such as "Proc-Type: 4,ENCRYPTED". It stops at
// the first line that is neither, so prose after a truncated key survives.
func keyBody(s string, p int) int {
	blank := 0
	for {
		// Line separators and indentation.
		q, lines := p, 0
		for q < len(s) {
			switch {
			case s[q] == '\n':
				lines++
				q++
			case s[q] == '\r', isBlank(s[q]):
				q++
			case s[q] == '\\' && q+1 < len(s) && (s[q+1] == 'n' || s[q+1] == 'r'):
				if s[q+1] == 'n' {
					lines++
				}
				q += 2
			default:
				goto content
			}
		}
		return p
	content:
		if lines > 1 {
			blank++
			if blank > 1 {
				return p
			}
		}
		if n := armourHeader(s, q); n > 0 {
			p = q + n
			continue
		}
		r := q
		for r < len(s) && classes[cB64][s[r]] {
			r++
		}
		if r == q || strings.HasPrefix(s[q:], "-----") {
			return p
		}
		if t := skipBlanks(s, r); t < len(s) && !isLineBreak(s, t) {
			// Base64 that runs into something else: the end of a JSON
			// string, or the start of a prose line ("Then I ran").
			if isQuote(s[r]) || r-q >= 16 {
				return r
			}
			return p
		}
		p = r
	}
}

func isLineBreak(s string, i int) bool {
	switch s[i] {
	case '\n', '\r':
		return true
	case '\\':
		return i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r')
	}
	return false
}

var armourHeaders = []string{"Proc-Type:", "DEK-Info:", "Comment:", "Version:", "Hash:"}

// armourHeader returns the length of a PEM or OpenPGP armour header line at
// q, or 0.
func armourHeader(s string, q int) int {
	for _, h := range armourHeaders {
		if strings.HasPrefix(s[q:], h) {
			return lineEnd(s, q, 256) - q
		}
	}
	return 0
}
