// Package redact owns secret redaction: it finds API keys, tokens, private
// keys, passwords, .env values and credentials in connection strings, and
// replaces each with a marker that names its kind ("[REDACTED:github-token]").
// Everything reflect writes to a git object passes through String or Bytes
// first, because the knowledge repository is pushed and git history is
// forever: a secret that reaches a blob cannot be taken back.
//
// It must never be bypassed (callers redact before they write, not after),
// and it must never log, store or return an original secret: Find reports
// kinds and byte ranges only, and nothing here writes anywhere.
//
// Detection is by shape and by context, never by entropy alone. A blanket
// high-entropy rule would eat git SHAs, UUIDs, ULIDs, sha256 digests and
// base64 data, which fill agent transcripts; so a random-looking value is
// redacted only when a secret-ish key names it ("session=…", "key: …").
// Each false-positive class the package must leave alone has its own test
// file (hashes_test.go, prose_test.go, code_test.go, placeholders_test.go,
// urls_test.go, paths_test.go, lookalikes_test.go, flags_test.go,
// numbers_test.go); shapes_test.go pairs each provider format with near
// misses of it.
//
// Decisions on ambiguous cases, each pinned by a test:
//   - A secret a shell line continuation splits (`token ghp_\` and the rest on
//     the next line) is found in the text with its continuations joined and
//     replaced whole, the continuation with it (continuations_test.go).
//   - AWS documentation keys (AKIAIOSFODNN7EXAMPLE) are redacted like real
//     ones: they have the real shape, and telling them apart is not worth a
//     miss.
//   - Obvious placeholders are kept, because they are not secrets and
//     redacting them hides what a command looked like: "<your-token>",
//     "${TOKEN}", "$API_KEY", "%API_KEY%", "{{ .Token }}", "xxx", "****",
//     "REDACTED", "changeme", "YOUR_API_KEY", the bare words "password" and
//     "secret" as values, and provider-shaped tokens whose body is one
//     repeated character (ghp_xxxx…).
//   - "-p" is a password only for mysql-family commands in its attached form
//     (-pSECRET) and for sshpass; elsewhere it is a port, a path or a patch.
//   - Values in code that are references, not literals, are kept:
//     password := req.Password, token = os.Getenv("T"), apiKey: apiKey.
//   - A password in a URL is redacted only between "user:" and the "@" of
//     the authority; the user and host stay so the text still says where it
//     connected. A Sentry DSN is the exception: its "user" is the key.
//   - A Twilio auth token (32 bare hex bytes) is redacted only within two
//     lines of an account SID (AC + 32 hex); the SID is kept. Anywhere else
//     32 hex bytes are an MD5 sum or a dash-less UUID.
//   - A legacy Vault token (s. + 24 bytes) has no shape of its own and is
//     redacted only where something names it: VAULT_TOKEN=, X-Vault-Token:,
//     vault login. hvs., hvb. and hvr. tokens are redacted anywhere.
//
// Known misses, accepted for the false positives they avoid: a secret with
// no recognisable shape and no key naming it (a bare 40-byte AWS secret on
// its own line); a URL password with a raw '/' in it (it should be
// percent-encoded, and a '/' ends the authority); a word-like value after a
// lower-case key that reads as a variable (password: mypassword); "Basic …"
// outside an Authorization header.
//
// String is idempotent (a marker is never re-redacted), copies invalid UTF-8
// through unchanged, and runs in time linear in its input. Three passes
// read the text: one dispatches on the first two bytes of each word to the
// detectors that could start there (vendor prefixes, key blocks, headers,
// commands), one looks at each "://", one at each key followed by = or :.
// Cheaper ones run only where they can find something: the lines near a
// Twilio SID, the spots strings.Index finds the fixed middle of a Terraform
// token or an Entra ID secret, the prose around the words for a secret.
// Every scan that could repeat is memoised; TestLinearTime holds 1 MB to
// 10 MB at about 10x for transcript text and for inputs built to make a
// careless scanner quadratic. BenchmarkString runs at about 100 MB/s on
// transcript-like text (two cores, shared).
package redact
