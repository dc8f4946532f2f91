package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	// 32 writers queue on one lock: on a slow disk the unluckiest waits longer than the
	// default 10 s and would give up with exit 5 (busy), which is not what this counts
	toml := filepath.Join(home, "reflect.toml")
	data, err := os.ReadFile(toml)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(toml, []byte(strings.Replace(string(data), `lock_timeout = "10s"`, `lock_timeout = "5m"`, 1)), 0o644)
	run(t, environ, home, "git", "commit", "-qam", "settings: a longer lock wait for the stress test")
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
	if n != procs*each+2 { // + the init commit and the settings
		t.Fatalf("%d commits reachable from HEAD, want %d", n, procs*each+1)
	}
	tree := strings.Fields(run(t, environ, home, "git", "ls-tree", "-r", "--name-only", "HEAD", "learnings"))
	if len(tree) != procs*each {
		t.Fatalf("%d learnings in HEAD, want %d", len(tree), procs*each)
	}
	assertHealthy(t, environ, home)
}
