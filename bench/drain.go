package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript"
)

// runDrain measures the heuristic drain, whole process, on a repository of n learnings:
// the throughput of one `reflect drain` over many entries made from the fixture sessions,
// and the cost of draining one entry, beside `reflect add` (one commit too) in the same run.
func runDrain(n, entries, runs int) error {
	tmp, bin, env, err := setup("drain-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "mem")
	if err := memory(env, bin, home, n, max(1, min(n/10, 1000)), 20); err != nil {
		return err
	}
	var digests []queue.Digest
	for _, name := range []string{"claude-session.jsonl", "codex-rollout.jsonl", "codex-legacy.jsonl"} {
		s, err := transcript.ReadFile(filepath.Join("fixtures", "transcripts", name))
		if err != nil {
			return err
		}
		digests = append(digests, queue.BuildDigest(s.Messages, 48<<10))
	}
	r, err := gitstore.Open(home)
	if err != nil {
		return err
	}
	fill := func(k int) error {
		files := map[string][]byte{}
		base := time.Now().Add(-time.Hour)
		for i := 0; i < k; i++ {
			at := base.Add(time.Duration(i) * time.Millisecond)
			e := &queue.Entry{ID: queue.NewID(at), Harness: "claude-code", Session: fmt.Sprintf("bench-%d-%d", k, i), Trigger: "precompact",
				Project: fixtures.SynthProject(i % 20), Machine: "bench", Created: at, Updated: at, Digest: digests[i%len(digests)]}
			data, err := e.Render()
			if err != nil {
				return err
			}
			files[queue.Path(e.ID)] = data
		}
		_, err := r.Commit(context.Background(), "bench: enqueue", files)
		return err
	}
	if err := reindex(env, bin, home); err != nil {
		return err
	}
	// throughput: one drain over many entries
	if err := fill(entries); err != nil {
		return err
	}
	start := time.Now()
	out, err := command(env, ".", bin, "--home", home, "--format", "json", "drain").Output()
	if err != nil {
		return fmt.Errorf("drain: %v: %s", err, out)
	}
	total := time.Since(start)
	var rep struct {
		Drained, Learned, Merged int
	}
	json.Unmarshal(out, &rep)
	settle(home)
	// one entry at a time, beside reflect add
	var one, add []float64
	for i := 0; i < runs+3; i++ {
		if err := fill(1); err != nil {
			return err
		}
		t0 := time.Now()
		if out, err := command(env, ".", bin, "--home", home, "drain").CombinedOutput(); err != nil {
			return fmt.Errorf("drain: %v: %s", err, out)
		}
		d1 := time.Since(t0)
		settle(home)
		t0 = time.Now()
		if out, err := command(env, ".", bin, "--home", home, "add", "--project", fixtures.SynthProject(i%20), "--title", fmt.Sprintf("bench add %d", i), "--body", "x").CombinedOutput(); err != nil {
			return fmt.Errorf("add: %v: %s", err, out)
		}
		d2 := time.Since(t0)
		settle(home)
		if i >= 3 {
			one, add = append(one, ms(d1)), append(add, ms(d2))
		}
	}
	fmt.Printf("heuristic drain, whole process, on %d learnings (20 projects), entries made from the three fixture sessions\n\n", n)
	fmt.Printf("| what | figure |\n|---|---:|\n")
	fmt.Printf("| one `reflect drain` over %d entries | %.2f s: **%.0f entries/s** (%d drained, %d new learnings, %d seen again) |\n",
		entries, total.Seconds(), float64(rep.Drained)/total.Seconds(), rep.Drained, rep.Learned, rep.Merged)
	fmt.Printf("| `reflect drain` of one entry, median (p90) of %d | %.1f ms (%.1f) |\n", runs, pct(one, 50), pct(one, 90))
	fmt.Printf("| `reflect add` (one commit), same run | %.1f ms (%.1f) |\n", pct(add, 50), pct(add, 90))
	fmt.Printf("| one entry ÷ add | %.2f× |\n", pct(one, 50)/pct(add, 50))
	return nil
}
