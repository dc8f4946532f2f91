package redact

import (
	"cmp"
	"slices"
	"strings"
)

// A detector recognises one shape that starts with a fixed prefix at the
// start of a word. find is called with s[i:] starting with prefix; it adds
// what it found and returns where scanning may resume and whether it matched.
type detector struct {
	prefix string
	fold   bool // prefix is lower case and matched case-insensitively
	// context marks detectors that read the text around a secret (a
	// header name, a command line) rather than the secret's own shape;
	// they are not tried inside another detector's value.
	context bool
	find    func(sc *scanner, i, prio int) (next int, ok bool)
}

// token describes the common shape: a vendor prefix and a body of one byte
// class. Most providers now issue tokens with a prefix precisely so that
// scanners like this one can find them without guessing.
type token struct {
	kind, prefix string
	body         classID
	min, max     int               // body length; max 0 means unbounded
	valueOnly    bool              // redact the body, keep the prefix (AccountKey=…)
	check        func(string) bool // an extra test of the body
}

func (t token) detector() detector {
	return detector{prefix: t.prefix, find: t.find}
}

func (t token) find(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len(t.prefix)
	e := sc.runEnd(t.body, p)
	if sc.rejected(prio, e) {
		// This prefix already failed on a run that ends here. A later
		// start in the same run has a body that is a suffix of that one:
		// shorter, with no more kinds of character, followed by the same
		// byte; it would fail too. Without this, "sk-sk-sk-…" is quadratic.
		return i, false
	}
	n := e - p
	if n < t.min || (t.max > 0 && n > t.max) ||
		(e < len(s) && isAlnum(s[e])) || // a longer word that merely starts like a token
		repetitive(s[p:e]) || (t.check != nil && !t.check(s[p:e])) {
		sc.reject(prio, e)
		return i, false
	}
	if t.valueOnly {
		sc.add(t.kind, p, e, prio)
	} else {
		sc.add(t.kind, i, e, prio)
	}
	return e, true
}

// detectors are tried in this order at each word start; earlier ones win
// ties, so specific shapes come before generic ones.
var detectors = slices.Concat(
	[]detector{{prefix: "-----BEGIN ", find: findPrivateKey}},
	tokens("aws-access-key", cUpperDigit, 16, 16, nil, "AKIA", "ASIA", "ABIA", "ACCA"),
	tokens("github-token", cAlnum, 30, 0, nil, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
	tokens("github-token", cWord, 30, 0, nil, "github_pat_"),
	tokens("gitlab-token", cB64URL, 20, 0, mixed, "glpat-", "gldt-", "glrt-", "glptt-", "glsoat-"),
	tokens("slack-token", cSlack, 10, 0, hasDigit, "xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),
	[]detector{{prefix: "hooks.slack.com/", find: findSlackWebhook}},
	tokens("stripe-key", cAlnum, 16, 0, mixed, "sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"),
	tokens("anthropic-key", cB64URL, 20, 0, mixed, "sk-ant-"),
	tokens("openai-key", cB64URL, 20, 0, allKinds, "sk-"),
	tokens("google-api-key", cB64URL, 30, 0, mixed, "AIza"),
	tokens("google-oauth-secret", cB64URL, 20, 0, mixed, "GOCSPX-"),
	tokens("google-oauth-token", cOAuth, 20, 0, mixed, "ya29."),
	tokens("npm-token", cAlnum, 30, 0, mixed, "npm_"),
	tokens("pypi-token", cB64URL, 40, 0, nil, "pypi-Ag"),
	tokens("twilio-api-key", cHex, 32, 32, nil, "SK"),
	[]detector{{prefix: "SG.", find: findSendGrid}},
	tokens("mailgun-key", cHex, 32, 32, nil, "key-"),
	tokens("heroku-key", cB64URL, 20, 0, mixed, "HRKU-"),
	tokens("digitalocean-token", cHex, 64, 64, nil, "dop_v1_", "doo_v1_", "dor_v1_"),
	tokens("huggingface-token", cAlnum, 30, 0, mixed, "hf_"),
	[]detector{
		{prefix: "eyJ", find: findJWT},
		token{kind: "azure-storage-key", prefix: "AccountKey=", body: cB64, min: 20, valueOnly: true}.detector(),
		token{kind: "azure-storage-key", prefix: "SharedAccessKey=", body: cB64, min: 20, valueOnly: true}.detector(),
		{prefix: "authorization", fold: true, context: true, find: findAuthorization},
		{prefix: "bearer ", fold: true, context: true, find: findBearer},
		{prefix: "jdbc:oracle:", context: true, find: findOracleJDBC},
	},
	commandDetectors(),
)

func tokens(kind string, body classID, min, max int, check func(string) bool, prefixes ...string) []detector {
	ds := make([]detector, len(prefixes))
	for i, p := range prefixes {
		ds[i] = token{kind: kind, prefix: p, body: body, min: min, max: max, check: check}.detector()
	}
	return ds
}

// entry is a detector with its priority (its index in detectors).
type entry struct {
	*detector
	prio int
}

// byFirst lists, for each byte, the detectors whose prefix starts with it,
// longest prefix first (sk-ant- before sk-). It is built once, in init
// (detectors refer to it through tryAt), and only read afterwards.
var byFirst [256][]entry

// numDetectors is len(detectors), for the code that detectors call.
var numDetectors int

func init() {
	numDetectors = len(detectors)
	for i := range detectors {
		d := &detectors[i]
		firsts := []byte{d.prefix[0]}
		if d.fold && isLower(d.prefix[0]) {
			firsts = append(firsts, d.prefix[0]-('a'-'A'))
		}
		for _, c := range firsts {
			byFirst[c] = append(byFirst[c], entry{d, i})
		}
	}
	for c := range byFirst {
		slices.SortStableFunc(byFirst[c], func(a, b entry) int {
			return cmp.Compare(len(b.prefix), len(a.prefix))
		})
	}
}

// dispatch makes the one pass over the text that runs every prefixed
// detector: at each word start it tries the detectors for that first byte.
func (sc *scanner) dispatch() {
	for i := 0; i < len(sc.s); i++ {
		if byFirst[sc.s[i]] == nil || !boundaryBefore(sc.s, i) {
			continue
		}
		if next, ok := sc.tryAt(i, false); ok {
			i = max(i, next-1)
		}
	}
}

// tryAt runs the detectors for the word that starts at i, stopping at the
// first that matches. Inside a value (inner) only the detectors of token
// shapes run, so that "Bearer sk-…" is named openai-key.
func (sc *scanner) tryAt(i int, inner bool) (int, bool) {
	s := sc.s
	for _, e := range byFirst[s[i]] {
		if inner && e.context {
			continue
		}
		if e.fold {
			if !hasPrefixFold(s[i:], e.prefix) {
				continue
			}
		} else if !strings.HasPrefix(s[i:], e.prefix) {
			continue
		}
		if next, ok := e.find(sc, i, e.prio); ok {
			return next, true
		}
	}
	return i, false
}

// findJWT matches header.payload.signature where header and payload are
// base64url JSON objects (they start with "eyJ", the encoding of `{"`).
func findJWT(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	e1 := sc.runEnd(cB64URL, i)
	if e1-i < 10 || e1+4 > len(s) || s[e1] != '.' || !strings.HasPrefix(s[e1+1:], "eyJ") {
		return i, false
	}
	e2 := sc.runEnd(cB64URL, e1+1)
	if e2-e1 < 11 || e2 >= len(s) || s[e2] != '.' {
		return i, false
	}
	e3 := sc.runEnd(cB64URL, e2+1)
	sc.add("jwt", i, e3, prio)
	return e3, true
}

// findSendGrid matches SG.<id>.<secret>.
func findSendGrid(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len("SG.")
	e1 := sc.runEnd(cB64URL, p)
	if e1-p < 16 || e1 >= len(s) || s[e1] != '.' {
		return i, false
	}
	e2 := sc.runEnd(cB64URL, e1+1)
	if e2-e1-1 < 20 || !mixed(s[e1+1:min(e2, e1+65)]) {
		return i, false
	}
	sc.add("sendgrid-key", i, e2, prio)
	return e2, true
}

// findSlackWebhook redacts the secret path of a Slack incoming webhook and
// keeps the host, so the text still says where it posted.
func findSlackWebhook(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len("hooks.slack.com/")
	for _, kind := range []string{"services/", "workflows/", "triggers/"} {
		if !strings.HasPrefix(s[p:], kind) {
			continue
		}
		q := p + len(kind)
		e := sc.runEnd(cHookPath, q)
		if e-q < 20 || repetitive(strings.ReplaceAll(s[q:e], "/", "")) {
			return i, false
		}
		sc.add("slack-webhook", q, e, prio)
		return e, true
	}
	return i, false
}
