package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A source checkout of this module is recognised by its go.mod, not by a go.mod of any module.
func TestIsModuleRoot(t *testing.T) {
	for _, tt := range []struct {
		gomod string
		want  bool
	}{
		{"module github.com/reflect-memory/reflect\n\ngo 1.26\n", true},
		{"// a comment\nmodule \"github.com/reflect-memory/reflect\"\n", true},
		{"module github.com/reflect-memory/reflect/v2\n", false},
		{"module example.com/other\n", false},
		{"", false},
	} {
		dir := t.TempDir()
		if tt.gomod != "" {
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tt.gomod), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := isModuleRoot(dir); got != tt.want {
			t.Errorf("isModuleRoot with go.mod %q = %v; want %v", tt.gomod, got, tt.want)
		}
	}
}

// The checkout an engine is built from is the one this binary was compiled from, and only from
// inside it: a project whose go.mod claims this module is never built and run.
func TestSourceBuildIgnoresTheWorkingDirectory(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := compiledFrom()
	if !ok || got != want {
		t.Fatalf("compiledFrom() = %q, %v; want %q, true", got, ok, want)
	}
	decoy := t.TempDir()
	if err := os.WriteFile(filepath.Join(decoy, "go.mod"), []byte("module github.com/reflect-memory/reflect\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if root, _, ok := sourceBuild(os.Args[0]); !ok || root != want {
		t.Fatalf("sourceBuild inside the checkout = %q, %v; want %q, true", root, ok, want)
	}
	t.Chdir(decoy)
	if root, _, ok := sourceBuild(os.Args[0]); ok {
		t.Fatalf("sourceBuild in a directory claiming the module = %q; want none (not inside the checkout compiled from, %q)", root, want)
	}
	if got, ok := compiledFrom(); !ok || got != want {
		t.Fatalf("compiledFrom() from %s = %q, %v; want %q", decoy, got, ok, want)
	}
}

// Without reflect-engine beside it (a test binary has none), and with no build allowed (as for
// a hook), the error says how to install both and is exit 10.
func TestNoEngine(t *testing.T) {
	_, err := enginePath(false, io.Discard)
	var ne *NoEngineError
	if !errors.As(err, &ne) || ExitCode(err) != exitNoEngine || !strings.Contains(err.Error(), "go install github.com/reflect-memory/reflect/cmd/...@latest") {
		t.Fatalf("enginePath beside a test binary: %v (exit %d); want a NoEngineError, exit %d, naming the install line", err, ExitCode(err), exitNoEngine)
	}
}
