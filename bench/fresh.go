package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/recall"
	"github.com/reflect-memory/reflect/workspace"
)

// runFresh measures what checking anchors adds to a prompt's recall (issue 22's budget: at
// most 5 ms at the median at 10,000 learnings, half anchored). In process, so that the two
// differ only by the check: each run recalls the same prompt twice, in the project's
// workspace (anchors checked against its repository) and in the same workspace without its
// work tree (the baseline: nothing to check), in alternating order, the index opened anew
// each time as a hook does.
func runFresh(n, runs int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "reflect-bench-fresh-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	os.Setenv("HOME", tmp)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(tmp, "mem")
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		return err
	}
	if err := fixtures.BuildRepo(ctx, dir, n, 100, 20); err != nil {
		return err
	}
	proj, err := fixtures.BuildAnchoredProject(ctx, filepath.Join(tmp, "proj"), fixtures.SynthProject(3))
	if err != nil {
		return err
	}
	anchored, err := fixtures.AnchorHalf(ctx, dir, proj)
	if err != nil {
		return err
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
		return err
	}
	ws, err := workspace.Read(proj.Dir, 0)
	if err != nil {
		return err
	}
	bare := ws
	bare.Root, bare.GitDir = "", ""
	once := func(w workspace.Workspace) (float64, int, error) {
		start := time.Now()
		ix, err := index.Open(ctx, r, index.Options{LockTimeout: time.Second})
		if err != nil {
			return 0, 0, err
		}
		res, err := recall.Recall(ctx, r, ix, recall.Request{Prompt: fixtures.FreshPrompt, Workspace: &w, DryRun: true})
		ix.Close()
		if err != nil {
			return 0, 0, err
		}
		checked := 0
		for _, c := range res.Candidates {
			if c.Freshness.State != "" {
				checked++
			}
		}
		return ms(time.Since(start)), checked, nil
	}
	var with, without, diff []float64
	checked := 0
	for i := 0; i < runs+3; i++ {
		var a, b float64
		var err error
		if i%2 == 0 {
			if b, _, err = once(bare); err == nil {
				a, checked, err = once(ws)
			}
		} else if a, checked, err = once(ws); err == nil {
			b, _, err = once(bare)
		}
		if err != nil {
			return err
		}
		if i >= 3 {
			with, without, diff = append(with, a), append(without, b), append(diff, a-b)
		}
	}
	sort.Float64s(diff)
	fmt.Printf("recall with freshness, in process: median (p90) of %d runs at %d learnings, %d of them anchored; %d of the 12 candidates checked\n", runs, n, anchored, checked)
	fmt.Printf("| recall without the check | recall with it | added (median of paired differences) | ratio |\n|---:|---:|---:|---:|\n")
	fmt.Printf("| %.2f ms (%.2f) | %.2f ms (%.2f) | %.2f ms | %.2f |\n", pct(without, 50), pct(without, 90), pct(with, 50), pct(with, 90),
		pct(diff, 50), pct(with, 50)/pct(without, 50))
	return nil
}
