package redact

import (
	"math"
	"strings"
)

// placeholderWords are values that stand for a secret without being one:
// defaults from documentation, null-ish literals, type names and schemes.
// Keeping them keeps commands and configs readable; none of them is a
// credential anyone could use that is not already public.
var placeholderWords = map[string]bool{
	"changeme": true, "change_me": true, "change-me": true, "changeit": true,
	"password": true, "passwd": true, "secret": true, "token": true, "pass": true,
	"null": true, "nil": true, "none": true, "undefined": true, "true": true,
	"false": true, "yes": true, "no": true, "on": true, "off": true,
	"empty": true, "todo": true, "tbd": true, "fixme": true, "n/a": true,
	"string": true, "str": true, "bytes": true, "int": true, "number": true,
	"bool": true, "boolean": true, "any": true, "unknown": true, "object": true,
	"required": true, "optional": true, "hidden": true, "masked": true,
	"omitted": true, "bearer": true, "basic": true, "dummy": true,
	"example": true, "sample": true, "placeholder": true, "redacted": true,
	"value": true, "foo": true, "bar": true, "foobar": true,
}

// placeholderParts mark a value as a placeholder wherever they appear.
var placeholderParts = []string{
	"${", "{{", "<%", "#{", "redacted", "placeholder", "changeme",
	"dummy", "xxxx", "****", "your_", "your-", "<your",
}

// isPlaceholder reports whether v stands for a secret rather than being one.
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '[':
		return true // $VAR, <token>, {token}, %s or %VAR%, [FILTERED]
	}
	lower := lowerASCII(v)
	if placeholderWords[lower] || strings.HasPrefix(lower, "your") {
		return true
	}
	for _, p := range placeholderParts {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if isFiller(v) || isConstantName(v) {
		return true
	}
	return false
}

// isFiller reports whether v is made only of filler such as "xxx", "***",
// "...", "•••" or "---".
func isFiller(v string) bool {
	for _, r := range v {
		switch r {
		case 'x', 'X', '*', '.', '-', '_', '#', '•', '…':
		default:
			return false
		}
	}
	return true
}

// isConstantName reports whether v looks like the name of a constant or an
// environment variable (YOUR_API_KEY, DB_PASSWORD): upper case with an
// underscore. Real secrets are not spelled that way.
func isConstantName(v string) bool {
	under := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '_':
			under = true
		case isUpper(c) || isDigit(c):
		default:
			return false
		}
	}
	return under && isUpper(v[0])
}

// repetitive reports whether a token body is a placeholder such as
// "xxxxxxxx…" or "0000000…": one byte fills most of it, or repeats eight
// times in a row.
func repetitive(body string) bool {
	if body == "" {
		return true
	}
	var counts [256]int
	run, best := 0, 0
	for i := 0; i < len(body); i++ {
		counts[body[i]]++
		best = max(best, counts[body[i]])
		if i > 0 && body[i] == body[i-1] {
			run++
			if run >= 7 {
				return true
			}
		} else {
			run = 0
		}
	}
	return best*10 > len(body)*6
}

// charKinds counts which of upper case, lower case and digits occur in v.
func charKinds(v string) int {
	var up, lo, di bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isUpper(c):
			up = true
		case isLower(c):
			lo = true
		case isDigit(c):
			di = true
		}
	}
	n := 0
	for _, b := range []bool{up, lo, di} {
		if b {
			n++
		}
	}
	return n
}

// mixed reports whether a token body mixes at least two of upper case, lower
// case and digits, as every random token does and kebab-case names do not.
func mixed(body string) bool { return charKinds(body) >= 2 }

// allKinds reports whether v has upper case, lower case and digits.
func allKinds(v string) bool { return charKinds(v) == 3 }

func hasDigit(v string) bool {
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			return true
		}
	}
	return false
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return v != ""
}

// isHexish reports whether v is hex with optional dashes: a hash, a UUID, a
// commit id. Those are identifiers far more often than secrets.
func isHexish(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isDigit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && c != '-' {
			return false
		}
	}
	return true
}

// randomLooking reports whether v looks like key material: long, one run of
// base64-ish bytes, all three kinds of characters, and at least 3.5 bits of
// entropy per byte. It is only asked about values that a secret-ish key
// names; on its own it would flag too much.
func randomLooking(v string) bool {
	if len(v) < 20 || len(v) > 4096 || isHexish(v) || !allKinds(v) {
		return false
	}
	body := strings.TrimRight(v, "=") // padding; an '=' inside makes it a key=value pair
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !isAlnum(c) && !strings.ContainsRune("+/_-.~%", rune(c)) {
			return false
		}
	}
	return entropy(v) >= 3.5
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h, n := 0.0, float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// secretWords are the stems that make an identifier a name for a secret.
var secretWords = []string{"pass", "pwd", "secret", "token", "key", "auth", "cred"}

func containsSecretWord(lower string) bool {
	for _, w := range secretWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// codeKeywords are words that begin an expression, not a literal.
var codeKeywords = map[string]bool{
	"await": true, "new": true, "this": true, "self": true, "function": true,
	"func": true, "lambda": true, "make": true, "return": true, "typeof": true,
	"not": true, "ref": true,
}

// looksLikeCode reports whether an unquoted value is an expression in code
// rather than a literal: a call or index (next is the byte after it), a
// dotted reference without digits (req.Password, process.env.API_KEY), a
// keyword, or a variable whose name says it holds a secret (apiKey,
// hashedPassword, auth).
func looksLikeCode(v string, next byte) bool {
	if (next == '(' || next == '[' || next == '{') && (isIdent(v) || isDottedName(v)) {
		return true
	}
	lower := lowerASCII(v)
	if codeKeywords[lower] {
		return true
	}
	if isDottedName(v) && !hasDigit(v) {
		return true
	}
	return isName(v) && containsSecretWord(lower)
}

// isName reports whether v is an identifier made of letters and underscores.
func isName(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isLetter(c) && c != '_' && c != '$' {
			return false
		}
	}
	return v != ""
}

// isIdent reports whether v is an identifier: a letter, '_' or '$', then
// letters, digits, '_' and '$'.
func isIdent(v string) bool {
	if v == "" || isDigit(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '_' && c != '$' {
			return false
		}
	}
	return true
}

// isDottedName reports whether v is a chain of identifiers such as
// cfg.Auth.Token.
func isDottedName(v string) bool {
	if len(v) > 80 || !strings.Contains(v, ".") {
		return false
	}
	for part := range strings.SplitSeq(v, ".") {
		if part == "" || len(part) > 40 || isDigit(part[0]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isAlnum(c) && c != '_' && c != '$' {
				return false
			}
		}
	}
	return true
}

// pathExts are file extensions that make a relative value a file name.
var pathExts = []string{".pem", ".key", ".json", ".txt", ".p12", ".pfx",
	".crt", ".cer", ".env", ".yaml", ".yml", ".gpg", ".asc", ".jks", ".toml"}

// looksLikePath reports whether v is a file path (a key file, a secrets
// mount) rather than the secret itself.
func looksLikePath(v string) bool {
	switch {
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "~/"),
		strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"):
		return !strings.ContainsAny(v, "+=")
	case len(v) > 3 && isLetter(v[0]) && v[1] == ':' && v[2] == '\\':
		return true
	}
	if strings.Contains(v, "/") {
		lower := lowerASCII(v)
		for _, ext := range pathExts {
			if strings.HasSuffix(lower, ext) {
				return true
			}
		}
	}
	return false
}

// isWordLike reports whether v is a plain word: letters only, short.
func isWordLike(v string) bool {
	return len(v) <= 20 && isName(v) && !strings.ContainsAny(v, "_$")
}
