package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	cases := []struct {
		name   string
		before func(t *testing.T, path string) // what is at path before the write
		perm   os.FileMode
		fails  bool
	}{
		{name: "new file", perm: 0o644},
		{name: "replaces a file", perm: 0o644, before: func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("old, and longer than the new content\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "mode exactly, umask aside", perm: 0o666},
		{name: "executable", perm: 0o755},
		{name: "missing directory", fails: true, perm: 0o644, before: func(t *testing.T, p string) {
			os.Remove(filepath.Dir(p))
		}},
		{name: "a directory in the way", fails: true, perm: 0o644, before: func(t *testing.T, p string) {
			if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.json")
			if c.before != nil {
				c.before(t, path)
			}
			err := Write(path, []byte("new\n"), c.perm)
			if c.fails {
				if err == nil {
					t.Fatal("Write succeeded")
				}
				// the error names the file the caller asked for, never the temporary one
				if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, ".tmp-") {
					t.Fatalf("error %q does not name %s alone", msg, path)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != "new\n" {
					t.Fatalf("read back %q, %v", got, err)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if runtime.GOOS != "windows" && fi.Mode().Perm() != c.perm {
					t.Fatalf("mode %v, want %v", fi.Mode().Perm(), c.perm)
				}
			}
			// never a temporary file left beside the target, whatever happened
			if left, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp-*")); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil && runtime.GOOS != "windows" {
		t.Fatal("SyncDir of a missing directory succeeded")
	}
}
