package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// secrets are real-shaped (made-up) credentials of the kinds a session leaks: each must be
// absent from every git object after the hooks ran on a transcript full of them.
var secrets = []string{
	"AKIAZ7QW3RTYUIOPLKJH",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEYz",
	"ghp_R8fT2kLmN4pQ7sV0wX3yZ6aB9cD1eF5gH2jK",
	"github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234",
	"glpat-x9Y8w7V6u5T4s3R2q1P0",
	"xoxb-2048-4096-8192-Zq7Wt3Lm9Np2Rs5Tv8Xy",
	"sk_live_51HqT8bKs9Lm2Np4Qr6St8Uv0Wx2Yz4Ab6",
	"sk-proj-Tq3Wz8Lm2Np7Rs5Tv9Xy1Ab4Cd6Ef8Gh0Ij2Kl4",
	"sk-ant-api03-Zq7Wt3Lm9Np2Rs5Tv8Xy1Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op8Qr0St2Uv4Wx6Yz8-AbCdEfAA",
	"AIzaSyD3k9LmN2pQ7rS5tV8wX1yZ4aB6cD9eF0g",
	"npm_Zq7Wt3Lm9Np2Rs5Tv8Xy1Ab4Cd6Ef8Gh0Ij",
	"hf_Zq7Wt3Lm9Np2Rs5Tv8Xy1Ab4Cd6Ef8GhIj",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.Qk3Zt8Lm2Np7Rs5Tv9Xy1Ab4Cd6Ef8Gh0Ij2Kl4Mn6",
	"s3cr3t-Pa55w0rd!",
	"hunter2-db-pass",
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
}

// shapes are the eight kinds of secret a tester found in git objects, each in the words
// that make it one: a Twilio auth token is a secret next to its account SID, a legacy Vault
// token where VAULT_TOKEN names it, a Sentry DSN's key before a Sentry host. secret is what
// must not reach git.
var shapes = []struct{ name, secret, text string }{
	{"twilio api key", "SK2b92bcd013e7b2fad6e57dd6d987df49", "the Twilio key SK2b92bcd013e7b2fad6e57dd6d987df49"},
	{"twilio auth token", "3011045eb72068f046351c7667a7038a", "twilio login AC9fc3b484a2c5dde94a6800cd4d490119:3011045eb72068f046351c7667a7038a"},
	{"vault token", "hvs.CAESID1hP0LuK0o3gW0-dPXrtvS8ZlPz8f4CD5wRvwe6g7NgnMDOCoyvznGOUbtVyD3CGGROY7MAoujGjnCAqfJUOiK",
		"hvs.CAESID1hP0LuK0o3gW0-dPXrtvS8ZlPz8f4CD5wRvwe6g7NgnMDOCoyvznGOUbtVyD3CGGROY7MAoujGjnCAqfJUOiK for vault"},
	{"legacy vault token", "s.OgOZ1TvZVVAxhPRxs52hNSIw", "VAULT_TOKEN=s.OgOZ1TvZVVAxhPRxs52hNSIw"},
	{"discord webhook", "zF6TOLBGDDAFFA8Mfn2sbIRYNiFlfoMwvWOt7uoUtdfZu0alY2yOznGJckRJkbHq5AQU",
		"https://discord.com/api/webhooks/2828073536336768890/zF6TOLBGDDAFFA8Mfn2sbIRYNiFlfoMwvWOt7uoUtdfZu0alY2yOznGJckRJkbHq5AQU"},
	{"telegram bot token", "6335349330:AAXwUHpGcE5_xoSCpzKcN0e2lCOsqdT4Faf", "6335349330:AAXwUHpGcE5_xoSCpzKcN0e2lCOsqdT4Faf is the bot"},
	{"sentry dsn", "68472389702aa6a2b7f764c5098bef88", "https://68472389702aa6a2b7f764c5098bef88@o4505.ingest.sentry.io/4506"},
	{"postman key", "PMAK-ab2a4077f05b700db07551da-d9149bff8cbeac12189e80a1b5e70ea89f", "PMAK-ab2a4077f05b700db07551da-d9149bff8cbeac12189e80a1b5e70ea89f"},
	{"age key", "AGE-SECRET-KEY-14F0PKZNYZ2DA0FZGKD0QK86NZR5LRR556Z80FVNAGACJQYE2KKVHFPQDNR",
		"AGE-SECRET-KEY-14F0PKZNYZ2DA0FZGKD0QK86NZR5LRR556Z80FVNAGACJQYE2KKVHFPQDNR"},
}

// straddle pads the text of shape i so that the cut'th character is the fourth from the end
// of its secret: where a clip to a head and a tail cuts a long message, the head keeps all of
// the secret but that, which no longer has the secret's shape (SK and 28 hex digits).
func straddle(i, cut int) string {
	sh := shapes[i]
	lead := cut - (strings.Index(sh.text, sh.secret) + len(sh.secret) - 4)
	return strings.Repeat("x", lead-len(" log: ")) + " log: " + sh.text + " (end of log)"
}

func lacedTranscript() string {
	line := func(role string, content any) string {
		c, _ := json.Marshal(content)
		return fmt.Sprintf(`{"type":%q,"sessionId":"sec-session","cwd":"/p","uuid":"u-%d","timestamp":"2026-11-21T09:00:00Z","message":{"role":%q,"content":%s}}`+"\n",
			role, len(c), role, c)
	}
	var b strings.Builder
	b.WriteString(line("user", "deploy with AWS_ACCESS_KEY_ID="+secrets[0]+" AWS_SECRET_ACCESS_KEY="+secrets[1]))
	b.WriteString(line("assistant", []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash",
		"input": map[string]any{"command": "curl -H 'Authorization: Bearer " + secrets[12] + "' https://api.example.com && git push https://" + secrets[2] + "@github.com/acme/x.git"}}}))
	b.WriteString(line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
		"content": "Exit code 1\nerror: token " + secrets[3] + " rejected; also tried " + secrets[4] + " and " + secrets[5]}}))
	b.WriteString(line("assistant", "The Stripe key "+secrets[6]+" and OpenAI key "+secrets[7]+" were in .env; ANTHROPIC_API_KEY="+secrets[8]))
	b.WriteString(line("user", "use GOOGLE_API_KEY="+secrets[9]+" and NPM_TOKEN="+secrets[10]+" HF_TOKEN="+secrets[11]))
	b.WriteString(line("assistant", "Connecting to postgres://app:"+secrets[13]+"@db.internal:5432/prod and mysql://root:"+secrets[14]+"@localhost/x"))
	b.WriteString(line("assistant", "-----BEGIN PRIVATE KEY-----\n"+secrets[15]+"\nq8Zt3Lm9Np2Rs5Tv8Xy1Ab4Cd6Ef8Gh0Ij2Kl4Mn6Op8Qr0St2Uv4Wx6Yz8\n-----END PRIVATE KEY-----"))
	for i, sh := range shapes {
		id := fmt.Sprintf("s%d", i)
		b.WriteString(line("user", "set "+sh.text+" and retry"))
		b.WriteString(line("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash",
			"input": map[string]any{"command": "./notify --with " + sh.text}}}))
		// a digest keeps the head and tail of a long output (1,200 characters: 800 and 400)
		b.WriteString(line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": true,
			"content": "Exit code 2\n" + straddle(i, 800+len("Exit code 2\n")) + strings.Repeat("y", 1000)}}))
		b.WriteString(line("assistant", "Fixed: "+sh.text+" was wrong."))
		// and of a long prompt (2,000 characters: 1,333 and 667)
		b.WriteString(line("user", straddle(i, 1333)+strings.Repeat("z", 1500)))
	}
	return b.String()
}

// TestNoSecretReachesGit runs every capturing hook over a transcript and payloads laced with
// secrets, then reads every object git holds.
func TestNoSecretReachesGit(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	cwd := projectRepo(t, environ)
	tr := filepath.Join(t.TempDir(), "sec.jsonl")
	os.WriteFile(tr, []byte(lacedTranscript()), 0o644)
	base := func(ev string) map[string]any {
		return map[string]any{"session_id": "sec-session", "transcript_path": tr, "cwd": cwd, "hook_event_name": ev}
	}
	hook(t, environ, home, "claude", merge(base("PostToolUseFailure"), map[string]any{"tool_name": "Bash",
		"tool_input": map[string]any{"command": "export GITHUB_TOKEN=" + secrets[2] + " && ./deploy --password " + secrets[13]},
		"error":      "Exit code 1\nauth failed for " + secrets[3]}))
	hook(t, environ, home, "claude", merge(base("UserPromptSubmit"), map[string]any{"prompt": "no, use the key " + secrets[7] + " instead of " + secrets[6]}))
	hook(t, environ, home, "claude", merge(base("UserPromptSubmit"), map[string]any{"prompt": "remember: the staging password is " + secrets[14]}))
	hook(t, environ, home, "claude", merge(base("PreCompact"), map[string]any{"trigger": "manual"}))
	hook(t, environ, home, "codex", merge(base("Stop"), map[string]any{"session_id": "sec-codex", "transcript_path": nil,
		"last_assistant_message": "Set SLACK_BOT_TOKEN=" + secrets[5] + " and done.", "turn_id": "t", "model": "m"}))

	// Each shape through every path that writes a learning: a correction after a failed call
	// (whose input, 600 characters, and output, 1,200, are clipped), a remember: note and a
	// learning added by hand, each titled with the secret, so that it is also in a commit
	// subject.
	for i, sh := range shapes {
		hook(t, environ, home, "claude", merge(base("PostToolUseFailure"), map[string]any{"tool_name": "Bash",
			"tool_input": map[string]any{"command": straddle(i, 400) + strings.Repeat("c", 400)},
			"error":      straddle(i, 800) + strings.Repeat("e", 800)}))
		hook(t, environ, home, "claude", merge(base("UserPromptSubmit"), map[string]any{"prompt": "no, use " + sh.text + " instead of the old one"}))
		hook(t, environ, home, "claude", merge(base("UserPromptSubmit"), map[string]any{"prompt": "remember: " + sh.text}))
		run(t, environ, ".", reflectBin(t), "--home", home, "add", "--global", "--title", sh.text, "--body", "Use "+sh.text+" here.", "--tag", sh.text)
	}
	run(t, environ, ".", reflectBin(t), "--home", home, "history", "import", "--transcript", tr)

	log := run(t, environ, home, "git", "log", "--format=%B")
	for _, want := range []string{"(correction in", "(remember in", "(manual)", "capture(precompact)"} {
		if !strings.Contains(log, want) {
			t.Errorf("no commit says %q: a capture path did not run\n%s", want, log)
		}
	}
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir, cmd.Env = home, environ
	objects, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(objects), s) {
			t.Errorf("secret %q is in a git object", s)
		}
	}
	for _, sh := range shapes {
		for _, piece := range pieces(sh.secret) {
			if strings.Contains(string(objects), piece) {
				t.Errorf("%s: %q of %q is in a git object", sh.name, piece, sh.secret)
			}
		}
	}
	if !strings.Contains(string(objects), "REDACTED") {
		t.Fatal("nothing was redacted: the test is not exercising redaction")
	}

	// The history archive is never committed, but it is on disk: the store, and the index,
	// whose terms are lower-cased pieces of words.
	archive := filepath.Join(home, ".git", "reflect", "history")
	var files int
	var stored strings.Builder
	filepath.WalkDir(archive, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			stored.Write(data)
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatal("the history import wrote nothing")
	}
	if !strings.Contains(stored.String(), "REDACTED") {
		t.Error("the history archive holds no redacted message")
	}
	// a marker names its kind, and "age-secret-key" is the lower case of a key's prefix
	archived := marker.ReplaceAllString(stored.String(), "")
	for _, sh := range shapes {
		for _, piece := range pieces(sh.secret) {
			if strings.Contains(archived, piece) || strings.Contains(archived, strings.ToLower(piece)) {
				t.Errorf("%s: %q of %q is in the history archive", sh.name, piece, sh.secret)
			}
		}
	}
	assertHealthy(t, environ, home)
}

var marker = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// pieces are the 12-character stretches of a secret: a cut secret, or an index term, keeps a
// piece and not the whole.
func pieces(secret string) []string {
	var out []string
	for k := 0; k+12 <= len(secret); k++ {
		out = append(out, secret[k:k+12])
	}
	return out
}
