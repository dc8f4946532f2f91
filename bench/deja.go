package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runDeja measures reflect beside deja-vu (github.com/vshulcz/deja-vu, the fastest
// session-history peer, a Go binary built from a checkout of it) on the same generated
// corpus in the same run: the first import of every session, two searches and the process
// start-up. Each pair runs interleaved (reflect, then deja-vu, then reflect…) so that load
// from other processes falls on both alike; the table gives medians and reflect ÷ deja-vu.
// deja-vu keeps its index under $HOME/.cache/deja, which is the run's temporary HOME.
func runDeja(deja string, sessions, perSession, importRuns, runs int) error {
	if _, err := os.Stat(deja); err != nil {
		return fmt.Errorf("-deja %s: %w (build it from a checkout of github.com/vshulcz/deja-vu with `go build -o /tmp/deja ./cmd/deja`)", deja, err)
	}
	deja, _ = filepath.Abs(deja)
	r, err := newHistoryRun("deja-", sessions*perSession, perSession)
	if r != nil {
		defer os.RemoveAll(r.tmp)
	}
	if err != nil {
		return err
	}
	tmp, bin, env, home, projects, st := r.tmp, r.bin, r.env, r.home, r.projects, r.st
	const needle = historyNeedle
	// timed runs one process and returns its wall time and peak resident memory
	timed := func(dir, name string, args ...string) (float64, int64, string, error) {
		c := command(env, dir, name, args...)
		start := time.Now()
		out, err := c.CombinedOutput()
		d := ms(time.Since(start))
		if err != nil {
			return 0, 0, "", fmt.Errorf("%s %v: %v: %s", filepath.Base(name), args, err, out)
		}
		return d, maxRSS(c.ProcessState), string(out), nil
	}
	archive, dejaCache := filepath.Join(home, ".git", "reflect", "history"), filepath.Join(tmp, ".cache", "deja")

	// the first import of every session: each run starts from nothing, both sides
	var ri, di []float64
	var rpeak, dpeak int64
	for i := 0; i < importRuns; i++ {
		fmt.Fprintf(os.Stderr, "import %d/%d...\n", i+1, importRuns)
		os.RemoveAll(archive)
		d, rss, out, err := timed(projects[0], bin, "--home", home, "history", "import", "--all-history")
		if err != nil {
			return err
		}
		if !strings.Contains(out, fmt.Sprintf(" %s new messages ", thousands(st.Messages))) {
			return fmt.Errorf("the import did not read the %d messages written:\n%s", st.Messages, out)
		}
		ri, rpeak = append(ri, d), max(rpeak, rss)
		os.RemoveAll(dejaCache)
		d, rss, out, err = timed(projects[0], deja, "index")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "sessions") {
			return fmt.Errorf("deja index said:\n%s", out)
		}
		di, dpeak = append(di, d), max(dpeak, rss)
	}

	type pair struct {
		name          string
		reflect, deja []string
		r, d          []float64
	}
	pairs := []*pair{
		{name: "history search, rare needle", reflect: []string{"history", "search", "--global", needle}, deja: []string{"search", needle}},
		{name: "history search, two common words", reflect: []string{"history", "search", "--global", "cache retry"}, deja: []string{"search", "cache retry"}},
		{name: "process start-up (`version`)", reflect: []string{"version"}, deja: []string{"version"}},
	}
	for i := 0; i < 3*runs+2; i++ {
		for _, p := range pairs {
			if p.reflect[0] == "history" && i >= runs+2 {
				continue // the searches: median of runs; the start-up, cheap and noisier, of 3×runs
			}
			d1, _, out, err := timed(projects[0], bin, append([]string{"--home", home}, p.reflect...)...)
			if err != nil {
				return err
			}
			d2, _, out2, err := timed(projects[0], deja, p.deja...)
			if err != nil {
				return err
			}
			if i == 0 && p.reflect[0] == "history" && (strings.HasPrefix(out, "no session") || !strings.Contains(out2, "matches")) {
				return fmt.Errorf("%s found nothing:\nreflect: %s\ndeja-vu: %s", p.name, out, out2)
			}
			if i >= 2 { // two warm-ups: the page cache holds both indexes
				p.r, p.d = append(p.r, d1), append(p.d, d2)
			}
		}
	}
	rev, _ := exec.Command(deja, "version").Output()
	fmt.Printf("reflect beside deja-vu (%s, %s) on %s sessions, %s messages (both hosts, %.0f MB of transcripts), whole process, interleaved in one run\n\n",
		deja, strings.TrimSpace(string(rev)), thousands(st.Sessions), thousands(st.Messages), float64(st.Bytes)/(1<<20))
	fmt.Printf("| | reflect | deja-vu | reflect ÷ deja-vu |\n|---|---:|---:|---:|\n")
	fmt.Printf("| history import, all new (median of %d; peak memory) | %.2f s (%.0f MB) | %.2f s (%.0f MB) | %.2f |\n", importRuns,
		pct(ri, 50)/1000, float64(rpeak)/(1<<20), pct(di, 50)/1000, float64(dpeak)/(1<<20), pct(ri, 50)/pct(di, 50))
	for _, p := range pairs {
		fmt.Printf("| %s (median of %d) | %.1f ms | %.1f ms | %.2f |\n", p.name, len(p.r), pct(p.r, 50), pct(p.d, 50), pct(p.r, 50)/pct(p.d, 50))
	}
	fmt.Printf("\nreflect searches with --global (every project, as deja-vu does); import: `reflect history import --all-history` against `deja index`, each from an empty archive\n")
	return nil
}
