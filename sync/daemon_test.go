package sync

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// gitDaemon serves the bare repository dir with git's own daemon (git://, push enabled) on
// loopback and returns its URL.
func gitDaemon(t *testing.T, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", addr.Port),
		"--export-all", "--enable=receive-pack", "--informative-errors", "--base-path="+filepath.Dir(dir), filepath.Dir(dir))
	if err := cmd.Start(); err != nil {
		t.Skip("git daemon:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr.String()); err == nil {
			c.Close()
			break
		}
		if time.Now().After(end) {
			t.Fatal("git daemon does not listen")
		}
	}
	return fmt.Sprintf("git://%s/%s", addr, filepath.Base(dir))
}

// TestGitDaemonRemote syncs two clones through git's daemon: the git:// session reflect
// speaks itself.
func TestGitDaemonRemote(t *testing.T) {
	setHome(t)
	repo := bare(t)
	ls := laptops(t, gitDaemon(t, repo), 2)
	a, b := ls[0], ls[1]
	a.add("Pushed over git://")
	if res := a.sync(); res.Action != "push" || res.Out != 1 {
		t.Errorf("a: %+v", res)
	}
	b.add("Merged over git://")
	if res := b.sync(); res.Action != "merge" || !res.Pushed {
		t.Errorf("b: %+v", res)
	}
	if res := a.sync(); res.Action != "fast-forward" {
		t.Errorf("a again: %+v", res)
	}
	converged(t, repo, ls)
}
