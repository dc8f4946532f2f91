package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // opencode's database, written here as opencode would
)

// opencodeDB makes an opencode database (its tables, as in opencode's session.sql.ts) with one
// session in dir/opencode.db, where XDG_DATA_HOME=filepath.Dir(dir) makes reflect look.
func opencodeDB(dir, project string) (*sql.DB, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "opencode.db"))
	if err != nil {
		return nil, err
	}
	for _, q := range []string{
		`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER)`,
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`PRAGMA journal_mode=WAL`,
	} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, err
		}
	}
	now := time.Now().UnixMilli()
	_, err = db.Exec(`INSERT INTO session VALUES ('ses_bench', 'p', NULL, 's', ?, 't', '1.16.2', ?, ?)`, project, now, now)
	return db, err
}

// runHosts measures the capture hook of every host as the hosts run it (a new process, the
// host's own compaction payload on stdin, its own transcript grown by one message before
// each run, so that every run digests and commits), interleaved in the same run, each
// beside Claude Code's: the bar is 1.5× at most.
func runHosts(n, runs, projects int) error {
	tmp, bin, env, err := setup("hosts-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "mem")
	if err := memory(env, bin, home, n, min(n, 10000), projects); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	type host struct {
		name, hook, arg, fixture string
		payload                  func(tr string) map[string]any
		grow                     func(i int) string // a line the host appends after a turn
		tr                       string
		times                    []float64
	}
	hosts := []*host{
		{name: "Claude Code (PreCompact)", hook: "claude", fixture: "claude-session.jsonl",
			payload: func(tr string) map[string]any {
				return map[string]any{"session_id": "bench-claude", "transcript_path": tr, "cwd": cwd, "hook_event_name": "PreCompact", "trigger": "auto"}
			},
			grow: func(i int) string {
				return fmt.Sprintf(`{"type":"user","sessionId":"bench-claude","uuid":"g-%d","timestamp":"2026-08-21T10:00:00Z","message":{"role":"user","content":"run the tests again, step %d"}}`, i, i)
			}},
		{name: "Gemini CLI (PreCompress)", hook: "gemini", fixture: "gemini-session.jsonl",
			payload: func(tr string) map[string]any {
				return map[string]any{"session_id": "bench-gemini", "transcript_path": tr, "cwd": cwd, "hook_event_name": "PreCompress", "timestamp": "2026-08-21T10:04:12.345Z", "trigger": "auto"}
			},
			grow: func(i int) string {
				return fmt.Sprintf(`{"id":"g-%d","timestamp":"2026-08-21T10:09:00Z","type":"user","content":[{"text":"run the tests again, step %d"}]}`, i, i)
			}},
		{name: "Copilot CLI (preCompact)", hook: "copilot", arg: "preCompact", fixture: "copilot-events.jsonl",
			payload: func(tr string) map[string]any {
				return map[string]any{"sessionId": "bench-copilot", "timestamp": 1774281852263, "cwd": cwd, "transcriptPath": tr, "trigger": "auto", "customInstructions": ""}
			},
			grow: func(i int) string {
				return fmt.Sprintf(`{"type":"user.message","data":{"content":"run the tests again, step %d"},"id":"g-%d","timestamp":"2026-08-21T11:09:00Z","parentId":null}`, i, i)
			}},
		{name: "Cursor (preCompact)", hook: "cursor", fixture: "cursor-transcript.jsonl",
			payload: func(tr string) map[string]any {
				return map[string]any{"conversation_id": "bench-cursor", "hook_event_name": "preCompact", "cursor_version": "3.20.17", "workspace_roots": []string{cwd}, "transcript_path": tr, "trigger": "auto"}
			},
			grow: func(i int) string {
				return fmt.Sprintf(`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>run the tests again, step %d</user_query>"}]}}`, i)
			}},
	}
	// opencode keeps its sessions in SQLite: its hook mirrors the session from the database
	// before the capture reads it, and the turn it grows by is a message and its part
	db, err := opencodeDB(filepath.Join(tmp, "opencode"), cwd)
	if err != nil {
		return err
	}
	defer db.Close()
	env = append(env, "XDG_DATA_HOME="+tmp)
	hosts = append(hosts, &host{name: "opencode (PreCompact, from its database)", hook: "opencode", arg: "PreCompact",
		payload: func(string) map[string]any { return map[string]any{"session_id": "ses_bench", "cwd": cwd} },
		grow: func(i int) string {
			at := time.Now().UnixMilli()
			db.Exec(`INSERT INTO message VALUES (?, 'ses_bench', ?, ?, '{"role":"user"}')`, fmt.Sprintf("msg_g%04d", i), at, at)
			db.Exec(`INSERT INTO part VALUES (?, ?, 'ses_bench', ?, ?, ?)`, fmt.Sprintf("prt_g%04d", i), fmt.Sprintf("msg_g%04d", i), at, at,
				fmt.Sprintf(`{"type":"text","text":"run the tests again, step %d"}`, i))
			return ""
		}})
	for _, h := range hosts {
		if h.fixture == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join("fixtures", "transcripts", h.fixture))
		if err != nil {
			return err
		}
		h.tr = filepath.Join(tmp, h.hook+"-"+h.fixture)
		if err := os.WriteFile(h.tr, src, 0o644); err != nil {
			return err
		}
	}
	for i := 0; i < runs+3; i++ {
		for _, h := range hosts {
			if line := h.grow(i); line != "" {
				f, _ := os.OpenFile(h.tr, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(line + "\n")
				f.Close()
			}
			p, _ := json.Marshal(h.payload(h.tr))
			args := []string{"--home", home, "hook", h.hook}
			if h.arg != "" {
				args = append(args, h.arg)
			}
			c := command(env, cwd, bin, args...)
			c.Stdin = bytes.NewReader(p)
			start := time.Now()
			out, err := c.CombinedOutput()
			d := time.Since(start)
			if err != nil || len(out) > 0 {
				return fmt.Errorf("%s: %v: %s", h.name, err, out)
			}
			settle(home)
			if i >= 3 {
				h.times = append(h.times, ms(d))
			}
		}
	}
	// every run must have committed a capture, or the figures compare nothing
	out, err := command(env, home, "git", "log", "--format=%s").Output()
	if err != nil {
		return err
	}
	for _, h := range hosts {
		if k := bytes.Count(out, []byte("capture(precompact): "+map[string]string{"claude": "claude-code"}[h.hook])); h.hook == "claude" && k < runs {
			return fmt.Errorf("%s committed %d captures of %d runs", h.name, k, runs+3)
		}
		if k := bytes.Count(out, []byte("capture(precompact): "+h.hook+" session")); h.hook != "claude" && k < runs {
			return fmt.Errorf("%s committed %d captures of %d runs", h.name, k, runs+3)
		}
	}
	fmt.Printf("capture hook per host, whole process (the host's compaction payload, a grown transcript, one commit): median (p90) of %d runs, interleaved\n", runs)
	fmt.Printf("at %d learnings\n\n| host | median (p90) | ÷ Claude Code |\n|---|---:|---:|\n", n)
	base := pct(hosts[0].times, 50)
	for _, h := range hosts {
		m := pct(h.times, 50)
		fmt.Printf("| %s | %.1f ms (%.1f) | %.2f× |\n", h.name, m, pct(h.times, 90), m/base)
	}
	return nil
}
