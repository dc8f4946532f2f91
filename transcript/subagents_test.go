package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Both places Claude Code has kept subagent transcripts: under <session>/subagents/ (2.1),
// and beside the session file, named for their parent only inside (2.0).
func TestSubagents(t *testing.T) {
	const session = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
	dir := t.TempDir()
	agentLine := func(sessionID string) string {
		return `{"parentUuid":null,"isSidechain":true,"userType":"external","cwd":"/tmp/private","sessionId":"` + sessionID +
			`","version":"2.0.64","agentId":"50243ee8","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"9dbb4e8d","timestamp":"2025-12-10T19:37:37.157Z"}` + "\n"
	}
	now := time.Now()
	files := []struct {
		path, content string
		age           time.Duration
	}{
		{session + ".jsonl", `{"type":"user","sessionId":"` + session + `"}` + "\n", 0},
		{session + "/subagents/agent-a485154.jsonl", agentLine(session), 3 * time.Minute},
		{session + "/subagents/workflows/wf1/agent-b1.jsonl", agentLine(session), 2 * time.Minute},
		{session + "/subagents/agent-a485154.meta.json", `{"agentType":"Explore"}`, 0},
		{"agent-50243ee8.jsonl", agentLine(session), time.Minute},
		{"agent-0therses.jsonl", agentLine("9eda1058-9706-484a-b992-d03f9cfa2546"), 0},
		{"agent-0ld.jsonl", agentLine(session), 48 * time.Hour},
		{"agent-empty.jsonl", "", 0},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
	names := func(since time.Time) []string {
		t.Helper()
		subs, err := Subagents(filepath.Join(dir, session+".jsonl"), since)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range subs {
			rel, _ := filepath.Rel(dir, s.Path)
			out = append(out, filepath.ToSlash(rel))
		}
		return out
	}
	all := []string{"agent-50243ee8.jsonl", session + "/subagents/workflows/wf1/agent-b1.jsonl", session + "/subagents/agent-a485154.jsonl", "agent-0ld.jsonl"}
	if got := names(time.Time{}); !slices.Equal(got, all) {
		t.Errorf("all: %q, want %q", got, all)
	}
	if got := names(now.Add(-150 * time.Second)); !slices.Equal(got, all[:2]) {
		t.Errorf("since 150 s ago: %q, want %q", got, all[:2])
	}
	if subs, err := Subagents(filepath.Join(t.TempDir(), "gone", session+".jsonl"), time.Time{}); err != nil || len(subs) != 0 {
		t.Errorf("no folder: %v, %v", subs, err)
	}
}

// The real 2.0.64 session in the samples has its Warmup agent's file beside it.
func TestSubagentsSamples(t *testing.T) {
	path := filepath.Join(samplesDir, "claude", "-tmp-private", "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no samples: %v", err)
	}
	subs, err := Subagents(path, time.Time{})
	if err != nil || len(subs) != 1 || filepath.Base(subs[0].Path) != "agent-50243ee8.jsonl" {
		t.Fatalf("Subagents = %+v, %v; want agent-50243ee8.jsonl", subs, err)
	}
}
