package redact

import (
	"cmp"
	"slices"
	"strings"
	"sync"
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
// ties, so specific shapes come before generic ones. They and the tables built
// from them (byFirst, pairs) are made on the first Find, not at package init:
// that took 0.10 ms of every reflect process (GODEBUG=inittrace=1), 3% of the
// lean binary's start-up, in the many that never redact (reflect version,
// PostToolUse, a gated Stop).
var detectors []detector

// tables builds detectors, byFirst, pairs and numDetectors once.
var tables sync.Once

func allDetectors() []detector {
	return slices.Concat(
		[]detector{{prefix: "-----BEGIN ", find: findPrivateKey}},
		tokens("aws-access-key", cUpperDigit, 16, 16, nil, "AKIA", "ASIA", "ABIA", "ACCA"),
		tokens("github-token", cAlnum, 30, 0, nil, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		tokens("github-token", cWord, 30, 0, nil, "github_pat_"),
		tokens("gitlab-token", cB64URL, 20, 0, mixed, "glpat-", "gldt-", "glrt-", "glptt-", "glsoat-",
			"glcbt-", "glft-", "gloas-", "glimt-", "glagent-", "GR1348941"),
		tokens("slack-token", cSlack, 10, 0, hasDigit, "xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-",
			"xoxe.xoxp-", "xoxe.xoxb-"), // xoxe. starts a rotating token's refresh form
		[]detector{{prefix: "hooks.slack.com/", find: findSlackWebhook}},
		tokens("stripe-key", cAlnum, 16, 0, mixed, "sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"),
		tokens("anthropic-key", cB64URL, 20, 0, mixed, "sk-ant-"),
		tokens("openai-key", cB64URL, 20, 0, allKinds, "sk-"),
		tokens("google-api-key", cB64URL, 30, 0, mixed, "AIza"),
		tokens("google-oauth-secret", cB64URL, 20, 0, mixed, "GOCSPX-"),
		tokens("google-oauth-token", cOAuth, 20, 0, mixed, "ya29."),
		tokens("google-hmac-key", cUpperDigit, 40, 0, mixed, "GOOG1"),
		tokens("npm-token", cAlnum, 30, 0, mixed, "npm_"),
		tokens("pypi-token", cB64URL, 40, 0, nil, "pypi-Ag"),
		tokens("rubygems-key", cHex, 48, 48, nil, "rubygems_"),
		tokens("twilio-api-key", cHex, 32, 32, nil, "SK"),
		[]detector{{prefix: "AC", find: findTwilioSID}},
		[]detector{{prefix: "SG.", find: findSendGrid}},
		tokens("mailgun-key", cHex, 32, 32, nil, "key-"),
		tokens("heroku-key", cB64URL, 20, 0, mixed, "HRKU-"),
		tokens("digitalocean-token", cHex, 64, 64, nil, "dop_v1_", "doo_v1_", "dor_v1_"),
		tokens("huggingface-token", cAlnum, 30, 0, mixed, "hf_"),
		// HashiCorp Vault: service, batch and recovery tokens. A legacy "s."
		// token has no shape of its own; only a key (VAULT_TOKEN=, X-Vault-Token:)
		// or "vault login" names it.
		tokens("vault-token", cB64URL, 24, 0, mixed, "hvs.", "hvb.", "hvr."),
		[]detector{
			{prefix: "discord.com/api/", find: findDiscordWebhook},
			{prefix: "discordapp.com/api/", find: findDiscordWebhook},
		},
		discordBotDetectors(),
		telegramDetectors(),
		[]detector{pair{"postman-key", "PMAK-", cHex, 24, '-', cHex, 34}.detector()},
		tokens("age-secret-key", cBech32, 58, 58, nil, "AGE-SECRET-KEY-1"),
		tokens("shopify-token", cHex, 32, 32, nil, "shpat_", "shpca_", "shppa_", "shpss_"),
		tokens("databricks-token", cHex, 32, 32, nil, "dapi"),
		tokens("linear-key", cAlnum, 40, 40, mixed, "lin_api_"),
		tokens("doppler-token", cAlnum, 40, 0, mixed, "dp.pt.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
		tokens("doppler-token", cOAuth, 40, 0, mixed, "dp.st."), // dp.st.<config>.<secret>
		tokens("docker-token", cB64URL, 24, 0, mixed, "dckr_pat_", "dckr_oat_"),
		tokens("docker-swarm-token", cSlack, 60, 0, mixed, "SWMTKN-1-"),
		tokens("grafana-token", cB64, 32, 0, mixed, "glc_"),
		tokens("grafana-token", cWord, 40, 0, mixed, "glsa_"),
		tokens("newrelic-key", cUpperDigit, 27, 27, mixed, "NRAK-"),
		tokens("pulumi-token", cHex, 40, 40, nil, "pul-"),
		tokens("supabase-token", cHex, 40, 40, nil, "sbp_"),
		tokens("supabase-token", cB64URL, 20, 0, mixed, "sb_secret_"),
		tokens("tailscale-key", cSlack, 20, 0, mixed, "tskey-"),
		tokens("sentry-token", cHex, 64, 64, nil, "sntryu_"),
		tokens("sentry-token", cB64Any, 50, 0, mixed, "sntrys_"),
		tokens("atlassian-token", cB64Any, 100, 0, mixed, "ATATT3"),
		tokens("notion-token", cAlnum, 40, 0, mixed, "ntn_", "secret_"),
		tokens("fly-token", cB64URL, 40, 0, mixed, "fo1_"),
		tokens("fly-token", cB64, 40, 0, mixed, "fm2_"),
		tokens("netlify-token", cB64URL, 36, 0, mixed, "nfp_"),
		tokens("groq-key", cAlnum, 50, 0, mixed, "gsk_"),
		tokens("replicate-token", cAlnum, 37, 37, mixed, "r8_"),
		tokens("xai-key", cAlnum, 70, 0, mixed, "xai-"),
		tokens("perplexity-key", cAlnum, 40, 0, mixed, "pplx-"),
		tokens("planetscale-token", cB64URL, 32, 0, mixed, "pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
		tokens("square-token", cB64URL, 22, 0, mixed, "sq0atp-", "sq0csp-"),
		tokens("mapbox-token", cOAuth, 60, 0, mixed, "sk.eyJ"),
		tokens("dropbox-token", cOAuth, 100, 0, mixed, "sl."),
		tokens("figma-token", cB64URL, 40, 0, mixed, "figd_"),
		tokens("contentful-token", cB64URL, 43, 0, mixed, "CFPAT-"),
		tokens("sourcegraph-token", cWord, 40, 0, nil, "sgp_"),
		tokens("buildkite-token", cHex, 40, 40, nil, "bkua_"),
		tokens("circleci-token", cWord, 40, 0, mixed, "CCIPAT_"),
		tokens("alibaba-access-key", cAlnum, 12, 20, mixed, "LTAI"),
		tokens("jfrog-token", cAlnum, 60, 0, mixed, "AKCp"),
		tokens("jfrog-token", cAlnum, 50, 0, mixed, "cmVmdGtu"), // base64 of "reftkn"
		tokens("1password-token", cB64Any, 50, 0, mixed, "ops_eyJ"),
		tokens("dynatrace-token", cOAuth, 80, 0, mixed, "dt0c01."),
		tokens("shippo-token", cHex, 40, 40, nil, "shippo_live_", "shippo_test_"),
		[]detector{pair{"airtable-token", "pat", cAlnum, 14, '.', cHex, 64}.detector()},
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
}

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
// longest prefix first (sk-ant- before sk-). It is built once, by buildTables
// (detectors refer to it through tryAt), and only read afterwards.
var byFirst [256][]entry

// numDetectors is len(detectors), for the code that detectors call.
var numDetectors int

// pairs says, for a first byte and the byte after it, whether any detector's
// prefix starts with those two bytes (a one-byte prefix allows any second
// byte). Most word starts in a transcript fail this test. When the
// detectors went from 54 to 148, BenchmarkStringClean went from 8.6 to 11.2
// ms a run (medians of eight, interleaved with the old code); skipping those
// words before tryAt compares prefixes brought it to 8.2 ms against the old
// code's 9.1 ms in the same runs.
var pairs [256][256]bool

func buildTables() {
	detectors = allDetectors()
	numDetectors = len(detectors)
	for i := range detectors {
		d := &detectors[i]
		firsts := []byte{d.prefix[0]}
		if d.fold && isLower(d.prefix[0]) {
			firsts = append(firsts, d.prefix[0]-('a'-'A'))
		}
		for _, c := range firsts {
			byFirst[c] = append(byFirst[c], entry{d, i})
			if len(d.prefix) == 1 {
				for c2 := range pairs[c] {
					pairs[c][c2] = true
				}
				continue
			}
			pairs[c][d.prefix[1]] = true
			if d.fold && isLower(d.prefix[1]) {
				pairs[c][d.prefix[1]-('a'-'A')] = true
			}
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
	s := sc.s
	for i := 0; i < len(s); i++ {
		if byFirst[s[i]] == nil || (i+1 < len(s) && !pairs[s[i]][s[i+1]]) || !boundaryBefore(s, i) {
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

// findDiscordWebhook redacts the id and token of a Discord webhook URL
// (discord.com/api[/v10]/webhooks/<id>/<token>, also on discordapp.com and
// the canary and ptb hosts) and keeps the host. Other discord.com/api URLs
// are kept.
func findDiscordWebhook(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + strings.IndexByte(s[i:], '/') + len("/api/")
	if p+1 < len(s) && s[p] == 'v' && isDigit(s[p+1]) {
		v := sc.runEnd(cDigit, p+1)
		if v >= len(s) || s[v] != '/' {
			return i, false
		}
		p = v + 1
	}
	if !strings.HasPrefix(s[p:], "webhooks/") {
		return i, false
	}
	q := p + len("webhooks/")
	id := sc.runEnd(cDigit, q)
	if id-q < 15 || id-q > 22 || id >= len(s) || s[id] != '/' {
		return i, false
	}
	e := sc.runEnd(cB64URL, id+1)
	if e-id-1 < 40 || !mixed(s[id+1:e]) || repetitive(s[id+1:e]) {
		return i, false
	}
	sc.add("discord-webhook", q, e, prio)
	return e, true
}

// discordBotDetectors find Discord bot tokens: base64 of the bot's numeric
// id, a dot, 6 bytes of timestamp, a dot, the HMAC. An id is 17 to 20
// digits, and base64 of its first digit is one of these pairs, which is what
// keeps this from trying every word that starts with M, N or O.
func discordBotDetectors() []detector {
	var ds []detector
	for _, p := range []string{"MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"} {
		ds = append(ds, detector{prefix: p, find: findDiscordBot})
	}
	return ds
}

func findDiscordBot(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	e1 := sc.runEnd(cAlnum, i)
	if e1-i < 23 || e1-i > 28 || e1 >= len(s) || s[e1] != '.' {
		return i, false
	}
	e2 := sc.runEnd(cB64URL, e1+1)
	if e2-e1-1 < 6 || e2-e1-1 > 7 || e2 >= len(s) || s[e2] != '.' {
		return i, false
	}
	e3 := sc.runEnd(cB64URL, e2+1)
	if e3-e2-1 < 27 || e3-e2-1 > 40 || !mixed(s[e2+1:e3]) {
		return i, false
	}
	sc.add("discord-bot-token", i, e3, prio)
	return e3, true
}

// telegramDetectors find Telegram bot tokens, <bot id>:<35 bytes>, bare
// (the id starts the word) and in the Bot API's URLs (…/bot<token>/getMe).
func telegramDetectors() []detector {
	ds := []detector{{prefix: "bot", find: findTelegramURL}}
	for c := byte('1'); c <= '9'; c++ {
		ds = append(ds, detector{prefix: string(c), find: findTelegram})
	}
	return ds
}

// findTelegram checks the bot id (5 to 12 digits), the colon and a secret of
// exactly 35 base64url bytes that mixes kinds of characters: a time (12:30),
// a file:line:column or a port never has that after the colon.
func findTelegram(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := sc.runEnd(cDigit, i)
	if p-i < 5 || p-i > 12 || p+1 >= len(s) || s[p] != ':' {
		return i, false
	}
	e := sc.runEnd(cB64URL, p+1)
	if e-p-1 != 35 || !mixed(s[p+1:e]) || repetitive(s[p+1:e]) {
		return i, false
	}
	sc.add("telegram-bot-token", i, e, prio)
	return e, true
}

func findTelegramURL(sc *scanner, i, prio int) (int, bool) {
	if i == 0 || sc.s[i-1] != '/' || i+3 >= len(sc.s) || !isDigit(sc.s[i+3]) {
		return i, false
	}
	return findTelegram(sc, i+3, prio)
}

// pair describes a token made of two parts of fixed length after a prefix,
// <prefix><first><sep><second>: PMAK-<24 hex>-<34 hex> (Postman), or
// pat<14>.<64 hex> (Airtable, whose prefix alone starts too many words, such
// as path and patch, to mean anything).
type pair struct {
	kind, prefix string
	first        classID
	n1           int
	sep          byte
	second       classID
	n2           int
}

func (t pair) detector() detector {
	return detector{prefix: t.prefix, find: t.find}
}

func (t pair) find(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len(t.prefix)
	e1 := sc.runEnd(t.first, p)
	if e1-p != t.n1 || e1 >= len(s) || s[e1] != t.sep {
		return i, false
	}
	e2 := sc.runEnd(t.second, e1+1)
	if e2-e1-1 != t.n2 || (e2 < len(s) && isAlnum(s[e2])) {
		return i, false
	}
	sc.add(t.kind, i, e2, prio)
	return e2, true
}
