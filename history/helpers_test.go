package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// now is the clock of every test search: a few days after the fixture sessions.
var now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// Session ids of the fixtures.
const (
	webshopID  = "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93"
	kanbanID   = "3f1e9a47-8b2c-4d6e-a1f0-5c7b9d2e4a68"
	couponsID  = "8c5d2b19-6e4f-4a7b-9d31-0f2e8a6c4b57"
	apiID      = "019cb7e4-2f61-7a3d-8e52-6c0d9b4a7f18"
	toolID     = "5f3a9d2e-8c41-4b7a-9e06-2d1c7b4f8a35"
	malformeID = "0d9e8f7a-1b2c-4d3e-8f4a-5b6c7d8e9f01"
)

// hosts is a home with the hosts' folders, as Claude Code and Codex lay them out.
type hosts struct {
	home, claude, codex string
}

func (h hosts) options() ImportOptions {
	return ImportOptions{ClaudeDir: h.claude, CodexDir: h.codex, LockTimeout: time.Second}
}

// The fixture files and where each goes under the home.
var layout = []struct{ src, dst string }{
	{"transcripts/claude-session.jsonl", ".claude/projects/-home-dev-src-webshop/" + webshopID + ".jsonl"},
	{"transcripts/claude-session/subagents/agent-a3f9c21.jsonl", ".claude/projects/-home-dev-src-webshop/" + webshopID + "/subagents/agent-a3f9c21.jsonl"},
	{"history/truncated.jsonl", ".claude/projects/-home-dev-src-webshop/" + couponsID + ".jsonl"},
	{"history/malformed.jsonl", ".claude/projects/-home-dev-src-webshop/" + malformeID + ".jsonl"},
	{"history/claude-kanban.jsonl", ".claude/projects/-home-dev-src-kanban/" + kanbanID + ".jsonl"},
	{"transcripts/codex-rollout.jsonl", ".codex/sessions/2026/03/04/rollout-2026-03-04T10-12-07-" + apiID + ".jsonl"},
	{"transcripts/codex-legacy.jsonl", ".codex/sessions/2025/08/21/rollout-2025-08-21T18-42-05-" + toolID + ".jsonl"},
}

// fixture returns a fixture file: transcripts/ from the fixtures folder, history/ from the
// embedded ones.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	if rest, ok := strings.CutPrefix(name, "history/"); ok {
		b, err := fixtures.History(rest)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b, err := os.ReadFile(filepath.Join("..", "fixtures", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newHosts lays the fixtures out in a temporary home.
func newHosts(t testing.TB) hosts {
	t.Helper()
	home := t.TempDir()
	h := hosts{home: home, claude: filepath.Join(home, ".claude", "projects"), codex: filepath.Join(home, ".codex", "sessions")}
	for _, f := range layout {
		write(t, filepath.Join(home, filepath.FromSlash(f.dst)), fixture(t, f.src))
	}
	return h
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// newArchive is an empty archive in a temporary state directory.
func newArchive(t testing.TB) *Archive {
	return At(filepath.Join(t.TempDir(), "state"))
}

func mustImport(t testing.TB, a *Archive, o ImportOptions) *Report {
	t.Helper()
	rep, err := a.Import(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// imported is an archive of every fixture.
func imported(t testing.TB) (*Archive, hosts) {
	t.Helper()
	h := newHosts(t)
	a := newArchive(t)
	mustImport(t, a, h.options())
	return a, h
}
