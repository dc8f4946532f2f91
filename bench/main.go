// Command bench prints the figures the README quotes. Every figure is measured beside a
// baseline run in the same process on the same data: the git CLI doing the same job, or
// reflect itself at a smaller size.
//
//	go run ./bench                 # 100, 10,000 and 50,000 learnings (a few minutes)
//	go run ./bench -quick          # small sizes, for CI
//	go run ./bench -hooks          # the capture hooks at 10,000 learnings
//	go run ./bench -team           # recall over the personal memory and two teams, beside one memory
//	go run ./bench -recall         # recall hooks, search, reindex, catch-up at 1k/10k/100k
//	go run ./bench -drain          # the heuristic drain: entries/s and the cost of one entry
//	go run ./bench -sync           # reflect sync of two diverged clones beside git pull + push
//	go run ./bench -history        # session history: import throughput, search at 100,000 messages
//	go run ./bench -mcp            # reflect mcp: a memory_search round trip beside reflect search, 10,000 learnings
//	go run ./bench -handoff        # the handoff's cost to SessionStart and to a capture at 10,000 learnings
//	go run ./bench -fresh          # what checking anchors adds to a recall at 10,000 learnings
//	go run ./bench -view           # reflect view's list and search pages at 10,000 learnings
//	go run ./bench -history -deja /tmp/deja  # the same beside deja-vu: 2,000 sessions, 134,000 messages
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflect-memory/reflect/fixtures"
)

type row struct {
	Learnings     int     `json:"learnings"`
	Commits       int     `json:"commits"`
	ReflectMedian float64 `json:"reflect_add_median_ms"`
	ReflectP90    float64 `json:"reflect_add_p90_ms"`
	GitMedian     float64 `json:"git_add_commit_median_ms"`
	GitP90        float64 `json:"git_add_commit_p90_ms"`
	Speedup       float64 `json:"git_over_reflect"`
	VsSmallest    float64 `json:"reflect_vs_smallest"`
}

func main() {
	sizes := flag.String("sizes", "100,10000,50000", "numbers of learnings")
	runs := flag.Int("runs", 31, "measured runs per size (after 3 warm-ups)")
	minCommits := flag.Int("commits", 10000, "commits of history at every size (edits once all learnings exist)")
	projects := flag.Int("projects", 50, "projects the learnings are spread over")
	quick := flag.Bool("quick", false, "small sizes and few runs (CI)")
	hooksMode := flag.Bool("hooks", false, "measure the capture hooks instead of reflect add")
	hostsMode := flag.Bool("hosts", false, "measure the capture hook of every host beside Claude Code's")
	syncMode := flag.Bool("sync", false, "measure reflect sync of two clones diverged by 1,000 learnings each, beside the git CLI")
	drainMode := flag.Bool("drain", false, "measure the heuristic drain (throughput and one entry) at 10,000 learnings")
	recallMode := flag.Bool("recall", false, "measure recall hooks, search, reindex and catch-up (sizes 1,000, 10,000, 100,000)")
	viewMode := flag.Bool("view", false, "measure reflect view's list and search pages at 10,000 learnings beside reflect list --format json")
	teamMode := flag.Bool("team", false, "measure a prompt's recall over the personal memory and two team memories of 10,000 learnings each, beside one memory")
	historyMode := flag.Bool("history", false, "measure history import (messages/s) and search at 100,000 transcript messages")
	mcpMode := flag.Bool("mcp", false, "measure a memory_search call to reflect mcp (100 calls, one process) beside reflect search at 10,000 learnings")
	handoffMode := flag.Bool("handoff", false, "measure the handoff's cost to SessionStart and to a capture at 10,000 learnings")
	deja := flag.String("deja", "", "with -history: a deja-vu binary to measure beside reflect (built from github.com/vshulcz/deja-vu with go build ./cmd/deja)")
	format := flag.String("format", "text", "text or json")
	idle := flag.Duration("idle", 0, "with -recall: how long the machine idles before each command timed (a prompt comes seconds after the last hook; 0: back to back)")
	freshMode := flag.Bool("fresh", false, "measure what checking anchors adds to a recall at 10,000 learnings, half anchored")
	flag.Parse()
	if *quick {
		*sizes, *runs, *minCommits = "100,3000", 7, 300
	}
	var err error
	if *mcpMode {
		n, calls, r := 10000, 100, 21
		if *quick {
			n, calls, r = 1000, 30, 7
		}
		err = runMCP(n, calls, r)
	} else if *handoffMode {
		n, r := 10000, 21
		if *quick {
			n, r = 1000, 7
		}
		if f := flag.Lookup("runs"); f != nil && f.Value.String() != f.DefValue {
			r = *runs
		}
		err = runHandoff(n, r)
	} else if *freshMode {
		n, r := 10000, 51
		if *quick {
			n, r = 1000, 11
		}
		err = runFresh(n, r)
	} else if *viewMode {
		n, r := 10000, 21
		if *quick {
			n, r = 1000, 5
		}
		err = runView(n, r)
	} else if *teamMode {
		n, r := 10000, 31
		if *quick {
			n, r = 1000, 7
		}
		err = runTeam(n, r)
	} else if *historyMode && *deja != "" {
		sessions, imports, r := 2000, 3, 7
		if *quick {
			sessions, imports, r = 200, 1, 3
		}
		err = runDeja(*deja, sessions, 67, imports, r)
	} else if *historyMode {
		if *deja == "" {
			fmt.Fprintln(os.Stderr, "bench: no -deja PATH given: measuring reflect alone (go run ./bench -history -deja PATH adds deja-vu beside it)")
		}
		n, r := 100000, 21
		if *quick {
			n, r = 10000, 7
		}
		err = runHistory(n, r)
	} else if *syncMode {
		n, r := 1000, 7
		if *quick {
			n, r = 100, 3
		}
		if f := flag.Lookup("runs"); f != nil && f.Value.String() != f.DefValue {
			r = *runs
		}
		err = runSync(n, r)
	} else if *drainMode {
		n, entries := 10000, 300
		if *quick {
			n, entries = 1000, 60
		}
		err = runDrain(n, entries, *runs)
	} else if *recallMode {
		sz, big := "1000,10000,100000", 200_000
		if *quick {
			sz, big = "1000,3000", 20_000
		}
		if f := flag.Lookup("sizes"); f != nil && f.Value.String() != f.DefValue {
			sz = *sizes
		}
		err = runRecall(sz, *runs, big, *idle)
	} else if *hostsMode {
		n := 10000
		if *quick {
			n = 1000
		}
		err = runHosts(n, *runs, *projects)
	} else if *hooksMode {
		n := 10000
		if *quick {
			n = 1000
		}
		err = runHooks(n, *runs, *projects)
	} else {
		err = run(*sizes, *runs, *minCommits, *projects, *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(sizeList string, runs, minCommits, projects int, format string) error {
	tmp, bin, env, err := setup("")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}

	var rows []row
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad size %q", s)
		}
		home := filepath.Join(tmp, fmt.Sprintf("mem-%d", n))
		commits := minCommits
		if err := memory(env, bin, home, n, commits, projects); err != nil {
			return err
		}
		r, err := measure(env, bin, home, runs)
		if err != nil {
			return err
		}
		r.Learnings, r.Commits = n, commits+1
		rows = append(rows, r)
		os.RemoveAll(home)
	}
	for i := range rows {
		rows[i].VsSmallest = rows[i].ReflectMedian / rows[0].ReflectMedian
	}
	if format == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	fmt.Printf("reflect add, whole process: median of %d runs, beside git add + git commit of the same\n", runs)
	fmt.Printf("kind of file in the same repository, interleaved (%d projects; history as listed)\n\n", projects)
	fmt.Printf("| learnings | commits | reflect add median (p90) | git add+commit median (p90) | git ÷ reflect | reflect ÷ reflect@%d |\n", rows[0].Learnings)
	fmt.Printf("|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Printf("| %d | %d | %.1f ms (%.1f) | %.1f ms (%.1f) | %.1f× | %.2f |\n", r.Learnings, r.Commits,
			r.ReflectMedian, r.ReflectP90, r.GitMedian, r.GitP90, r.Speedup, r.VsSmallest)
	}
	return nil
}

// memory initialises a knowledge repository at home and fills it with n synthetic
// learnings over projects projects in the given number of commits.
func memory(env []string, bin, home string, n, commits, projects int) error {
	if out, err := command(env, ".", bin, "--home", home, "init").CombinedOutput(); err != nil {
		return fmt.Errorf("init: %v: %s", err, out)
	}
	fmt.Fprintf(os.Stderr, "building %d learnings in %d commits...\n", n, commits)
	return fixtures.BuildRepo(context.Background(), home, n, commits, projects)
}

// reindex rebuilds the search index of the memory at home, as `reflect reindex` does.
func reindex(env []string, bin, home string) error {
	if out, err := command(env, ".", bin, "--home", home, "reindex").CombinedOutput(); err != nil {
		return fmt.Errorf("reindex: %v: %s", err, out)
	}
	return nil
}

// gitProject makes an agent's repository at dir whose origin is remote, on branch when it
// is not "" (git's default branch otherwise).
func gitProject(env []string, dir, branch, remote string) error {
	initArgs := []string{"init", "-q", dir}
	if branch != "" {
		initArgs = []string{"init", "-q", "-b", branch, dir}
	}
	for _, args := range [][]string{initArgs, {"-C", dir, "remote", "add", "origin", remote}} {
		if out, err := command(env, ".", "git", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}

func command(env []string, dir, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env, c.Dir = env, dir
	return c
}

// measure alternates a reflect add and a git add + commit of a new learning file.
func measure(env []string, bin, home string, runs int) (row, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	var rt, gt []float64
	for i := 0; i < runs+3; i++ {
		proj := fixtures.SynthProject(i % 7)
		start := time.Now()
		if out, err := command(env, ".", bin, "--home", home, "add", "--project", proj,
			"--title", fmt.Sprintf("bench learning %d", i), "--body", "measured").CombinedOutput(); err != nil {
			return row{}, fmt.Errorf("reflect add: %v: %s", err, out)
		}
		d1 := time.Since(start)
		settle(home)

		path, data := fixtures.SynthLearning(rng, i, proj, time.Now())
		if err := os.WriteFile(filepath.Join(home, path), data, 0o644); err != nil {
			return row{}, err
		}
		start = time.Now()
		if out, err := command(env, home, "git", "add", path).CombinedOutput(); err != nil {
			return row{}, fmt.Errorf("git add: %v: %s", err, out)
		}
		if out, err := command(env, home, "git", "commit", "-q", "--no-verify", "-m", "learn: "+path).CombinedOutput(); err != nil {
			return row{}, fmt.Errorf("git commit: %v: %s", err, out)
		}
		d2 := time.Since(start)
		settle(home)
		if i >= 3 {
			rt, gt = append(rt, ms(d1)), append(gt, ms(d2))
		}
	}
	r := row{ReflectMedian: pct(rt, 50), ReflectP90: pct(rt, 90), GitMedian: pct(gt, 50), GitP90: pct(gt, 90)}
	r.Speedup = r.GitMedian / r.ReflectMedian
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(xs []float64, p int) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[(len(s)-1)*p/100]
}

// settle waits until the background work a step started is done (a pool refill, a history
// import), so that no timed step competes with the one before it. A refill is awaited by its
// lock and, since reflect starts background work at a low priority that may not have taken the
// lock yet, by the pool holding enough files again (at most a second).
func settle(home string) {
	time.Sleep(20 * time.Millisecond)
	state := filepath.Join(home, ".git", "reflect")
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if des, err := os.ReadDir(filepath.Join(state, "pool")); err != nil || len(des) >= 64 {
			break
		}
	}
	for _, lock := range []string{"pool", "history"} {
		fl := flock.New(filepath.Join(state, "locks", lock))
		if err := fl.Lock(); err == nil {
			fl.Unlock()
		}
	}
}

// buildBoth builds reflect and, beside it, reflect-engine (which the lean reflect hands the
// engine's commands and hook events to) into dir and returns reflect's path.
func buildBoth(dir string) (string, error) {
	for _, name := range []string{"reflect-engine", "reflect"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./cmd/"+name).CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s (run from the repository root): %v\n%s", name, err, out)
		}
	}
	return filepath.Join(dir, "reflect"), nil
}

// setup makes a temporary directory (the caller removes it), builds reflect into it and
// returns it with an environment whose HOME is that directory, so nothing of the user's is
// read or changed.
func setup(kind string) (tmp, bin string, env []string, err error) {
	if tmp, err = os.MkdirTemp("", "reflect-bench-"+kind); err != nil {
		return "", "", nil, err
	}
	if bin, err = buildBoth(tmp); err != nil {
		return tmp, "", nil, err
	}
	env = append(os.Environ(), "HOME="+tmp, "XDG_CONFIG_HOME="+tmp, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.org",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.org", "REFLECT_HOME=")
	return tmp, bin, env, nil
}
