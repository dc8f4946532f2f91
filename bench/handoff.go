package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// runHandoff measures what the handoff costs the hooks, as the hosts run them (a process per
// event, the payload on stdin), at n learnings: a SessionStart with no handoff for its
// branch beside one with a handoff written here and one that arrived by sync 50 commits
// back (its author found by walking history); and a capture (PreCompact of a 200-turn
// session) with handoff.enabled false beside true. The cases alternate within each round,
// so load on the machine weighs on both sides alike.
func runHandoff(n, runs int) error {
	tmp, bin, env, err := setup("handoff-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "mem")
	if err := memory(env, bin, home, n, min(n, 1000), 20); err != nil {
		return err
	}
	if err := reindex(env, bin, home); err != nil {
		return err
	}
	remote := "https://" + fixtures.SynthProject(3) + ".git"
	dirs := map[string]string{}
	for _, b := range []string{"none", "here", "arrived", "other"} {
		d := filepath.Join(tmp, "proj-"+b)
		if err := gitProject(env, d, "feat/"+b, remote); err != nil {
			return err
		}
		dirs[b] = d
	}
	cpu := map[string][]float64{} // user+system time of the hook process: steadier than wall time on a loaded machine
	var lastCPU time.Duration
	hook := func(dir string, p map[string]any) (time.Duration, string, error) {
		p["cwd"] = dir
		data, _ := json.Marshal(p)
		c := command(env, dir, bin, "--home", home, "hook", "claude")
		c.Stdin = bytes.NewReader(data)
		var out bytes.Buffer
		c.Stdout = &out
		start := time.Now()
		if err := c.Run(); err != nil {
			return 0, "", fmt.Errorf("hook: %v", err)
		}
		lastCPU = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		return time.Since(start), out.String(), nil
	}
	transcript := func(name, dir, branch string, turns int) (string, error) {
		p := filepath.Join(tmp, name+".jsonl")
		return p, os.WriteFile(p, fixtures.WorkSession(dir, branch, turns, time.Now()), 0o644)
	}
	capture := func(kind, session string, turns int) error {
		tr, err := transcript(session, dirs[kind], "feat/"+kind, turns)
		if err != nil {
			return err
		}
		_, _, err = hook(dirs[kind], map[string]any{"session_id": session, "hook_event_name": "PreCompact", "trigger": "auto", "transcript_path": tr})
		return err
	}
	// the arrived handoff first, its record of being written here removed; then 50 commits
	// of other work, then the one written here
	if err := capture("arrived", "s-arrived", 50); err != nil {
		return err
	}
	os.Remove(filepath.Join(home, ".git", "reflect", "state", "handoff", "written.json"))
	for i := 0; i < 50; i++ {
		if out, err := command(env, ".", bin, "--home", home, "add", "--project", fixtures.SynthProject(i%7), "--title", fmt.Sprintf("other work %d", i), "--body", "x").CombinedOutput(); err != nil {
			return fmt.Errorf("add: %v: %s", err, out)
		}
	}
	if err := capture("here", "s-here", 50); err != nil {
		return err
	}
	settle(home)

	cases := []string{"none", "here", "arrived"}
	times := map[string][]float64{}
	for i := 0; i < runs+3; i++ {
		for k := range cases {
			c := cases[(i+k)%len(cases)]
			d, out, err := hook(dirs[c], map[string]any{"session_id": fmt.Sprint("start-", i), "hook_event_name": "SessionStart", "source": "startup"})
			if err != nil {
				return err
			}
			if got := strings.Contains(out, "reflect handoff"); got != (c != "none") {
				return fmt.Errorf("SessionStart %s: handoff injected %v: %s", c, got, out)
			}
			if i >= 3 {
				times[c] = append(times[c], ms(d))
				cpu[c] = append(cpu[c], ms(lastCPU))
			}
		}
	}
	// captures: handoff.enabled off and on, alternately (the setting's commit is untimed)
	tr, err := transcript("capture", dirs["other"], "feat/other", 200)
	if err != nil {
		return err
	}
	for i := 0; i < runs+3; i++ {
		for k := range 2 {
			on := (i+k)%2 == 1
			if out, err := command(env, ".", bin, "--home", home, "config", "set", "handoff.enabled", fmt.Sprint(on)).CombinedOutput(); err != nil {
				return fmt.Errorf("config set: %v: %s", err, out)
			}
			settle(home)
			d, _, err := hook(dirs["other"], map[string]any{"session_id": fmt.Sprintf("cap-%d-%v", i, on), "hook_event_name": "PreCompact", "trigger": "auto", "transcript_path": tr})
			if err != nil {
				return err
			}
			if i >= 3 {
				key := fmt.Sprint("capture-", on)
				times[key] = append(times[key], ms(d))
				cpu[key] = append(cpu[key], ms(lastCPU))
			}
		}
	}
	fmt.Printf("handoff cost in the hooks, whole process (stdin payload, as the hosts run them): median (p90) of %d runs at %d learnings, cases alternating; CPU is the process's user+system time\n\n", runs, n)
	fmt.Printf("| hook | wall median (p90) | ÷ without | CPU median | ÷ without |\n|---|---:|---:|---:|---:|\n")
	line := func(name, key, base string) {
		w, c := pct(times[key], 50), pct(cpu[key], 50)
		fmt.Printf("| %s | %.1f ms (%.1f) | %.2f× | %.1f ms | %.2f× |\n", name, w, pct(times[key], 90), w/pct(times[base], 50), c, c/pct(cpu[base], 50))
	}
	line("SessionStart, no handoff for the branch", "none", "none")
	line("SessionStart, a handoff written here", "here", "none")
	line("SessionStart, a handoff arrived by sync 50 commits back (author walked for once, then cached)", "arrived", "none")
	line("PreCompact of a 200-turn session, handoff.enabled false", "capture-false", "capture-false")
	line("PreCompact of a 200-turn session, handoff.enabled true", "capture-true", "capture-false")
	fmt.Printf("\nwriting the handoff adds %+.1f ms of wall time, %+.1f ms of CPU, to a capture (medians)\n",
		pct(times["capture-true"], 50)-pct(times["capture-false"], 50), pct(cpu["capture-true"], 50)-pct(cpu["capture-false"], 50))
	return nil
}
