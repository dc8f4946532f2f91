package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/reflect-memory/reflect/internal/testenv"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// reflectBin builds cmd/reflect and, beside it, cmd/reflect-engine (to which reflect hands the
// commands and hook events that need the search engine) once per test run.
func reflectBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		// go test caches this package's result by the files the test itself looks at; the
		// binary is built in a subprocess, so look at every source file it is built from.
		filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "go.mod") || strings.HasSuffix(p, "go.sum")) {
				os.Stat(p)
			}
			return nil
		})
		dir, err := os.MkdirTemp("", "reflect-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		exe := ""
		if runtime.GOOS == "windows" {
			exe = ".exe"
		}
		binPath = filepath.Join(dir, "reflect"+exe)
		for _, b := range []struct{ out, pkg string }{{binPath, "../cmd/reflect"}, {filepath.Join(dir, "reflect-engine"+exe), "../cmd/reflect-engine"}} {
			out, err := exec.Command("go", "build", "-o", b.out, b.pkg).CombinedOutput()
			if err != nil {
				buildErr = err
				binPath = string(out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("build reflect: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// env is a private HOME with git identity, so tests touch nothing of the user's.
func env(t testing.TB) []string {
	t.Helper()
	home := t.TempDir()
	return append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "REFLECT_HOME=",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
}

func run(t testing.TB, environ []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, environ
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// initRepo creates a knowledge repository and returns its path.
func initRepo(t testing.TB, environ []string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "mem")
	run(t, environ, ".", reflectBin(t), "--home", home, "init")
	t.Cleanup(func() { waitBackground(home) })
	return home
}

// assertHealthy checks what reflect promises after every command.
func assertHealthy(t testing.TB, environ []string, home string) {
	t.Helper()
	if st := run(t, environ, home, "git", "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status is not clean:\n%s", st)
	}
	run(t, environ, home, "git", "fsck", "--strict", "--no-progress", "--no-dangling")
	if d := run(t, environ, home, "git", "diff-index", "--cached", "HEAD"); d != "" {
		t.Fatalf("index differs from HEAD:\n%s", d)
	}
	for _, lock := range []string{".git/index.lock", ".git/refs/heads/main.lock"} {
		if _, err := os.Stat(filepath.Join(home, lock)); err == nil {
			t.Fatalf("stale %s left behind", lock)
		}
	}
}

// waitBackground waits for the detached work commands and hooks started on home, so the
// test's temporary directory is not removed under it.
func waitBackground(home string) { testenv.WaitDetached(home) }
