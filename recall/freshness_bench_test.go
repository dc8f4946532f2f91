package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/workspace"
)

// BenchmarkRecallFreshness is a prompt's recall (fixtures.FreshPrompt) at 10,000 learnings, half of them anchored
// (a third of those drifted, a sixth orphaned), in a workspace of the project (with the
// anchors checked against its repository) and, as the baseline, the same workspace without
// its work tree (nothing to check against): the difference is what freshness costs.
func BenchmarkRecallFreshness(b *testing.B) {
	ctx := context.Background()
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(home, "mem")
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, 10000, 100, 20); err != nil {
		b.Fatal(err)
	}
	proj, err := fixtures.BuildAnchoredProject(ctx, filepath.Join(home, "proj"), fixtures.SynthProject(3))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fixtures.AnchorHalf(ctx, dir, proj); err != nil {
		b.Fatal(err)
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Read(proj.Dir, 0)
	if err != nil {
		b.Fatal(err)
	}
	bare := ws
	bare.Root, bare.GitDir = "", ""
	// the added step alone, on the candidates of one recall
	b.Run("step", func(b *testing.B) {
		ix, err := index.Open(ctx, r, index.Options{LockTimeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		w := bare
		res, err := Recall(ctx, r, ix, Request{Prompt: fixtures.FreshPrompt, Workspace: &w, DryRun: true})
		ix.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Candidates) == 0 {
			b.Fatal("the prompt recalls no candidate")
		}
		cs := make([]Candidate, len(res.Candidates))
		for b.Loop() {
			copy(cs, res.Candidates)
			checkFreshness(ctx, r, &ws, cs, nil)
		}
	})
	for _, c := range []struct {
		name string
		ws   Workspace
	}{{"without", bare}, {"with", ws}} {
		b.Run(c.name, func(b *testing.B) {
			i, marked := 0, 0
			for b.Loop() {
				i++
				ix, err := index.Open(ctx, r, index.Options{LockTimeout: time.Second})
				if err != nil {
					b.Fatal(err)
				}
				w := c.ws
				res, err := Recall(ctx, r, ix, Request{Harness: "claude", Session: fmt.Sprint("s", i), Prompt: fixtures.FreshPrompt, Workspace: &w, DryRun: true})
				ix.Close()
				if err != nil {
					b.Fatal(err)
				}
				for _, cand := range res.Candidates {
					if cand.Freshness.State != "" {
						marked++
					}
				}
			}
			if c.name == "with" && marked == 0 {
				b.Fatal("no candidate's freshness was checked: the comparison would measure nothing")
			}
			b.ReportMetric(float64(marked)/float64(i), "checked/op")
		})
	}
}
