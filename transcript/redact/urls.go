package redact

import "strings"

// dbSchemes are the URL schemes of connection strings; a password in one of
// them is reported as kind "connection-string", elsewhere as "url-password".
var dbSchemes = map[string]bool{
	"postgres": true, "postgresql": true, "mysql": true, "mariadb": true,
	"mongodb": true, "mongodb+srv": true, "redis": true, "rediss": true,
	"amqp": true, "amqps": true, "mssql": true, "sqlserver": true,
	"clickhouse": true, "cockroachdb": true, "couchdb": true, "neo4j": true,
	"neo4j+s": true, "bolt": true, "nats": true, "kafka": true, "ldap": true,
	"ldaps": true, "oracle": true, "snowflake": true, "memcached": true,
}

// urls finds scheme://user:password@host and redacts the password only:
// the user and host say where something connected, which is worth keeping.
// ssh remotes (git@github.com:…), URLs without a password, and a port
// followed by a query that holds an '@' (localhost:8080?to=a@b) are kept.
func (sc *scanner) urls() {
	s := sc.s
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], "://")
		if k < 0 {
			return
		}
		k += off
		off = k + 3
		a := k
		for a > 0 && (isAlnum(s[a-1]) || s[a-1] == '+' || s[a-1] == '.' || s[a-1] == '-') {
			a--
		}
		for a < k && !isLetter(s[a]) {
			a++
		}
		if a == k {
			continue
		}
		h := k + 3
		e := h
		for e < len(s) && e-h < 1024 && !isAuthorityEnd(s[e]) {
			e++
		}
		at := strings.LastIndexByte(s[h:e], '@')
		if at < 0 {
			continue
		}
		at += h
		if at+1 < e && isSentryDSN(s, h, at, e) {
			sc.add("sentry-dsn", h, at, prioURL)
			off = max(off, at)
			continue
		}
		colon := strings.IndexByte(s[h:at], ':')
		if colon < 0 || at+1 >= e {
			continue
		}
		colon += h
		user, pass := s[h:colon], s[colon+1:at]
		if strings.ContainsAny(user, "?#=&") || isPortThenQuery(pass) || isPlaceholder(pass) {
			continue
		}
		kind := "url-password"
		if dbSchemes[lowerASCII(s[a:k])] {
			kind = "connection-string"
		}
		sc.add(kind, colon+1, at, prioURL)
		off = max(off, at)
	}
}

// isSentryDSN reports whether the userinfo s[h:at] of a URL whose authority
// ends at e is the key of a Sentry DSN: 32 hex bytes (with the legacy
// ":secret" after them or not), on a Sentry host or before the path of a
// project id (https://<key>@sentry.example.com/1). A user name, or 32 hex
// bytes in front of some other URL, is left to the rules for passwords.
func isSentryDSN(s string, h, at, e int) bool {
	key, _, _ := strings.Cut(s[h:at], ":")
	if len(key) != 32 || !isLowerHex(key) {
		return false
	}
	if strings.Contains(lowerASCII(s[at+1:e]), "sentry") {
		return true
	}
	p := e + 1
	d := p
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	return e < len(s) && s[e] == '/' && d > p && (d == len(s) || isAuthorityEnd(s[d]) || s[d] == '?')
}

func isLowerHex(v string) bool {
	for i := 0; i < len(v); i++ {
		if !classes[cHex][v[i]] {
			return false
		}
	}
	return true
}

// isAuthorityEnd reports whether c ends the authority part of a URL as it
// appears in running text. '?' and '#' do not: raw passwords contain them.
func isAuthorityEnd(c byte) bool {
	return isSpace(c) || c == '/' || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>' || c == '\\'
}

// isPortThenQuery reports whether what follows "host:" is a port and a query
// or fragment, not a password.
func isPortThenQuery(v string) bool {
	i := 0
	for i < len(v) && isDigit(v[i]) {
		i++
	}
	return i > 0 && i < len(v) && (v[i] == '?' || v[i] == '#')
}

// findOracleJDBC redacts the password of jdbc:oracle:thin:user/pass@host.
func findOracleJDBC(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len("jdbc:oracle:")
	for p < len(s) && isLetter(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != ':' {
		return i, false
	}
	u := p + 1
	q := u
	for q < len(s) && q-u < 128 && !isSpace(s[q]) && !strings.ContainsRune("/@:\"'", rune(s[q])) {
		q++
	}
	if q == u || q >= len(s) || s[q] != '/' {
		return i, false
	}
	r := q + 1
	for r < len(s) && r-q < 256 && !isSpace(s[r]) && s[r] != '@' && !isQuote(s[r]) {
		r++
	}
	if r >= len(s) || s[r] != '@' || isPlaceholder(s[q+1:r]) {
		return i, false
	}
	sc.add("connection-string", q+1, r, prio)
	return r, true
}
