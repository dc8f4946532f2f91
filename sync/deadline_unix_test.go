//go:build unix

package sync

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

// TestStalledLocalRemote: a path remote whose pack never comes (git-pack-objects hangs) is
// given up at the idle bound, and git-upload-pack and everything it started are killed.
func TestStalledLocalRemote(t *testing.T) {
	setHome(t)
	remote := bare(t)
	seed := laptops(t, remote, 1)[0]
	seed.add("Something to fetch")
	seed.sync()

	// git runs uploadpack.packObjectsHook instead of git-pack-objects; only the user's or
	// the system's config may set it
	pidFile := filepath.Join(t.TempDir(), "hook.pid")
	hook := filepath.Join(t.TempDir(), "hang")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitconfig := fmt.Sprintf("[uploadpack]\n\tpackObjectsHook = %s\n", hook)
	if err := os.WriteFile(filepath.Join(os.Getenv("HOME"), ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	l := stranded(t, remote)
	start := time.Now()
	_, err := Sync(context.Background(), l.repo(), Options{Timeouts: Timeouts{Idle: time.Second}})
	took := time.Since(start)
	t.Logf("%v after %v", err, took.Round(time.Millisecond))
	if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "nothing received or sent for 1s") {
		t.Errorf("want an idle time-out, got %v", err)
	}
	if took > 4*time.Second {
		t.Errorf("gave up after %v; the bound is 1s", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !gone(pid, time.Second) {
		t.Errorf("git-pack-objects' stand-in (pid %d) outlived the sync", pid)
	}
	l.healthy()
}

// gone waits up to d for process pid to end. A zombie counts as ended: it runs nothing,
// and where the container's first process does not reap orphans it stays.
func gone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if _, after, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(after, "Z") {
				return true
			}
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// fullBacklog is a listener that never accepts and whose queue is full: the kernel drops
// further SYNs, so a connect waits as it would for a host that is down.
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip("socket:", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	c, err := net.DialTimeout("tcp", addr, time.Second) // takes the one place in the queue
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
		c.Close()
		t.Skip("this kernel accepts past a full backlog")
	}
	return addr
}

// TestDialBound: a remote whose host does not answer the connect is given up at the Dial
// bound, for each network transport.
func TestDialBound(t *testing.T) {
	setHome(t)
	t.Setenv("SSH_AUTH_SOCK", sshAgent(t))
	t.Setenv("SSH_KNOWN_HOSTS", knownHosts(t, "[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"))
	addr := fullBacklog(t)
	for _, scheme := range []string{"http://", "git://", "ssh://git@"} {
		t.Run(scheme, func(t *testing.T) {
			l := stranded(t, scheme+addr+"/mem.git")
			start := time.Now()
			_, err := Sync(context.Background(), l.repo(), Options{Timeouts: Timeouts{Dial: time.Second, Handshake: 5 * time.Second}})
			took := time.Since(start)
			t.Logf("%v after %v", err, took.Round(time.Millisecond))
			if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "no connection to "+addr+" within 1s") {
				t.Errorf("want a dial time-out, got %v", err)
			}
			if took < 900*time.Millisecond || took > 4*time.Second {
				t.Errorf("gave up after %v; the bound is 1s", took)
			}
		})
	}
}

// TestFullDisk: a fetch from a path remote onto a full disk fails at once. git-upload-pack,
// blocked on a pipe nobody reads any more, is killed, not waited for (go-git's own file
// transport waited: a tester killed it at 644 s).
func TestFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mounts a tmpfs")
	}
	setHome(t)
	remote := bare(t)
	seed := laptops(t, remote, 1)[0]
	big := make([]byte, 8<<20) // random: the pack cannot be smaller
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(seed.dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, seed.dir, "add", "big.bin")
	git(t, seed.dir, "commit", "-qm", "8 MB that will not fit")
	seed.sync()

	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a 2 MB tmpfs here (%v): the test needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	l := &laptop{t: t, name: "full", dir: filepath.Join(disk, "mem")}
	if _, _, err := gitstore.Init(context.Background(), l.dir, gitstore.InitOptions{Remote: remote}); err != nil {
		t.Fatal(err)
	}
	l.add("Kept although the disk is full")
	before := git(t, l.dir, "rev-parse", "HEAD")
	start := time.Now()
	_, err := Sync(context.Background(), l.repo(), Options{})
	took := time.Since(start)
	t.Logf("%v after %v", err, took.Round(time.Millisecond))
	if !errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrNetwork) {
		t.Errorf("want the full disk, got %v", err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	if pids := running(remote); len(pids) > 0 {
		t.Errorf("git-upload-pack outlived the sync: %v", pids)
	}
	if git(t, l.dir, "rev-parse", "HEAD") != before {
		t.Error("a failed sync moved HEAD")
	}
	git(t, l.dir, "fsck", "--strict", "--no-progress")
}

// running lists the live processes with arg on their command line (a zombie has none).
func running(arg string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), arg) {
			pids = append(pids, strings.TrimSuffix(strings.TrimPrefix(p, "/proc/"), "/cmdline")+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return pids
}
