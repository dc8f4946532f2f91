package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLean: reflect, which every hook starts, links no search engine, sqlite, MCP SDK or
// browser driver; reflect-engine does. Linked, bleve's package init alone took 1.9 ms of every
// process and the 49 MB binary ~4 ms more than a hello world; without them reflect version
// starts in ~3 ms (docs/ARCHITECTURE.md).
func TestLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{"github.com/blevesearch/", "modernc.org/sqlite", "github.com/modelcontextprotocol/go-sdk", "github.com/chromedp/"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("cmd/reflect links %s: it must hand what needs it to reflect-engine (go list -deps ./cmd/reflect)", dep)
			}
		}
	}
	if !strings.Contains(string(out), "github.com/reflect-memory/reflect/cmd/internal/cli") {
		t.Fatalf("go list -deps ./cmd/reflect does not list package cli: %s", out)
	}
}
