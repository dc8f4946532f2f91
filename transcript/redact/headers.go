package redact

import "strings"

// findAuthorization redacts the credentials of an Authorization (or
// Proxy-Authorization) header and keeps its scheme, in every spelling a
// transcript shows: an HTTP dump ("Authorization: Bearer …"), a curl -H
// argument, JSON or YAML ("authorization": "Basic …"), and a literal in code
// (Header.Set("Authorization", "Bearer …")). A header built from a variable
// ("Bearer " + token, `Bearer ${token}`) has no literal credential and is
// kept.
func findAuthorization(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len("authorization")
	if p < len(s) && isAlnum(s[p]) {
		return i, false
	}
	keyQuoted := false
	if p < len(s) && isQuote(s[p]) {
		keyQuoted = true
		p++
	} else if p+1 < len(s) && s[p] == '\\' && isQuote(s[p+1]) {
		keyQuoted = true
		p += 2
	}
	p = skipBlanks(s, p)
	comma := false
	switch {
	case p >= len(s):
		return i, false
	case s[p] == ':' || s[p] == '=':
		if p+1 < len(s) && (s[p+1] == s[p] || s[p+1] == '>') {
			return i, false // "::", "==", "=>"
		}
	case s[p] == ',' && keyQuoted:
		comma = true // Header.Set("Authorization", "…")
	default:
		return i, false
	}
	p = skipBlanks(s, p+1)
	if p+1 < len(s) && strings.IndexByte("fbrFBR", s[p]) >= 0 && isQuote(s[p+1]) {
		p++ // Python f"…", b"…", r"…"
	}
	quoted := false
	switch {
	case p < len(s) && isQuote(s[p]):
		quoted = true
		p++
	case p+1 < len(s) && s[p] == '\\' && isQuote(s[p+1]):
		quoted = true
		p += 2
	case comma:
		return i, false
	}
	// The credentials are one token, after a scheme when there is one.
	vs, ve := p, headerToken(sc, p)
	scheme := ""
	if t := skipBlanks(s, ve); t > ve && t < len(s) && isSchemeName(s[p:ve]) {
		if e := headerToken(sc, t); e > t {
			scheme, vs, ve = lowerASCII(s[p:ve]), t, e
		}
	}
	value := s[vs:ve]
	if !quoted {
		// Unquoted: code such as `Authorization: authHeader,` or a YAML
		// value; trailing punctuation is not part of it.
		value = strings.TrimRight(value, ",;")
		next := byte(0)
		if vs+len(value) < len(s) {
			next = s[vs+len(value)]
		}
		if looksLikeCode(value, next) || strings.ContainsAny(value, "(+") {
			return i, false
		}
	}
	if len(value) < 8 || isPlaceholder(value) {
		return i, false
	}
	kind := "authorization-header"
	switch scheme {
	case "bearer":
		kind = "bearer-token"
	case "basic":
		kind = "basic-auth"
	}
	ve = vs + len(value)
	sc.add(kind, vs, ve, prio)
	sc.tryAt(vs, true) // a token of a known kind (Bearer sk-…) names the marker
	return ve, true
}

// headerToken returns the end of the token that starts at p: up to a blank,
// a quote, a line break or an escaped line break or quote.
func headerToken(sc *scanner, p int) int {
	s := sc.s
	e := sc.runEnd(cHeader, p)
	if k := strings.IndexByte(s[p:e], '\\'); k >= 0 {
		for j := p + k; j+1 < e; j++ {
			if s[j] == '\\' && strings.IndexByte("nrt\"'", s[j+1]) >= 0 {
				return j
			}
		}
	}
	return e
}

// isSchemeName reports whether w can be an HTTP authentication scheme
// (Bearer, Basic, token, Digest, AWS4-HMAC-SHA256, …).
func isSchemeName(w string) bool {
	if len(w) > 24 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !isAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// findBearer redacts a bearer token written outside a header: in a log line
// ("using Bearer eyJ…"), a config value ("Bearer sk-…"). It asks for at
// least 20 bytes of token68 that mix character kinds, so that prose ("Bearer
// tokens expire") and placeholders ("Bearer YOUR_TOKEN") are kept.
func findBearer(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := skipBlanks(s, i+len("bearer "))
	e := sc.runEnd(cToken68, p)
	v := s[p:e]
	if len(v) < 20 || !mixed(v) || isPlaceholder(v) {
		return i, false
	}
	sc.add("bearer-token", p, e, prio)
	sc.tryAt(p, true)
	return e, true
}
