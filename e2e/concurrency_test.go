package e2e

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentAddsLoseNothing: 32 processes × 20 `reflect add` at once → 640 learnings,
// 640 commits reachable from HEAD, fsck and status clean.
func TestConcurrentAddsLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 640 processes")
	}
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	const procs, each = 32, 20
	var wg sync.WaitGroup
	errs := make(chan error, procs*each)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				cmd := exec.Command(bin, "--home", home, "add", "--project", fmt.Sprintf("github.com/acme/p%d", p%5),
					"--title", fmt.Sprintf("learning %d from writer %d", i, p), "--body", "body", "--tag", "load")
				cmd.Env = environ
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("writer %d add %d: %v: %s", p, i, err, out)
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	files := strings.Fields(run(t, environ, home, "git", "ls-files", "learnings"))
	if len(files) != procs*each {
		t.Fatalf("%d learning files in the index, want %d", len(files), procs*each)
	}
	n, _ := strconv.Atoi(run(t, environ, home, "git", "rev-list", "--count", "HEAD"))
	if n != procs*each+1 { // + the init commit
		t.Fatalf("%d commits reachable from HEAD, want %d", n, procs*each+1)
	}
	tree := strings.Fields(run(t, environ, home, "git", "ls-tree", "-r", "--name-only", "HEAD", "learnings"))
	if len(tree) != procs*each {
		t.Fatalf("%d learnings in HEAD, want %d", len(tree), procs*each)
	}
	assertHealthy(t, environ, home)
}
