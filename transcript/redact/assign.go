package redact

import "strings"

// keyInfo is what the name of a key says about its value.
type keyInfo struct {
	kind     string
	weak     bool // the key only hints (session, key, salt): redact random-looking values only
	minLen   int
	spaceSep bool // "key value" also counts (aws configure set aws_secret_access_key V)
}

// valueSuffixes are trailing words that do not change what a key names:
// SECRET_KEY_BASE, password_hash and token_value are still secrets.
var valueSuffixes = map[string]bool{
	"value": true, "val": true, "str": true, "string": true, "b64": true,
	"base64": true, "hex": true, "raw": true, "plain": true, "plaintext": true,
	"enc": true, "encoded": true, "encrypted": true, "hash": true,
	"hashed": true, "digest": true, "base": true, "text": true, "data": true,
}

// keyQualifiers make "<qualifier>_key" (or one word, "apikey") a secret.
var keyQualifiers = map[string]string{
	"api": "api-key", "access": "api-key", "secret": "secret", "private": "private-key",
	"signing": "secret", "encryption": "secret", "decryption": "secret",
	"master": "secret", "account": "api-key", "client": "api-key",
	"app": "api-key", "license": "api-key", "service": "api-key",
	"subscription": "api-key", "auth": "api-key", "admin": "api-key",
	"deploy": "api-key", "shared": "secret", "webhook": "secret",
	"consumer": "api-key", "hmac": "secret", "jwt": "secret",
	"storage": "api-key", "crypt": "secret", "encrypt": "secret",
}

// weakKeys name values that are sometimes secrets and often not; only a
// random-looking value is redacted after them.
var weakKeys = map[string]bool{
	"key": true, "session": true, "sessionid": true, "cookie": true,
	"salt": true, "seed": true, "hmac": true,
}

// classifyKey says whether a key names a secret, and which kind. It reads
// the key as words (snake_case, kebab-case, dotted and camelCase all split),
// drops trailing words like _hash or _value, and looks at the last word and
// the one before it: max_tokens, token_type and password_reset_url name no
// secret; DB_PASSWORD, clientSecret, x-api-key and OPENAI_API_KEY do.
func classifyKey(key string) (keyInfo, bool) {
	words := splitKey(key)
	for len(words) > 1 && valueSuffixes[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return keyInfo{}, false
	}
	last, prev := words[len(words)-1], ""
	if len(words) > 1 {
		prev = words[len(words)-2]
	}
	has := func(w string) bool {
		for _, x := range words {
			if x == w || strings.HasPrefix(x, w) {
				return true
			}
		}
		return false
	}
	info := keyInfo{minLen: 6}
	switch {
	case last == "pass" || last == "pwd" || last == "passphrase" || last == "passcode" ||
		strings.HasSuffix(last, "password") || strings.HasSuffix(last, "passwd"):
		info.kind, info.minLen = "password", 3
	case strings.HasSuffix(last, "secret"):
		info.kind = "secret"
		if prev == "client" || last == "clientsecret" {
			info.kind = "client-secret"
		}
	case strings.HasSuffix(last, "token"):
		info.kind = "token"
	case strings.HasSuffix(last, "key"):
		q := strings.TrimSuffix(last, "key")
		if q == "" {
			q = prev
		}
		switch kind, ok := keyQualifiers[q]; {
		case ok:
			info.kind = kind
		case isConstantName(key) && len(words) > 1:
			info.kind = "api-key" // .env style: STRIPE_KEY, ENCRYPTION_KEY
		case last == "key":
			info.kind, info.weak = "secret", true
		default:
			return keyInfo{}, false // hotkey, monkey, keyboard…
		}
	case last == "auth" || last == "basicauth" || last == "httpauth" ||
		last == "credential" || last == "credentials" || last == "creds":
		info.kind = "secret"
	case weakKeys[last]:
		info.kind, info.weak = "secret", true
	default:
		return keyInfo{}, false
	}
	switch {
	case has("aws") && has("secret"), has("secret") && has("access") && last == "key":
		info.kind, info.spaceSep = "aws-secret-key", true
	case has("heroku") && !info.weak:
		info.kind = "heroku-key"
	case has("twilio") && info.kind == "token":
		info.kind = "twilio-auth-token"
	case has("vault") && info.kind == "token":
		info.kind = "vault-token" // VAULT_TOKEN=s.…, X-Vault-Token: s.…
	case has("mailgun") && !info.weak:
		info.kind = "mailgun-key"
	case has("sendgrid") && !info.weak:
		info.kind = "sendgrid-key"
	}
	return info, true
}

// keyStems are in every key that classifyKey or specialKey accepts. Most
// keys in a transcript ("type", "content", "uuid") have none, and checking
// for them first spares the work of splitting and classifying: with this
// check and the one on blank separators, BenchmarkString went from 41 to
// over 100 MB/s.
var keyStems = []string{"pass", "pwd", "secret", "token", "key", "auth",
	"cred", "session", "cookie", "salt", "seed", "hmac", "sig", "by"}

// stemPairs has, for each lower-case first byte of a stem, a bit for each
// second byte ('a' is bit 0): a cheap test before comparing stems.
var stemPairs = func() (t [256]uint32) {
	for _, s := range keyStems {
		t[s[0]] |= 1 << (s[1] - 'a')
	}
	return t
}()

func mentionsSecret(key string) bool {
	for i := 0; i+1 < len(key); i++ {
		c1, c2 := key[i]|0x20, key[i+1]|0x20
		if c2 < 'a' || c2 > 'z' || stemPairs[c1]&(1<<(c2-'a')) == 0 {
			continue
		}
		for _, stem := range keyStems {
			if stem[0] == c1 && hasPrefixFold(key[i:], stem) {
				return true
			}
		}
	}
	return false
}

// splitKey splits a key into lower-case words at _ - . and camelCase
// boundaries (APIKey is "api", "key").
func splitKey(key string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, lowerASCII(key[start:end]))
		}
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '_' || c == '-' || c == '.' {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && isUpper(c) {
			p := key[i-1]
			if isLower(p) || isDigit(p) || (isUpper(p) && i+1 < len(key) && isLower(key[i+1])) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(key))
	return words
}

// separator kinds between a key and its value.
type sepKind int

const (
	sepNone  sepKind = iota
	sepEq            // key=value, key := value, key => value
	sepColon         // key: value, "key": "value"
	sepSpace         // --password value
	sepComma         // Setenv("DB_PASSWORD", "value")
	sepXML           // <password>value</password>
)

// assignments finds values whose key names a secret, in every syntax a
// transcript shows: KEY=value, export KEY=value, key: value, "key": "value",
// key = "value", key := "value", 'key' => 'value', --key value, --key=value,
// <key>value</key>, and the same inside JSON strings with \" and \n escapes.
func (sc *scanner) assignments() {
	s := sc.s
	for i := 0; i < len(s); {
		c := s[i]
		if !isKeyByte(c) {
			if c == '\\' && i+1 < len(s) && isEscapeLetter(s[i+1]) {
				i += 2
			} else {
				i++
			}
			continue
		}
		start := i
		for i < len(s) && isKeyByte(s[i]) {
			i++
		}
		if next := sc.assignment(start, i); next > i {
			i = next
		}
	}
}

// assignment looks at the key s[start:end]; if a secret value follows, it
// adds it and returns where the value ends.
func (sc *scanner) assignment(start, end int) int {
	s := sc.s
	if end-start < 2 || end-start > 128 {
		return end
	}
	raw := s[start:end]
	sep, p, keyQuote := separator(s, start, end)
	if sep == sepNone {
		return end
	}
	if sep == sepSpace && raw[0] != '-' {
		// Only flags and a few keys take a value after a blank
		// (…_access_key V, IDENTIFIED BY 'V', PASSWORD 'V'); most words
		// in prose are followed by one, so rule the rest out cheaply.
		switch raw[len(raw)-1] | 0x20 {
		case 'y', 'd':
		default:
			return end
		}
	}
	if sep == sepColon && start >= 3 && s[start-3:start] == "://" {
		return end // user:password in a URL: urls handles it
	}
	if !mentionsSecret(raw) {
		return end
	}
	key := strings.Trim(raw, "-.")
	info, ok := classifyKey(key)
	if !ok {
		info, ok = specialKey(s, start, key, sep)
		if !ok {
			return end
		}
	}
	flag := strings.HasPrefix(raw, "--")
	switch sep {
	case sepSpace:
		if !flag && !info.spaceSep && !sqlPassword(key, s, p) {
			return end
		}
		if p < len(s) && s[p] == '-' {
			return end // the next flag, not a value
		}
	case sepComma:
		if keyQuote == 0 || !isConstantName(key) {
			return end
		}
	}
	v := sc.readValue(p, sep)
	if !v.ok {
		return end
	}
	if !v.quoted && sep != sepXML && isTypeName(s[v.start:v.end]) {
		// A typed parameter with a default: password: str = "hunter2".
		q := skipBlanks(s, v.next)
		if q+1 < len(s) && s[q] == '=' && s[q+1] != '=' {
			v = sc.readValue(skipBlanks(s, q+1), sepEq)
			if !v.ok {
				return end
			}
		}
	}
	if !acceptValue(s, v, sep, info) {
		return end
	}
	sc.add(info.kind, v.start, v.end, prioAssign)
	return v.end
}

// specialKey recognises keys that are secrets only in one place: SQL's
// IDENTIFIED BY '…' and the sig= of an Azure shared access signature.
func specialKey(s string, start int, key string, sep sepKind) (keyInfo, bool) {
	lower := lowerASCII(key)
	switch {
	case lower == "by" && sep == sepSpace && start >= 11 && hasPrefixFold(s[start-11:], "identified "):
		return keyInfo{kind: "password", minLen: 1, spaceSep: true}, true
	case lower == "sig" && sep == sepEq && start > 0 && (s[start-1] == '&' || s[start-1] == '?'):
		return keyInfo{kind: "azure-sas-signature", minLen: 20}, true
	}
	return keyInfo{}, false
}

// sqlPassword reports whether key is SQL's PASSWORD followed by a quoted
// literal: CREATE USER app WITH PASSWORD 'x'.
func sqlPassword(key, s string, p int) bool {
	return lowerASCII(key) == "password" && p < len(s) && s[p] == '\''
}

// separator reads what follows the key s[start:end]: an optional closing
// quote, then = := => : , or a blank. It returns the kind, where the value
// starts, and the quote that closed the key, if any.
func separator(s string, start, end int) (sepKind, int, byte) {
	p := end
	var keyQuote byte
	switch {
	case p < len(s) && isQuote(s[p]):
		keyQuote = s[p]
		p++
	case p+1 < len(s) && s[p] == '\\' && isQuote(s[p+1]):
		keyQuote = s[p+1]
		p += 2
	case p+1 < len(s) && (s[p] == '?' || s[p] == '!') && s[p+1] == ':':
		p++ // TypeScript: token?: string
	}
	p = skipStars(s, p)
	q := skipBlanks(s, p)
	if q >= len(s) {
		return sepNone, 0, 0
	}
	sep := sepNone
	switch c := s[q]; c {
	case ':':
		switch {
		case q+1 < len(s) && s[q+1] == '=':
			sep, q = sepEq, q+2
		case q+1 < len(s) && s[q+1] == ':':
			return sepNone, 0, 0
		default:
			sep, q = sepColon, q+1
		}
	case '=':
		switch {
		case q+1 < len(s) && s[q+1] == '=':
			return sepNone, 0, 0
		case q+1 < len(s) && s[q+1] == '>':
			sep, q = sepEq, q+2
		default:
			sep, q = sepEq, q+1
		}
	case '>':
		if q != end || start == 0 || s[start-1] != '<' {
			return sepNone, 0, 0
		}
		return sepXML, q + 1, 0
	case ',':
		if keyQuote == 0 {
			return sepNone, 0, 0
		}
		sep, q = sepComma, q+1
	default:
		if q == p || keyQuote != 0 || s[q] == '\n' || s[q] == '\r' {
			return sepNone, 0, 0
		}
		return sepSpace, q, 0
	}
	q = skipBlanks(s, skipStars(s, q))
	return sep, q, keyQuote
}

// skipStars skips the ** of Markdown bold around a key: **Password:** x.
func skipStars(s string, p int) int {
	for n := 0; n < 2 && p < len(s) && s[p] == '*'; n++ {
		p++
	}
	return p
}

// value is the span of a value in the text.
type value struct {
	start, end int
	next       int // just past the value and its closing quote
	quoted     bool
	ok         bool
}

// maxQuoted bounds the search for a closing quote.
const maxQuoted = 4096

// readValue reads the value that starts at p: quoted ("…", '…', `…`, \"…\"
// inside a JSON string, Python's f"…"), up to </ for XML, or unquoted.
func (sc *scanner) readValue(p int, sep sepKind) value {
	s := sc.s
	if p >= len(s) {
		return value{}
	}
	if sep == sepXML {
		e := strings.IndexByte(s[p:min(len(s), p+maxQuoted)], '<')
		if e < 0 || !strings.HasPrefix(s[p+e:], "</") {
			return value{}
		}
		return value{p, p + e, p + e, true, true}
	}
	if p+1 < len(s) && strings.IndexByte("fbrFBR", s[p]) >= 0 && isQuote(s[p+1]) {
		p++
	}
	switch {
	case isQuote(s[p]):
		q := s[p]
		stop := min(len(s), p+1+maxQuoted)
		for e := p + 1; e < stop; e++ {
			switch s[e] {
			case '\\':
				e++
			case q:
				return value{p + 1, e, e + 1, true, true}
			case '\n':
				e = stop
			}
		}
		return sc.unquoted(p + 1)
	case s[p] == '\\' && p+1 < len(s) && isQuote(s[p+1]):
		close := `\` + s[p+1:p+2]
		e := strings.Index(s[p+2:min(len(s), p+2+maxQuoted)], close)
		if e < 0 {
			return sc.unquoted(p + 2)
		}
		return value{p + 2, p + 2 + e, p + 2 + e + 2, true, true}
	}
	return sc.unquoted(p)
}

// unquoted reads a run of value bytes; a full stop that ends a sentence is
// not part of it.
func (sc *scanner) unquoted(p int) value {
	s := sc.s
	e := sc.runEnd(cValue, p)
	next := e
	for e > p && s[e-1] == '.' {
		e--
	}
	return value{p, e, next, false, e > p}
}

// typeNames are type annotations that can sit where a value would:
// password: string, token?: str.
var typeNames = map[string]bool{
	"string": true, "str": true, "bytes": true, "int": true, "number": true,
	"bool": true, "boolean": true, "any": true, "unknown": true, "object": true,
	"secretstr": true, "secret": true, "optional": true, "text": true, "varchar": true,
}

func isTypeName(v string) bool { return typeNames[lowerASCII(v)] }

// acceptValue decides whether a value after a secret-ish key is a secret.
func acceptValue(s string, v value, sep sepKind, info keyInfo) bool {
	val := s[v.start:v.end]
	if len(val) > maxQuoted {
		// Nothing this long is a placeholder or a reference; and not
		// looking into it keeps a text of repeated keys linear.
		return !info.weak
	}
	if isPlaceholder(val) || strings.Contains(val, "://") || looksLikePath(val) {
		return false
	}
	if v.quoted {
		// A quoted "value" that begins with ) , ; or + is the gap between
		// two string literals: input("Token: "); f("x").
		if strings.IndexByte("),;+", val[0]) >= 0 {
			return false
		}
	} else {
		next := byte(0)
		if v.next < len(s) {
			next = s[v.next]
		}
		if looksLikeCode(val, next) {
			return false
		}
		if val[0] == '!' && isName(val[1:]) {
			return false // a YAML tag: !vault, !Ref
		}
		if sep == sepColon && isWordLike(val) && (continuesLine(s, v.next) ||
			v.end < len(s) && strings.IndexByte(",.;:!?", s[v.end]) >= 0) {
			return false // prose: "Password: must be at least 12 characters"
		}
	}
	if len(val) < info.minLen {
		return false
	}
	if info.kind != "password" && allDigits(val) && len(val) < 10 {
		return false // counts, limits, ports
	}
	if info.weak && !randomLooking(val) {
		return false
	}
	return true
}

// continuesLine reports whether more words follow on the same line after p.
func continuesLine(s string, p int) bool {
	if p >= len(s) || !isBlank(s[p]) {
		return false
	}
	q := skipBlanks(s, p)
	return q < len(s) && !isSpace(s[q]) && s[q] != '#' && !(s[q] == '\\' && q+1 < len(s) && isEscapeLetter(s[q+1]))
}
