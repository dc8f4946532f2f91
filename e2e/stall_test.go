package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"
)

// silentServer accepts connections on loopback and never writes a byte. Everything is
// closed when the test ends.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu gosync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	return ln.Addr().String()
}

// sshAgent starts the system's ssh-agent, with no key, on a socket of the test's; a sync
// needs one before it dials an ssh remote.
func sshAgent(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("ssh-agent"); err != nil {
		t.Skip("no ssh-agent:", err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		t.Skip("ssh-agent:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			return sock
		}
	}
	t.Fatal("ssh-agent made no socket")
	return ""
}

// timed runs the binary and returns its exit code, output and run time.
func timed(t *testing.T, environ []string, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(reflectBin(t), args...)
	cmd.Env = environ
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out), took
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out), took
	}
	t.Fatalf("reflect %v: %v", args, err)
	return 0, "", 0
}

// TestSyncStalledRemote: against a listener that accepts and never answers, `reflect sync`
// gives up with exit 7 at its default handshake bound (15 s) over http, git:// and ssh, and
// `reflect doctor`'s remote check at its 5 s.
func TestSyncStalledRemote(t *testing.T) {
	addr := silentServer(t)
	agent := sshAgent(t)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(kh, []byte("[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o600)
	for _, scheme := range []string{"http://", "git://", "ssh://git@"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			environ := append(env(t), "SSH_AUTH_SOCK="+agent, "SSH_KNOWN_HOSTS="+kh)
			home := filepath.Join(t.TempDir(), "mem")
			url := scheme + addr + "/mem.git"
			run(t, environ, ".", reflectBin(t), "--home", home, "init", "--remote", url)
			t.Cleanup(func() { waitBackground(home) })
			before := run(t, environ, home, "git", "rev-parse", "HEAD")

			code, out, took := timed(t, environ, "--home", home, "sync")
			t.Logf("sync: exit %d after %v: %s", code, took.Round(time.Millisecond), strings.TrimSpace(out))
			if code != 7 || !strings.Contains(out, "remote origin ("+url+") timed out: no answer within 15s of connecting") {
				t.Errorf("want exit 7 and the time-out, got %d: %s", code, out)
			}
			if took < 14*time.Second || took > 20*time.Second {
				t.Errorf("sync gave up after %v; the bound is 15s", took)
			}
			if run(t, environ, home, "git", "rev-parse", "HEAD") != before {
				t.Error("a failed sync moved HEAD")
			}
			assertHealthy(t, environ, home)

			code, out, took = timed(t, environ, "--home", home, "doctor", "--format", "json")
			var rep struct {
				Findings []struct{ Check, Severity, Message string }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("doctor: exit %d: %v\n%s", code, err, out)
			}
			for _, f := range rep.Findings {
				if f.Check == "remote" {
					t.Logf("doctor: %s after %v: %s", f.Severity, took.Round(time.Millisecond), f.Message)
					if f.Severity != "warn" || !strings.Contains(f.Message, "no answer in time") {
						t.Errorf("doctor's remote finding: %s %s", f.Severity, f.Message)
					}
				}
			}
			if took > 8*time.Second {
				t.Errorf("doctor took %v; its remote check is bounded at 5s", took)
			}
		})
	}
}

// TestBackgroundSyncStalls is the tester's case: SessionStart starts a sync in the
// background against a remote that never answers, and the user runs `reflect sync` right
// after. The background sync gives up at its bound and frees the lock, so the manual one
// waits for it and then ends with its own time-out (exit 7), not "busy" (exit 5).
func TestBackgroundSyncStalls(t *testing.T) {
	environ := append(env(t), "REFLECT_SYNC_TIMEOUTS=handshake=2s")
	home := filepath.Join(t.TempDir(), "mem")
	run(t, environ, ".", reflectBin(t), "--home", home, "init", "--remote", "git://"+silentServer(t)+"/mem.git")
	t.Cleanup(func() { waitBackground(home) })
	os.WriteFile(filepath.Join(home, "reflect.toml"), []byte("[sync]\nauto = true\n"), 0o644)
	run(t, environ, home, "git", "commit", "-qam", "auto sync on")

	out, _ := runHook(t, environ, home, "claude", map[string]any{"session_id": "s-stall", "hook_event_name": "SessionStart", "source": "startup", "cwd": t.TempDir()})
	if msg := checkHookOutput([]byte(out)); msg != "" {
		t.Fatal(msg)
	}
	// the background sync takes the lock at once; wait until it holds it
	time.Sleep(300 * time.Millisecond)
	code, text, took := timed(t, environ, "--home", home, "sync")
	t.Logf("manual sync: exit %d after %v: %s", code, took.Round(time.Millisecond), strings.TrimSpace(text))
	if code != 7 || !strings.Contains(text, "timed out") {
		t.Errorf("want exit 7 and a time-out, got %d: %s", code, text)
	}
	if took > 8*time.Second {
		t.Errorf("the manual sync took %v: two 2s bounds and a wait", took)
	}
	waitBackground(home)
	assertHealthy(t, environ, home)
}

// TestJoinRemoteWithoutMain: `reflect init --from` a remote whose only branch is master is
// refused with exit 7, names the branch, writes nothing here and pushes nothing there.
func TestJoinRemoteWithoutMain(t *testing.T) {
	environ := env(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	run(t, environ, ".", "git", "init", "-q", "--bare", "-b", "master", remote)
	work := filepath.Join(t.TempDir(), "work")
	run(t, environ, ".", "git", "clone", "-q", remote, work)
	os.WriteFile(filepath.Join(work, "README.md"), []byte("a project\n"), 0o644)
	run(t, environ, work, "git", "add", "README.md")
	run(t, environ, work, "git", "commit", "-qm", "start")
	run(t, environ, work, "git", "push", "-q", "origin", "master")
	refs := run(t, environ, remote, "git", "for-each-ref")

	home := filepath.Join(t.TempDir(), "mem")
	code, out, _ := timed(t, environ, "--home", home, "init", "--from", remote)
	t.Logf("exit %d: %s", code, strings.TrimSpace(out))
	if code != 7 || !strings.Contains(out, "has branches master but no main") {
		t.Errorf("want exit 7 naming master, got %d: %s", code, out)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Error("the refused join left a directory behind")
	}
	if got := run(t, environ, remote, "git", "for-each-ref"); got != refs {
		t.Errorf("the remote's refs changed:\n%s", got)
	}
}
