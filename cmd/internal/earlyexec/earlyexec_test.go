//go:build linux

package earlyexec

import (
	"testing"

	"github.com/reflect-memory/reflect/install"
)

func TestTarget(t *testing.T) {
	for _, tt := range []struct {
		self string
		argv []string
		want string
	}{
		{"/usr/local/bin/reflect", []string{"reflect", "history", "search", "x"}, "/usr/local/bin/reflect-engine"},
		{"/usr/local/bin/reflect", []string{"reflect", "--home", "/m", "search", "oauth"}, "/usr/local/bin/reflect-engine"},
		{"/opt/r/reflect", []string{"/opt/r/reflect", "team", "sync"}, "/opt/r/reflect-engine"},
		{"/usr/local/bin/reflect", []string{"reflect", "__complete", "sea"}, "/usr/local/bin/reflect-engine"},
		{"/usr/local/bin/reflect", []string{"reflect", "version"}, ""},
		{"/usr/local/bin/reflect", []string{"reflect", "hook", "claude"}, ""}, // a hook hands over in a child, under its deadline
		{"/usr/local/bin/reflect", []string{"reflect"}, ""},
		{"/usr/local/bin/reflect", nil, ""},
		{"/usr/local/bin/reflect-engine", []string{"reflect-engine", "search", "x"}, ""},
		{"reflect", []string{"reflect", "search", "x"}, ""}, // not a path: leave it to Main
	} {
		got, ok := target(func() (string, error) { return tt.self, nil }, tt.argv)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("target(%q, %q) = %q, %v; want %q", tt.self, tt.argv, got, ok, tt.want)
		}
	}
}

func TestEngineFile(t *testing.T) {
	if engineFile != install.EngineName {
		t.Fatalf("engineFile %q, install.EngineName %q", engineFile, install.EngineName)
	}
}
