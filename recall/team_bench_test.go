package recall

import (
	"context"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/team"
)

// BenchmarkRecallTeams is a prompt's recall as the hook runs it (the index opened, searched,
// ranked, rendered) over one memory of 10,000 learnings, alternated with the same recall over
// a memory read with two team memories of 10,000 learnings each, reviewed; it reports the
// medians and their ratio (the bound: within 2×). ns/op is the pair.
func BenchmarkRecallTeams(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the synthetic memories are built with git fast-import")
	}
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ctx := context.Background()
	memory := func(dir string, build func(string) error) *gitstore.Repo {
		if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := build(dir); err != nil {
			b.Fatal(err)
		}
		r, err := gitstore.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
			b.Fatal(err)
		}
		return r
	}
	personal := func(dir string) error { return fixtures.BuildRepo(ctx, dir, 10000, 100, 20) }
	solo := memory(filepath.Join(home, "solo"), personal)
	defer solo.Close()
	withTeams := memory(filepath.Join(home, "mine"), personal)
	defer withTeams.Close()
	for i, name := range []string{"acme", "web"} {
		tr := memory(team.Dir(withTeams, name), func(dir string) error {
			return fixtures.BuildTeamRepo(ctx, dir, 10000, 100, 20, uint64(1000+i))
		})
		if _, err := team.Refresh(tr, 0); err != nil {
			b.Fatal(err)
		}
		tr.Close()
	}
	proj := filepath.Join(home, "proj")
	for _, args := range [][]string{{"init", "-q", proj}, {"-C", proj, "remote", "add", "origin", "https://" + fixtures.SynthProject(3) + ".git"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			b.Fatal(string(out))
		}
	}
	hook := index.Options{LockTimeout: 250 * time.Millisecond, CatchUpLimit: 500, NoBuild: true}
	recall := func(r *gitstore.Repo) (time.Duration, int) {
		start := time.Now()
		ix, err := index.Open(ctx, r, hook)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Recall(ctx, r, ix, Request{Cwd: proj, Prompt: "the webhook retry deadlock in the postgres migration again"})
		ix.Close()
		if err != nil {
			b.Fatal(err)
		}
		teams := 0
		for _, c := range res.Injected {
			if c.From.Team != nil {
				teams++
			}
		}
		return time.Since(start), teams
	}
	// the two alternate, so that a machine busy with other work slows both alike
	var one, three []float64
	teams := 0
	for b.Loop() {
		d, _ := recall(solo)
		one = append(one, float64(d.Microseconds())/1000)
		d, teams = recall(withTeams)
		three = append(three, float64(d.Microseconds())/1000)
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(one), "one-memory-ms")
	b.ReportMetric(med(three), "with-2-teams-ms")
	b.ReportMetric(med(three)/med(one), "ratio")
	b.ReportMetric(float64(teams), "team-learnings")
}
