//go:build !windows

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartDetached: the process runs with its output in the file given, in a session of its
// own (not the caller's), at nice 10, holding none of the caller's descriptors but its streams
// (a pipe this process inherited without close-on-exec stands for a host's).
func TestStartDetached(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if _, serr := os.Stat("/proc/self/stat"); err != nil || serr != nil {
		t.Skip("needs sh and /proc")
	}
	out := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	// the child reports its session id and its niceness (field 19 of /proc/self/stat) once
	// its parent (startDetached's caller) has set the niceness
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // no close-on-exec, as an inherited descriptor
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	script := `sleep 0.2; set -- $(cat /proc/$$/stat); echo "$6 ${19}"; echo fds $(ls /proc/$$/fd); echo done`
	pid, err := startDetached(sh, []string{"-c", script}, f, 10)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(out)
		if got = string(b); strings.Contains(got, "done") {
			break
		}
	}
	fields := strings.Fields(got)
	if len(fields) < 3 {
		t.Fatalf("child %d wrote %q", pid, got)
	}
	if fields[0] != strconv.Itoa(pid) {
		t.Errorf("session %s, want its own (%d)", fields[0], pid)
	}
	if fields[1] != "10" {
		t.Errorf("niceness %s, want 10", fields[1])
	}
	if runtime.GOOS == "linux" {
		_, fds, _ := strings.Cut(got, "fds ")
		fds, _, _ = strings.Cut(fds, "\n")
		for _, fd := range strings.Fields(fds) {
			if fd == strconv.Itoa(p[0]) || fd == strconv.Itoa(p[1]) {
				t.Errorf("the child holds the caller's descriptor %s (its descriptors: %s)", fd, fds)
			}
		}
	}
}
