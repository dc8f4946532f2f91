package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportOtherHosts: Gemini CLI's, Copilot CLI's and Cursor's sessions, laid out where the
// hosts keep them, are imported and found; a Gemini session rewritten (a message written
// again, a rewind) is read again whole, so the archive holds what the file now says.
func TestImportOtherHosts(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "webshop")
	os.MkdirAll(proj, 0o755)
	gemChats := filepath.Join(home, ".gemini", "tmp", "webshop", "chats")
	write(t, filepath.Join(gemChats, "..", ".project_root"), []byte(proj))
	gem := filepath.Join(gemChats, "session-2026-08-21T10-04-7c1e4a90.jsonl")
	write(t, gem, fixture(t, "transcripts/gemini-session.jsonl"))
	write(t, filepath.Join(gemChats, "session-2026-03-02T09-00-0a1b2c3d.json"), fixture(t, "transcripts/gemini-session.json"))
	write(t, filepath.Join(home, ".gemini", "tmp", "webshop", "logs.json"), []byte(`[]`)) // not a session
	write(t, filepath.Join(home, ".copilot", "session-state", "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8", "events.jsonl"), fixture(t, "transcripts/copilot-events.jsonl"))
	write(t, filepath.Join(home, ".copilot", "session-state", "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8", "workspace.yaml"), []byte("id: x\n"))
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	write(t, filepath.Join(home, ".cursor", "projects", enc, "agent-transcripts", "9f3e", "9f3e.jsonl"), fixture(t, "transcripts/cursor-transcript.jsonl"))
	write(t, filepath.Join(home, ".cursor", "projects", enc, "mcp.json"), []byte(`{}`))

	a := newArchive(t)
	o := ImportOptions{GeminiDir: filepath.Join(home, ".gemini", "tmp"), CopilotDir: filepath.Join(home, ".copilot", "session-state"),
		CursorDir: filepath.Join(home, ".cursor", "projects"), LockTimeout: time.Second}
	rep := mustImport(t, a, o)
	if rep.Found != 4 || rep.New != 4 || len(rep.SkippedFiles) != 0 || rep.TotalSessions != 4 {
		t.Fatalf("import: %+v", rep)
	}
	for _, tt := range []struct {
		query, harness, session string
	}{
		{"missing.json", "gemini", "7c1e4a90-2b3d-4f5e-8a6b-9c0d1e2f3a4b"},
		{"errcheck", "gemini", "0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9"},
		{"test:migrations", "copilot", "714bfd7c-a8ef-4bde-8bea-ec39ceec45e8"},
		{"package.json", "cursor", "9f3e"},
	} {
		q := NewQuery(tt.query)
		q.Global, q.Now = true, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
		res, err := a.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].Harness != tt.harness || res.Results[0].Session != tt.session {
			t.Errorf("%q: %+v", tt.query, res.Results)
		}
	}
	// the Gemini and Cursor sessions are filed under the project's directory
	q := NewQuery("pnpm")
	q.Global, q.Now = true, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	q.Limit = 5
	res, _ := a.Search(context.Background(), q)
	for _, s := range res.Results {
		if (s.Harness == "gemini" || s.Harness == "cursor") && s.CWD != proj {
			t.Errorf("%s session %s: cwd %q, want %q", s.Harness, s.Session, s.CWD, proj)
		}
	}

	// Gemini rewinds past "All 42 cart tests pass": an import reads the file again whole
	f, _ := os.OpenFile(gem, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"$rewindTo":"g-4"}` + "\n")
	f.Close()
	q = NewQuery(`"cart tests pass with pnpm"`)
	q.Global, q.Now = true, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	if res, _ = a.Search(context.Background(), q); len(res.Results) != 2 {
		t.Fatalf("before the rewind the phrase is in the Gemini and Cursor sessions: %+v", res.Results)
	}
	rep = mustImport(t, a, o)
	if rep.Rewritten != 1 {
		t.Fatalf("after a rewind: %+v", rep)
	}
	q = NewQuery(`"cart tests pass with pnpm"`)
	q.Global, q.AllTerms, q.Now = true, true, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	res, _ = a.Search(context.Background(), q)
	for _, s := range res.Results {
		if s.Harness == "gemini" {
			t.Fatalf("a rewound message is still found: %+v", s)
		}
	}
}
