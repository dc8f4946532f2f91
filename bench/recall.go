package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/hooks/resident"
	"github.com/reflect-memory/reflect/internal/testenv"
)

// runRecall measures, whole process, what issue 5 promises at each size: the recall hooks
// (SessionStart and UserPromptSubmit), `reflect search`, `reflect reindex`, and a search
// that first catches up 100 learnings committed by the git CLI. Baselines in the same
// run: reflect's own start-up (`reflect version`) and `git grep` finding the same words in
// the same files, the git CLI doing the nearest job.
// runRecall measures the recall hooks at each size of sizeList, in a small project and in
// one of bigFiles more files; with idle, each command timed comes after the machine idled that
// long, as a prompt comes seconds after the last hook (the resident engine has given its memory
// back, the cores have slept).
func runRecall(sizeList string, runs, bigFiles int, idle time.Duration) error {
	tmp, bin, env, err := setup("recall-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	// the agent's project (see project), and the same in a large project: bigFiles more
	// files, about twice as many objects in one pack
	proj, big := filepath.Join(tmp, "proj"), filepath.Join(tmp, "big")
	if err := project(env, proj, 0); err != nil {
		return err
	}
	if err := project(env, big, bigFiles); err != nil {
		return err
	}
	type result struct {
		n                                            int
		startup, startHook, promptHook, search, grep []float64
		bigStartHook                                 []float64 // SessionStart in the large project
		// the same hooks when no engine stays (the day's first, or after recall.resident)
		coldStartHook, coldPromptHook []float64
		// CPU time (user + system) of the same runs: what a hook costs whatever else the
		// machine runs (the wall times above grow with the load; these barely do)
		cpuStartup, cpuStartHook, cpuPromptHook []float64
		reindex, catchUp                        []float64
	}
	var results []*result
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad size %q", s)
		}
		res := &result{n: n}
		home := filepath.Join(tmp, fmt.Sprintf("mem-%d", n))
		if err := memory(env, bin, home, n, max(1, min(n/10, 1000)), 20); err != nil {
			return err
		}
		var lastCPU float64 // of the last command timed
		timed := func(dir string, stdin []byte, name string, args ...string) (float64, error) {
			c := command(env, dir, name, args...)
			if stdin != nil {
				c.Stdin = bytes.NewReader(stdin)
			}
			start := time.Now()
			out, err := c.CombinedOutput()
			if c.ProcessState != nil {
				lastCPU = ms(c.ProcessState.UserTime() + c.ProcessState.SystemTime())
			}
			if err != nil && !(name == "git" && len(out) == 0) { // git grep exits 1 when nothing matches
				return 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
			}
			return ms(time.Since(start)), nil
		}
		reindexRuns := 3
		if n >= 50000 {
			reindexRuns = 1
		}
		for i := 0; i < reindexRuns; i++ {
			d, err := timed(".", nil, bin, "--home", home, "reindex")
			if err != nil {
				return err
			}
			res.reindex = append(res.reindex, d)
		}
		prompt := "the webhook retry deadlock in the postgres migration again"
		words := []string{"webhook", "retry", "deadlock", "postgres", "migration"}
		grepArgs := []string{"-C", home, "grep", "-l", "-i", "-F"}
		for _, w := range words {
			grepArgs = append(grepArgs, "-e", w)
		}
		grepArgs = append(grepArgs, "--", "learnings")
		for i := 0; i < runs+3; i++ {
			session := fmt.Sprintf("bench-%d-%d", n, i)
			// as a host sends it: the new session's transcript, not yet written, for which the
			// session start starts the history importer (history/watch)
			transcript := func(s string) string { return filepath.Join(tmp, "transcripts", s+".jsonl") }
			startOf := func(s, cwd string) []byte {
				p, _ := json.Marshal(map[string]any{"session_id": s, "hook_event_name": "SessionStart", "source": "startup", "cwd": cwd, "transcript_path": transcript(s)})
				return p
			}
			ask, _ := json.Marshal(map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit", "prompt": prompt, "cwd": proj})
			hook := []string{"--home", home, "hook", "claude"}
			var row, cpu [8]float64
			steps := []struct {
				stdin []byte
				name  string
				args  []string
				// resident: a resident engine answers the step (hooks/resident); else none
				// stays when it begins (it starts one)
				resident bool
			}{
				{nil, bin, []string{"version"}, false},
				{startOf(session, proj), bin, hook, false}, // the first session start of the day
				{ask, bin, hook, true},                     // every prompt after it
				{nil, bin, []string{"--home", home, "search", "webhook|retry deadlock postgres"}, false},
				{nil, "git", grepArgs, false},
				{startOf(session+"-big", big), bin, hook, true},    // a session start in the large project
				{startOf(session+"-again", proj), bin, hook, true}, // a second session start
				{ask, bin, hook, false},                            // a prompt after recall.resident idle
			}
			for k, st := range steps {
				if st.resident {
					if err := awaitResident(home); err != nil {
						return err
					}
				} else if st.name == bin && len(st.args) > 2 && st.args[2] == "hook" {
					testenv.StopResident(home)
				}
				time.Sleep(idle) // each after the same idle, start-up included
				engineCPU := residentCPU(home)
				d, err := timed(proj, st.stdin, st.name, st.args...)
				if err != nil {
					return err
				}
				// a resident engine's share of the hook is CPU time too
				row[k], cpu[k] = d, lastCPU+residentCPU(home)-engineCPU
				settle(home)               // a hook may start a pool refill: let it finish before the next step
				testenv.StopWatchers(home) // and a session start its history importer
			}
			if i >= 3 {
				res.startup = append(res.startup, row[0])
				res.cpuStartup = append(res.cpuStartup, cpu[0])
				res.coldStartHook = append(res.coldStartHook, row[1])
				res.promptHook = append(res.promptHook, row[2])
				res.cpuPromptHook = append(res.cpuPromptHook, cpu[2])
				res.search = append(res.search, row[3])
				res.grep = append(res.grep, row[4])
				res.bigStartHook = append(res.bigStartHook, row[5])
				res.startHook = append(res.startHook, row[6])
				res.cpuStartHook = append(res.cpuStartHook, cpu[6])
				res.coldPromptHook = append(res.coldPromptHook, row[7])
			}
		}
		testenv.StopResident(home)
		// catch-up: 100 learnings arrive through the git CLI, then one search
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		for round := 0; round < 3; round++ {
			for i := 0; i < 100; i++ {
				path, data := fixtures.SynthLearning(rng, 1_000_000+round*100+i, fixtures.SynthProject(i%20), time.Now())
				os.MkdirAll(filepath.Dir(filepath.Join(home, path)), 0o755)
				if err := os.WriteFile(filepath.Join(home, path), data, 0o644); err != nil {
					return err
				}
			}
			for _, args := range [][]string{{"-C", home, "add", "-A", "learnings"}, {"-C", home, "commit", "-qm", "sync: 100 learnings"}} {
				if out, err := command(env, ".", "git", args...).CombinedOutput(); err != nil {
					return fmt.Errorf("git %v: %v: %s", args, err, out)
				}
			}
			d, err := timed(proj, nil, bin, "--home", home, "search", "webhook")
			if err != nil {
				return err
			}
			res.catchUp = append(res.catchUp, d)
		}
		results = append(results, res)
		os.RemoveAll(home)
	}
	fmt.Printf("recall and search, whole process (new process per call, as the hosts run hooks): median (p90) of %d runs, each command after %v idle\n", runs, idle)
	fmt.Printf("baselines in the same run: reflect's start-up (`reflect version`) and `git grep -l` of the same words\n")
	fmt.Printf("the hooks are answered by the memory's resident reflect-engine (hooks/resident), as every recall hook is after the day's first\n\n")
	fmt.Printf("| learnings | start-up | SessionStart hook | UserPromptSubmit hook | hooks ÷ start-up | reflect search | git grep | search ÷ git grep | prompt hook ÷ @%d |\n", results[0].n)
	fmt.Printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	base := pct(results[0].promptHook, 50)
	for _, r := range results {
		f := func(xs []float64) string { return fmt.Sprintf("%.1f ms (%.1f)", pct(xs, 50), pct(xs, 90)) }
		up := pct(r.startup, 50)
		fmt.Printf("| %d | %s | %s | %s | %.2f, %.2f | %s | %s | %.2f | %.2f |\n", r.n, f(r.startup), f(r.startHook), f(r.promptHook),
			pct(r.startHook, 50)/up, pct(r.promptHook, 50)/up, f(r.search), f(r.grep), pct(r.search, 50)/pct(r.grep, 50), pct(r.promptHook, 50)/base)
	}
	fmt.Printf("\nThe same hooks when no reflect-engine stays (the day's first, or after recall.resident without one): each starts reflect-engine, median (p90):\n\n| learnings | start-up | SessionStart hook | UserPromptSubmit hook | hooks ÷ start-up |\n|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		f := func(xs []float64) string { return fmt.Sprintf("%.1f ms (%.1f)", pct(xs, 50), pct(xs, 90)) }
		up := pct(r.startup, 50)
		fmt.Printf("| %d | %s | %s | %s | %.2f, %.2f |\n", r.n, f(r.startup), f(r.coldStartHook), f(r.coldPromptHook),
			pct(r.coldStartHook, 50)/up, pct(r.coldPromptHook, 50)/up)
	}
	fmt.Printf("\nSessionStart in a large project (%s more files, ~%s objects in one pack) beside the small one, median (p90):\n\n| learnings | small project | large project | large ÷ small |\n|---:|---:|---:|---:|\n", thousands(bigFiles), thousands(2*bigFiles))
	for _, r := range results {
		f := func(xs []float64) string { return fmt.Sprintf("%.1f ms (%.1f)", pct(xs, 50), pct(xs, 90)) }
		fmt.Printf("| %d | %s | %s | %.2f |\n", r.n, f(r.startHook), f(r.bigStartHook), pct(r.bigStartHook, 50)/pct(r.startHook, 50))
	}
	fmt.Printf("\nCPU time (user + system) of the same runs, the resident engine's share of a hook included, median (p90):\n\n| learnings | start-up | SessionStart hook | UserPromptSubmit hook | hooks ÷ start-up |\n|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		f := func(xs []float64) string { return fmt.Sprintf("%.1f ms (%.1f)", pct(xs, 50), pct(xs, 90)) }
		up := pct(r.cpuStartup, 50)
		fmt.Printf("| %d | %s | %s | %s | %.2f, %.2f |\n", r.n, f(r.cpuStartup), f(r.cpuStartHook), f(r.cpuPromptHook), pct(r.cpuStartHook, 50)/up, pct(r.cpuPromptHook, 50)/up)
	}
	fmt.Printf("\n| learnings | reflect reindex (median of runs) | search that first catches up 100 new learnings (median of 3) | ÷ steady search |\n|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Printf("| %d | %.0f ms (%d runs) | %.1f ms | %.1f× |\n", r.n, pct(r.reindex, 50), len(r.reindex), pct(r.catchUp, 50), pct(r.catchUp, 50)/pct(r.search, 50))
	}
	return nil
}

// project makes the agent's repository of the recall bench: its remote is synthetic project
// 3, an import of 400 files in 20 directories, then five commits on the branch touching a
// few each (SessionStart reads their subjects and the files they touched). With bulk, the import is followed
// by that many more files in commits of 100 (git fast-import, one pack): a large project,
// whose pack index go-git's storage would load whole.
func project(env []string, proj string, bulk int) error {
	git := func(stdin io.Reader, args ...string) error {
		c := command(env, ".", "git", append([]string{"-C", proj}, args...)...)
		c.Stdin = stdin
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	write := func(path, text string) error {
		p := filepath.Join(proj, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), 0o644)
	}
	const branch = "fix/webhook-retry-deadlock"
	if out, err := command(env, ".", "git", "init", "-q", "-b", branch, proj).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	if err := git(nil, "remote", "add", "origin", "https://"+fixtures.SynthProject(3)+".git"); err != nil {
		return err
	}
	for i := 0; i < 400; i++ {
		if err := write(fmt.Sprintf("internal/pkg%02d/file%02d.go", i%20, i/20), fmt.Sprintf("package pkg%02d // %d\n", i%20, i)); err != nil {
			return err
		}
	}
	if err := git(nil, "add", "-A"); err != nil {
		return err
	}
	if err := git(nil, "commit", "-q", "-m", "import"); err != nil {
		return err
	}
	if bulk > 0 {
		var stream bytes.Buffer
		for c := 0; c < bulk/100; c++ {
			msg := fmt.Sprintf("vendor: batch %d", c)
			fmt.Fprintf(&stream, "commit refs/heads/%s\ncommitter bench <bench@example.org> %d +0000\ndata %d\n%s\n", branch, 1_700_000_000+c, len(msg), msg)
			if c == 0 {
				fmt.Fprintf(&stream, "from refs/heads/%s^0\n", branch)
			}
			for f := 0; f < 100; f++ {
				body := fmt.Sprintf("vendored file %d of batch %d\n", f, c)
				fmt.Fprintf(&stream, "M 100644 inline vendor/d%03d/f%05d.txt\ndata %d\n%s\n", c%500, c*100+f, len(body), body)
			}
		}
		if err := git(&stream, "fast-import", "--quiet"); err != nil {
			return err
		}
		if err := git(nil, "read-tree", "HEAD"); err != nil {
			return err
		}
	}
	for i, subject := range []string{"webhooks: log the delivery id", "db: add the migration lock table",
		"webhooks: retry with backoff", "ci: run the postgres tests", "postgres: retry the migration lock on deadlock"} {
		var paths []string
		for k := 0; k < 3; k++ {
			path := fmt.Sprintf("internal/pkg%02d/file%02d.go", (i*3+k)%20, k)
			if err := write(path, fmt.Sprintf("package pkg%02d // changed by %d\n", (i*3+k)%20, i)); err != nil {
				return err
			}
			paths = append(paths, path)
		}
		if err := git(nil, append([]string{"add", "--"}, paths...)...); err != nil {
			return err
		}
		if err := git(nil, "commit", "-q", "-m", subject); err != nil {
			return err
		}
	}
	return nil
}

// awaitResident waits (at most 10 s) until the memory at home has a resident engine that
// listens: the hook before started it, detached.
func awaitResident(home string) error {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		if resident.Listening(filepath.Join(home, ".git", "reflect")) {
			return nil
		}
	}
	return fmt.Errorf("no resident reflect-engine listens for %s", home)
}

// residentCPU is the CPU time the memory's resident engines' threads have spent, in
// milliseconds (Linux's /proc/PID/task/TID/schedstat: nanoseconds on a CPU; elsewhere 0; the
// process's own schedstat counts its first thread alone).
func residentCPU(home string) float64 {
	var ns float64
	for _, pid := range testenv.Processes(home, testenv.ResidentArg) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "schedstat"))
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if err != nil {
				continue
			}
			if f := strings.Fields(string(b)); len(f) > 0 {
				v, _ := strconv.ParseFloat(f[0], 64)
				ns += v
			}
		}
	}
	return ns / 1e6
}
