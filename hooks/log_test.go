package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/gitstore"
)

func TestLogRotates(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	r := newMemory(t)
	dir := filepath.Join(r.StateDir(), "log")
	path := filepath.Join(dir, "reflect.log")
	for round := 1; round <= logKeep+2; round++ {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(path, []byte(strings.Repeat("x", logMax+1)), 0o644)
		OpenLog(r).Info("after rotation", "round", round)
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), "after rotation") || len(data) > 1024 {
			t.Fatalf("round %d: the log was not rotated (%d bytes)", round, len(data))
		}
	}
	old, _ := filepath.Glob(path + ".*")
	if len(old) != logKeep {
		t.Fatalf("%d rotated files kept, want %d: %v", len(old), logKeep, old)
	}
}

// TestLogStaying: a staying process's log follows a rotation another process made, line by
// line (OpenLog's writes keep the file they opened first).
func TestLogStaying(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	r := newMemory(t)
	path := filepath.Join(r.StateDir(), "log", "reflect.log")
	log := OpenLogStaying(r)
	log.Warn("before")
	if err := os.Rename(path, path+".1"); err != nil { // another process rotates it
		t.Fatal(err)
	}
	log.Warn("after")
	now, _ := os.ReadFile(path)
	old, _ := os.ReadFile(path + ".1")
	if !strings.Contains(string(now), "after") || strings.Contains(string(old), "after") || !strings.Contains(string(old), "before") {
		t.Fatalf("after a rotation the line went to the old file:\nnow %q\nold %q", now, old)
	}
}

// newMemory is a new memory in the test's temporary directory.
func newMemory(t *testing.T) *gitstore.Repo {
	t.Helper()
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
