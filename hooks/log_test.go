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
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
