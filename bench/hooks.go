package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/history/watch"
	"github.com/reflect-memory/reflect/internal/testenv"
)

// runHooks measures the capture hooks as the hosts run them (a new process per event, the
// payload on stdin) on a repository of n learnings, beside the process start-up of reflect
// itself and the hosts' default time-outs.
func runHooks(n, runs, projects int) error {
	tmp, bin, env, err := setup("hooks-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "mem")
	if err := memory(env, bin, home, n, min(n, 10000), projects); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join("fixtures", "transcripts", "claude-session.jsonl"))
	if err != nil {
		return err
	}
	tr := filepath.Join(tmp, "session.jsonl")
	if err := os.WriteFile(tr, src, 0o644); err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	payload := func(ev string, extra map[string]any) []byte {
		p := map[string]any{"session_id": "bench-session", "transcript_path": tr, "cwd": cwd, "hook_event_name": ev}
		for k, v := range extra {
			p[k] = v
		}
		b, _ := json.Marshal(p)
		return b
	}
	hook := func(p []byte) (time.Duration, error) {
		c := command(env, cwd, bin, "--home", home, "hook", "claude")
		c.Stdin = bytes.NewReader(p)
		start := time.Now()
		out, err := c.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("hook: %v: %s", err, out)
		}
		return time.Since(start), nil
	}
	grow := func() { // a turn happened since the last capture
		f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(src[:bytes.IndexByte(src, '\n')+1])
		f.Close()
	}
	type row struct {
		name  string
		times []float64
	}
	rows := []*row{{name: "reflect version (process start-up)"}, {name: "PostToolUse, failed call (arms the watcher)"},
		{name: "PreCompact (digest + one commit)"}, {name: "Stop, nothing new (gated): pokes the session's history importer"},
		{name: "Stop, nothing new (gated), no importer watching: starts one (its session start did not)"},
		{name: "SessionEnd after a turn (digest + one commit)"},
		{name: "reflect-engine version (what reflect hands search and recall to)"}}
	engine := filepath.Join(filepath.Dir(bin), "reflect-engine")
	failure := payload("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "npm test"}, "error": "Exit code 1"})
	for i := 0; i < runs+3; i++ {
		start := time.Now()
		if out, err := command(env, ".", bin, "version").CombinedOutput(); err != nil {
			return fmt.Errorf("version: %v: %s", err, out)
		}
		times := []time.Duration{time.Since(start)}
		d, err := hook(failure)
		if err != nil {
			return err
		}
		times = append(times, d)
		grow()
		if d, err = hook(payload("PreCompact", map[string]any{"trigger": "auto"})); err != nil {
			return err
		}
		times = append(times, d)
		settle(home)
		// a Stop of a session whose importer watches it (its session start, or a Stop before,
		// started it), which imports what is new on the poke
		if d, err = hook(payload("Stop", map[string]any{"stop_hook_active": false})); err != nil {
			return err
		}
		times = append(times, d)
		time.Sleep(2 * watch.Every)
		settle(home)
		// a Stop no importer watches for (a host without SessionStart, a session idle past
		// history.watch): it starts one
		testenv.StopWatchers(home)
		if d, err = hook(payload("Stop", map[string]any{"stop_hook_active": false})); err != nil {
			return err
		}
		times = append(times, d)
		settle(home) // the history import that Stop started
		grow()
		if d, err = hook(payload("SessionEnd", map[string]any{"reason": "other"})); err != nil {
			return err
		}
		times = append(times, d)
		settle(home)
		start = time.Now()
		if out, err := command(env, ".", engine, "version").CombinedOutput(); err != nil {
			return fmt.Errorf("reflect-engine version: %v: %s", err, out)
		}
		times = append(times, time.Since(start))
		if i >= 3 {
			for k, t := range times {
				rows[k].times = append(rows[k].times, ms(t))
			}
		}
	}
	fmt.Printf("capture hooks, whole process (stdin payload, as the hosts run them): median (p90) of %d runs\n", runs)
	fmt.Printf("at %d learnings; host default time-outs: 600 s per hook, SessionEnd 1.5 s (Claude Code) / 3 s (Codex)\n\n", n)
	fmt.Printf("| what | median (p90) | ÷ start-up | share of 1.5 s |\n|---|---:|---:|---:|\n")
	defer testenv.StopWatchers(home)
	base := pct(rows[0].times, 50)
	for _, r := range rows {
		m := pct(r.times, 50)
		fmt.Printf("| %s | %.1f ms (%.1f) | %.2f× | %.1f%% |\n", r.name, m, pct(r.times, 90), m/base, m/15)
	}
	return nil
}
