package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// synth writes n messages of synthetic sessions of both hosts under a temporary home.
func synth(tb testing.TB, n int) (hosts, fixtures.SynthStats) {
	tb.Helper()
	home := tb.TempDir()
	h := hosts{home: home, claude: filepath.Join(home, ".claude", "projects"), codex: filepath.Join(home, ".codex", "sessions")}
	st, err := fixtures.WriteSessions(fixtures.SynthSessions{ClaudeDir: h.claude, CodexDir: h.codex, Messages: n, PerSession: 250,
		Projects: []string{"/home/dev/src/api", "/home/dev/src/web", "/home/dev/src/infra", "/home/dev/src/data"},
		Needle:   "ERR_SOCKET_TIMEOUT_7731", NeedleEvery: 25, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return h, st
}

// TestSynthCounts: the benchmarks' synthetic sessions hold exactly the messages they claim.
func TestSynthCounts(t *testing.T) {
	h, st := synth(t, 3000)
	a := newArchive(t)
	rep := mustImport(t, a, h.options())
	if rep.Messages != st.Messages || rep.Sessions != st.Sessions || len(rep.SkippedFiles) != 0 || len(rep.SkippedLines) != 0 {
		t.Errorf("import %+v; wrote %+v", rep, st)
	}
	q := NewQuery("ERR_SOCKET_TIMEOUT_7731")
	q.Global, q.Now = true, now
	res, err := a.Search(context.Background(), q)
	if err != nil || res.Hits != st.Needles {
		t.Errorf("needle: %v, %d hits, want %d", err, res.Hits, st.Needles)
	}
}

// BenchmarkImport imports 5,000 messages of synthetic sessions into an empty archive.
func BenchmarkImport(b *testing.B) {
	h, st := synth(b, 5000)
	b.SetBytes(st.Bytes)
	for b.Loop() {
		a := newArchive(b)
		if _, err := a.Import(context.Background(), h.options()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Messages)*float64(b.N)/b.Elapsed().Seconds(), "messages/s")
}

// BenchmarkSearch searches 20,000 messages in process (REFLECT_BENCH_LARGE=1: 100,000): a
// rare needle, common words, a Chinese needle, a fallback to any word.
func BenchmarkSearch(b *testing.B) {
	n := 20000
	if os.Getenv("REFLECT_BENCH_LARGE") == "1" {
		n = 100000
	}
	h, _ := synth(b, n)
	a := newArchive(b)
	mustImport(b, a, h.options())
	for _, tt := range []struct{ name, text string }{
		{"needle", "ERR_SOCKET_TIMEOUT_7731"}, {"common", "cache retry"}, {"cjk", "数据库连接"}, {"fallback", "timeout zzzz"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			q := NewQuery(tt.text)
			q.Project, q.Now, q.LockTimeout = "local/api", now, time.Second
			for b.Loop() {
				if _, err := a.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// geminiSession writes a Gemini CLI session of at least n kept messages where the CLI keeps
// it, and returns its path and its writer (to append turns).
func geminiSession(tb testing.TB, n int) (string, *fixtures.SynthGemini) {
	tb.Helper()
	home := tb.TempDir()
	chats := filepath.Join(home, ".gemini", "tmp", "webshop", "chats")
	write(tb, filepath.Join(chats, "..", ".project_root"), []byte("/home/dev/src/webshop"))
	g := fixtures.NewSynthGemini(3, "7c1e4a90-2b3d-4f5e-8a6b-9c0d1e2f3a4b")
	path := filepath.Join(chats, "session-2026-08-21T10-04-7c1e4a90.jsonl")
	write(tb, path, g.Session(n))
	return path, g
}

// BenchmarkImportGeminiTurn is the Stop hook's import (AfterAgent) of a Gemini CLI session
// of 2,000 messages after one more turn: Gemini writes a message again each time it
// changes, so the file is not read from an offset.
func BenchmarkImportGeminiTurn(b *testing.B) {
	path, g := geminiSession(b, 2000)
	a := newArchive(b)
	o := ImportOptions{Files: []string{path}, LockTimeout: time.Second}
	mustImport(b, a, o)
	for b.Loop() {
		b.StopTimer()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(g.Turn())
		f.Close()
		b.StartTimer()
		if _, err := a.Import(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
}
