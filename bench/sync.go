package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// runSync measures reflect sync between two clones that diverged by n learnings each (one
// commit per learning, on top of a shared history), beside the git CLI doing the same job
// on copies of the same repositories: git push from the first, git pull --no-rebase and
// git push from the second.
func runSync(n, runs int) error {
	tmp, bin, env, err := setup("sync-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	sh := func(dir, name string, args ...string) error {
		if out, err := command(env, dir, name, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %v: %v: %s", name, args, err, out)
		}
		return nil
	}
	// the shared start: a memory of 1,000 learnings on the remote, cloned twice
	seed := filepath.Join(tmp, "seed")
	remote := filepath.Join(tmp, "seed-remote.git")
	if err := sh(".", "git", "init", "-q", "--bare", "-b", "main", remote); err != nil {
		return err
	}
	if err := sh(".", bin, "--home", seed, "init", "--remote", remote); err != nil {
		return err
	}
	ctx := context.Background()
	fmt.Fprintf(os.Stderr, "building the shared memory and two clones diverged by %d learnings each...\n", n)
	if err := fixtures.BuildRepoSeed(ctx, seed, 1000, 100, 20, 1); err != nil {
		return err
	}
	if err := sh(".", bin, "--home", seed, "sync"); err != nil {
		return err
	}
	a0, b0 := filepath.Join(tmp, "a0"), filepath.Join(tmp, "b0")
	for i, dir := range []string{a0, b0} {
		if err := sh(".", bin, "--home", dir, "init", "--from", remote); err != nil {
			return err
		}
		if err := fixtures.BuildRepoSeed(ctx, dir, n, n, 20, uint64(100+i)); err != nil {
			return err
		}
	}
	settle(a0)
	settle(b0)
	var push, merge, gitPush, gitMerge []float64
	for run := 0; run < runs; run++ {
		dir := filepath.Join(tmp, fmt.Sprint("run", run))
		os.MkdirAll(dir, 0o755)
		copyAll := func(names ...string) error {
			for _, nm := range names {
				src := map[string]string{"remote.git": remote, "a": a0, "b": b0}[nm]
				if err := sh(".", "cp", "-a", src, filepath.Join(dir, nm)); err != nil {
					return err
				}
			}
			r := filepath.Join(dir, "remote.git")
			for _, c := range []string{"a", "b"} {
				if err := sh(filepath.Join(dir, c), "git", "remote", "set-url", "origin", r); err != nil {
					return err
				}
			}
			return nil
		}
		if err := copyAll("remote.git", "a", "b"); err != nil {
			return err
		}
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		t0 := time.Now()
		if err := sh(".", bin, "--home", a, "sync"); err != nil {
			return err
		}
		push = append(push, ms(time.Since(t0)))
		t0 = time.Now()
		if err := sh(".", bin, "--home", b, "sync"); err != nil {
			return err
		}
		merge = append(merge, ms(time.Since(t0)))
		settle(a)
		settle(b)
		// the git CLI on fresh copies of the same repositories
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		if err := copyAll("remote.git", "a", "b"); err != nil {
			return err
		}
		t0 = time.Now()
		if err := sh(a, "git", "push", "-q", "origin", "main"); err != nil {
			return err
		}
		gitPush = append(gitPush, ms(time.Since(t0)))
		t0 = time.Now()
		if err := sh(b, "git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "pull", "-q", "--no-rebase", "--no-edit", "origin", "main"); err != nil {
			return err
		}
		if err := sh(b, "git", "push", "-q", "origin", "main"); err != nil {
			return err
		}
		gitMerge = append(gitMerge, ms(time.Since(t0)))
		os.RemoveAll(dir)
	}
	fmt.Printf("reflect sync, whole process: two clones of a 1,000-learning memory that diverged by %d learnings each (one commit each), median (p90) of %d runs\n\n", n, runs)
	fmt.Printf("| step | reflect sync | git CLI | git ÷ reflect |\n|---|---:|---:|---:|\n")
	fmt.Printf("| first clone pushes its %d | %.0f ms (%.0f) | `git push`: %.0f ms (%.0f) | %.2f× |\n", n, pct(push, 50), pct(push, 90), pct(gitPush, 50), pct(gitPush, 90), pct(gitPush, 50)/pct(push, 50))
	fmt.Printf("| second clone fetches, merges, pushes | **%.0f ms** (%.0f) | `git pull --no-rebase` + `git push`: %.0f ms (%.0f) | %.2f× |\n", pct(merge, 50), pct(merge, 90), pct(gitMerge, 50), pct(gitMerge, 90), pct(gitMerge, 50)/pct(merge, 50))
	return nil
}
