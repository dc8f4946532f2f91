package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

	subjects := strings.Split(run(t, environ, home, "git", "log", "--format=%s"), "\n")
	if len(subjects) < 5 {
		t.Fatalf("expected the hooks to commit (a correction, a note, two captures): %q", subjects)
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
	if !strings.Contains(string(objects), "REDACTED") {
		t.Fatal("nothing was redacted: the test is not exercising redaction")
	}
	assertHealthy(t, environ, home)
}
