package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// runHistory measures the session history at n messages, whole process: `reflect history
// import` of synthetic Claude Code and Codex transcripts (messages/s), the import the Stop
// hook starts after a turn (of a Claude Code session, and of a Gemini CLI session of 2,000
// messages, which is read again whole and stored again in part), and `reflect history
// search` of a rare needle, of common words,
// of a Chinese needle and of a query that falls back to any word. Baselines in the same
// run: reflect's start-up (`reflect version`) and `grep -rF` of the same needle over the
// same transcript files (grep finds the lines; search also ranks them and reads windows).
func runHistory(n, runs int) error {
	r, err := newHistoryRun("history-", n, 250)
	if r != nil {
		defer os.RemoveAll(r.tmp)
	}
	if err != nil {
		return err
	}
	bin, env, home, projects, claude, codex, st := r.bin, r.env, r.home, r.projects, r.claude, r.codex, r.st
	const needle = historyNeedle
	timed := func(dir string, name string, args ...string) (float64, string, error) {
		c := command(env, dir, name, args...)
		start := time.Now()
		out, err := c.CombinedOutput()
		d := ms(time.Since(start))
		if err != nil && !(name == "grep" && len(out) == 0) { // grep exits 1 when nothing matches
			return 0, "", fmt.Errorf("%s %v: %v: %s", name, args, err, out)
		}
		return d, string(out), nil
	}
	fmt.Fprintf(os.Stderr, "importing...\n")
	c := command(env, ".", bin, "--home", home, "history", "import", "--all-history")
	start := time.Now()
	outb, err := c.CombinedOutput()
	importMs, out := ms(time.Since(start)), string(outb)
	if err != nil {
		return fmt.Errorf("history import: %v: %s", err, out)
	}
	peak := maxRSS(c.ProcessState)
	if !strings.Contains(out, fmt.Sprintf(" %s new messages ", thousands(st.Messages))) {
		return fmt.Errorf("the import did not read the %d messages written:\n%s", st.Messages, out)
	}
	again, _, err := timed(".", bin, "--home", home, "history", "import", "--all-history")
	if err != nil {
		return err
	}
	// the Stop hook's import: one turn (a prompt, a call, its result, a reply) appended to a
	// session, read from where the last import stopped
	var sample string
	filepath.WalkDir(claude, func(p string, d fs.DirEntry, err error) error {
		if err == nil && sample == "" && strings.HasSuffix(p, ".jsonl") {
			sample = p
		}
		return nil
	})
	var turn []float64
	for i := 0; i < runs/3+3; i++ {
		f, err := os.OpenFile(sample, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		ts := time.Date(2026, 2, 1, 0, 0, i, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
		fmt.Fprintf(f, `{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"bench","cwd":"%s","message":{"role":"user","content":"turn %d: retry the deploy"},"uuid":"u-%d","timestamp":"%s"}`+"\n", projects[0], i, i, ts)
		fmt.Fprintf(f, `{"parentUuid":"u-%d","isSidechain":false,"type":"assistant","sessionId":"bench","cwd":"%s","message":{"id":"m-%d","role":"assistant","content":[{"type":"text","text":"Deployed again, turn %d."}]},"uuid":"a-%d","timestamp":"%s"}`+"\n", i, projects[0], i, i, i, ts)
		f.Close()
		d, _, err := timed(".", bin, "--home", home, "history", "import", "--transcript", sample)
		if err != nil {
			return err
		}
		if i >= 3 {
			turn = append(turn, d)
		}
	}
	// the same after a turn of a Gemini CLI session of 2,000 messages, which Gemini writes
	// again in places (a message each time it changes): read whole, stored again in part
	gemChats := filepath.Join(r.tmp, ".gemini", "tmp", "bench", "chats")
	if err := os.MkdirAll(gemChats, 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(gemChats, "..", ".project_root"), []byte(projects[0]), 0o644)
	var gem string
	var g *fixtures.SynthGemini
	var gemWhole, gemTurn []float64
	for i := 0; i < runs+3; i++ {
		if i%7 == 0 { // a new session every seventh run, imported whole
			id := fmt.Sprintf("7c1e4a90-2b3d-4f5e-8a6b-%012d", i)
			g = fixtures.NewSynthGemini(uint64(5+i), id)
			gem = filepath.Join(gemChats, fmt.Sprintf("session-2026-08-21T10-%02d-%s.jsonl", i%60, id[:8]))
			if err := os.WriteFile(gem, g.Session(2000), 0o644); err != nil {
				return err
			}
			d, _, err := timed(".", bin, "--home", home, "history", "import", "--transcript", gem)
			if err != nil {
				return err
			}
			gemWhole = append(gemWhole, d)
		}
		f, err := os.OpenFile(gem, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		f.Write(g.Turn())
		f.Close()
		d, _, err := timed(".", bin, "--home", home, "history", "import", "--transcript", gem)
		if err != nil {
			return err
		}
		if i >= 3 {
			gemTurn = append(gemTurn, d)
		}
	}
	queries := []struct{ name, text string }{
		{"a rare needle (" + needle + ")", needle},
		{"two common words (cache retry)", "cache retry"},
		{"a Chinese needle (数据库连接)", "数据库连接"},
		{"all terms fail, any term (timeout zzzz)", "timeout zzzz"},
	}
	startup := make([]float64, 0, runs)
	grep := make([]float64, 0, runs)
	search := make([][]float64, len(queries))
	global := make([]float64, 0, runs)
	for i := 0; i < runs+3; i++ {
		d0, _, err := timed(projects[0], bin, "version")
		if err != nil {
			return err
		}
		d1, _, err := timed(projects[0], "grep", "-rF", "-e", needle, claude, codex)
		if err != nil {
			return err
		}
		var row []float64
		for _, q := range queries {
			d, out, err := timed(projects[0], bin, "--home", home, "history", "search", q.text)
			if err != nil {
				return err
			}
			if i == 0 && strings.HasPrefix(out, "no session") {
				return fmt.Errorf("history search %q found nothing:\n%s", q.text, out)
			}
			row = append(row, d)
		}
		dg, _, err := timed(projects[0], bin, "--home", home, "history", "search", "--global", needle)
		if err != nil {
			return err
		}
		if i >= 3 {
			startup, grep, global = append(startup, d0), append(grep, d1), append(global, dg)
			for k := range queries {
				search[k] = append(search[k], row[k])
			}
		}
	}
	storeBytes, indexBytes := dirSize(filepath.Join(home, ".git", "reflect", "history", "sessions")), dirSize(filepath.Join(home, ".git", "reflect", "history", "index"))
	f := func(xs []float64) string { return fmt.Sprintf("%.1f ms (%.1f)", pct(xs, 50), pct(xs, 90)) }
	fmt.Printf("session history at %s messages (%d sessions, %d transcript files, %.0f MB; the needle in %d sessions), whole process\n\n",
		thousands(st.Messages), st.Sessions, st.Files, float64(st.Bytes)/(1<<20), st.Needles)
	fmt.Printf("| import | time | throughput |\n|---|---:|---:|\n")
	fmt.Printf("| `history import`, every file new | %.1f s | %s messages/s (%.1f MB/s), peak memory %.0f MB |\n", importMs/1000,
		thousands(int(float64(st.Messages)/(importMs/1000))), float64(st.Bytes)/(1<<20)/(importMs/1000), float64(peak)/(1<<20))
	fmt.Printf("| `history import` again, nothing new | %.0f ms | |\n", again)
	fmt.Printf("| `history import --transcript` after one turn (the Stop hook's), median (p90) of %d | %s | |\n", len(turn), f(turn))
	fmt.Printf("| the same after one turn of a Gemini CLI session of 2,000 messages, median (p90) of %d | %s | %.2f × the Claude Code turn's, %.2f × importing that session whole |\n",
		len(gemTurn), f(gemTurn), pct(gemTurn, 50)/pct(turn, 50), pct(gemTurn, 50)/pct(gemWhole, 50))
	fmt.Printf("| a Gemini CLI session of 2,000 messages imported whole, median (p90) of %d | %s | |\n", len(gemWhole), f(gemWhole))
	fmt.Printf("\narchive: stores %.0f MB, index %.0f MB\n\n", float64(storeBytes)/(1<<20), float64(indexBytes)/(1<<20))
	fmt.Printf("search, median (p90) of %d runs, from a clone of one of the four projects; beside it `reflect version` and `grep -rF` of the needle over the transcripts\n\n", runs)
	fmt.Printf("| query | `reflect history search` | ÷ grep -rF needle |\n|---|---:|---:|\n")
	for k, q := range queries {
		fmt.Printf("| %s | %s | %.2f |\n", q.name, f(search[k]), pct(search[k], 50)/pct(grep, 50))
	}
	fmt.Printf("| the rare needle, --global | %s | %.2f |\n", f(global), pct(global, 50)/pct(grep, 50))
	fmt.Printf("| `reflect version` (start-up) | %s | %.2f |\n", f(startup), pct(startup, 50)/pct(grep, 50))
	fmt.Printf("| `grep -rF %s` | %s | 1.00 |\n", needle, f(grep))
	return nil
}

// historyNeedle is written into one tool output of every 25th synthetic session.
const historyNeedle = "ERR_SOCKET_TIMEOUT_7731"

// historyRun is a temporary HOME with reflect built into it, a knowledge repository, the
// four projects the synthetic sessions ran in (each a repository with a remote) and the
// sessions' transcripts in both hosts' folders.
type historyRun struct {
	tmp, bin      string
	env           []string
	home          string
	projects      []string
	claude, codex string
	st            fixtures.SynthStats
}

// newHistoryRun writes messages messages in sessions of perSession; the caller removes
// r.tmp (r is set whenever the directory was made).
func newHistoryRun(kind string, messages, perSession int) (*historyRun, error) {
	tmp, bin, env, err := setup(kind)
	r := &historyRun{tmp: tmp, bin: bin, env: env, home: filepath.Join(tmp, "mem"),
		claude: filepath.Join(tmp, ".claude", "projects"), codex: filepath.Join(tmp, ".codex", "sessions")}
	if err != nil {
		return r, err
	}
	if out, err := command(env, ".", bin, "--home", r.home, "init").CombinedOutput(); err != nil {
		return r, fmt.Errorf("init: %v: %s", err, out)
	}
	for _, name := range []string{"api", "web", "infra", "data"} {
		dir := filepath.Join(tmp, "src", name)
		if err := gitProject(env, dir, "", "https://github.com/bench/"+name+".git"); err != nil {
			return r, err
		}
		r.projects = append(r.projects, dir)
	}
	fmt.Fprintf(os.Stderr, "writing %d messages in sessions of %d...\n", messages, perSession)
	r.st, err = fixtures.WriteSessions(fixtures.SynthSessions{ClaudeDir: r.claude, CodexDir: r.codex, Messages: messages,
		PerSession: perSession, Projects: r.projects, Needle: historyNeedle, NeedleEvery: 25, Seed: 7})
	return r, err
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
