package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// runTeam measures, whole process, what issue 23 promises: a UserPromptSubmit hook over the
// personal memory and two team memories of n learnings each (reviewed: merged through a pull
// request) against the same hook over one memory of n, the two alternated run by run in the
// same process tree so that a busy machine slows both alike. The bound is 2×.
func runTeam(n, runs int) error {
	tmp, bin, env, err := setup("team-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	ctx := context.Background()
	solo, mine := filepath.Join(tmp, "solo"), filepath.Join(tmp, "mine")
	for _, home := range []string{solo, mine} {
		if err := memory(env, bin, home, n, 100, 20); err != nil {
			return err
		}
		if err := reindex(env, bin, home); err != nil {
			return err
		}
	}
	for i, name := range []string{"acme", "web"} {
		dir := filepath.Join(mine, ".git", "reflect", "teams", name)
		if out, err := command(env, ".", bin, "--home", dir, "init").CombinedOutput(); err != nil {
			return fmt.Errorf("init team: %v: %s", err, out)
		}
		fmt.Fprintf(os.Stderr, "building team %s: %d learnings...\n", name, n)
		if err := fixtures.BuildTeamRepo(ctx, dir, n, 100, 20, uint64(1000+i)); err != nil {
			return err
		}
		if out, err := command(env, ".", bin, "--home", dir, "reindex").CombinedOutput(); err != nil {
			return fmt.Errorf("reindex team: %v: %s", err, out)
		}
	}
	// what reflect team add and team sync leave behind: each team's reviews computed
	if out, err := command(env, ".", bin, "--home", mine, "search", "--global", "webhook").CombinedOutput(); err != nil {
		return fmt.Errorf("search: %v: %s", err, out)
	}
	proj := filepath.Join(tmp, "proj")
	if err := gitProject(env, proj, "", "https://"+fixtures.SynthProject(3)+".git"); err != nil {
		return err
	}
	prompt := "the webhook retry deadlock in the postgres migration again"
	var one, three []float64
	var teamLines int
	for i := 0; i < runs+3; i++ {
		ask, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("bench-%d", i), "hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": proj})
		for k, home := range []string{solo, mine} {
			c := command(env, proj, bin, "--home", home, "hook", "claude")
			c.Stdin = bytes.NewReader(ask)
			start := time.Now()
			out, err := c.Output()
			d := ms(time.Since(start))
			if err != nil {
				return fmt.Errorf("hook: %v", err)
			}
			settle(home)
			if i < 3 {
				continue // warm-ups: the first recall of a team computes its reviews
			}
			if k == 0 {
				one = append(one, d)
			} else {
				three = append(three, d)
				teamLines = strings.Count(string(out), "· team ")
			}
		}
	}
	fmt.Printf("recall across memories, whole process (a UserPromptSubmit hook per run, alternated): median (p90) of %d runs\n\n", runs)
	fmt.Printf("| memories | learnings | UserPromptSubmit hook | ÷ one memory |\n|---|---:|---:|---:|\n")
	fmt.Printf("| personal | %d | %.1f ms (%.1f) | 1.00 |\n", n, pct(one, 50), pct(one, 90))
	fmt.Printf("| personal + 2 teams | %d + 2 × %d | %.1f ms (%.1f) | %.2f |\n", n, n, pct(three, 50), pct(three, 90), pct(three, 50)/pct(one, 50))
	fmt.Printf("\nteam learnings injected by the last run: %d\n", teamLines)
	return nil
}
