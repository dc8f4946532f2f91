package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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

// A reflect-engine run as a hook's child is told when the hook began, and takes that out of
// the environment of what it starts: its deadline then counts from the hook's start, as a
// resident engine's does, not from its own a slow stdin later.
func TestHookChildIsToldWhenTheHookBegan(t *testing.T) {
	dir := t.TempDir()
	engine := filepath.Join(dir, "reflect-engine")
	script := "#!/bin/sh\nprintf '%s' \"$" + beganEnv + "\" > \"$(dirname \"$0\")/began\"\n"
	if err := os.WriteFile(engine, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	began := time.Now().Add(-300 * time.Millisecond)
	a := &App{Stderr: io.Discard}
	if _, err := a.hookChild(context.Background(), engine, dir, []string{"claude"}, []byte("{}"), began, false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "began"))
	if err != nil || string(got) != strconv.FormatInt(began.UnixNano(), 10) {
		t.Fatalf("the child saw %s=%q (%v), want %d", beganEnv, got, err, began.UnixNano())
	}
	for _, tt := range []struct {
		value string
		want  time.Time
	}{
		{strconv.FormatInt(began.UnixNano(), 10), time.Unix(0, began.UnixNano())},
		{strconv.FormatInt(time.Now().Add(-time.Hour).UnixNano(), 10), time.Time{}}, // not this hook's
		{strconv.FormatInt(time.Now().Add(time.Hour).UnixNano(), 10), time.Time{}},
		{"soon", time.Time{}},
	} {
		t.Setenv(beganEnv, tt.value)
		if got := handedBegan(); !got.Equal(tt.want) {
			t.Errorf("handedBegan(%q) = %v, want %v", tt.value, got, tt.want)
		}
		if _, ok := os.LookupEnv(beganEnv); ok {
			t.Errorf("%s left in the environment", beganEnv)
		}
	}
}
