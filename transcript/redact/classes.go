package redact

// byteSet is a set of bytes, indexed by byte.
type byteSet [256]bool

// newSet builds a set from a spec such as "A-Za-z0-9_-": ranges a-b and
// single bytes; a '-' at the end is literal.
func newSet(spec string) *byteSet {
	var set byteSet
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for b := int(spec[i]); b <= int(spec[i+2]); b++ {
				set[b] = true
			}
			i += 2
			continue
		}
		set[spec[i]] = true
	}
	return &set
}

// classID names the byte classes that tokens are made of. Each has a run
// memo in the scanner.
type classID int

const (
	cAlnum      classID = iota // A-Za-z0-9
	cWord                      // A-Za-z0-9_
	cB64URL                    // A-Za-z0-9_- (JWT segments, most modern tokens)
	cB64                       // A-Za-z0-9+/= (classic base64)
	cSlack                     // A-Za-z0-9-
	cToken68                   // RFC 7235 token68: A-Za-z0-9-._~+/=
	cOAuth                     // A-Za-z0-9._-
	cHookPath                  // webhook URL paths
	cUpperDigit                // A-Z0-9
	cHex                       // 0-9a-f
	cDigit                     // 0-9
	cB64Any                    // A-Za-z0-9+/=_- (base64 of either alphabet)
	cBech32                    // the upper-case bech32 alphabet (age keys)
	cValue                     // an unquoted value in an assignment
	cHeader                    // a token in a header value
	numClasses
)

var classes = [numClasses]*byteSet{
	cAlnum:      newSet("A-Za-z0-9"),
	cWord:       newSet("A-Za-z0-9_"),
	cB64URL:     newSet("A-Za-z0-9_-"),
	cB64:        newSet("A-Za-z0-9+/="),
	cSlack:      newSet("A-Za-z0-9-"),
	cToken68:    newSet("A-Za-z0-9._~+/=-"),
	cOAuth:      newSet("A-Za-z0-9._-"),
	cHookPath:   newSet("A-Za-z0-9/_+-"),
	cUpperDigit: newSet("A-Z0-9"),
	cHex:        newSet("0-9a-f"),
	cDigit:      newSet("0-9"),
	cB64Any:     newSet("A-Za-z0-9+/=_-"),
	cBech32:     newSet("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
	cValue:      complement(" \t\n\r\v\f\"'`,;&|<>(){}[]\\"),
	cHeader:     complement(" \t\n\r\v\f\"'`"),
}

// complement is every byte but the ones in stops. An unquoted value in an
// assignment is anything but white space, quotes, and the punctuation that
// ends a value in the shells, query strings, connection strings and code
// where assignments appear.
func complement(stops string) *byteSet {
	var set byteSet
	for b := range set {
		set[b] = true
	}
	for _, b := range []byte(stops) {
		set[b] = false
	}
	return &set
}

func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return isLower(c) || isUpper(c) }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

func isSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// isKeyByte reports whether c can be part of the key of an assignment
// (spring.datasource.password, x-api-key, --client-secret).
func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '.' || c == '-' }

// isEscapeLetter reports whether c, after a backslash, is an escaped line
// break or tab, as in transcripts stored as JSON strings.
func isEscapeLetter(c byte) bool { return c == 'n' || c == 'r' || c == 't' }

// boundaryBefore reports whether a token may start at s[i]: the byte before
// is not a letter or digit, or is the letter of a "\n" escape.
func boundaryBefore(s string, i int) bool {
	if i == 0 || !isAlnum(s[i-1]) {
		return true
	}
	return i >= 2 && s[i-2] == '\\' && isEscapeLetter(s[i-1])
}

// skipBlanks returns the first index at or after p that is not a space or tab.
func skipBlanks(s string, p int) int {
	for p < len(s) && isBlank(s[p]) {
		p++
	}
	return p
}

// lineEnd returns the end of the line that contains p: a newline, an escaped
// "\n", or limit bytes, whichever comes first.
func lineEnd(s string, p, limit int) int {
	stop := min(len(s), p+limit)
	for e := p; e < stop; e++ {
		switch s[e] {
		case '\n', '\r':
			return e
		case '\\':
			if e+1 < len(s) && (s[e+1] == 'n' || s[e+1] == 'r') {
				return e
			}
		}
	}
	return stop
}

// hasPrefixFold is strings.HasPrefix with ASCII case folding of s; prefix
// is lower case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// lowerASCII lower-cases ASCII letters only, so that offsets never move.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if isUpper(b[j]) {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
