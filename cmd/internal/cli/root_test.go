package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
)

// TestOwnCommandNames: ownCommands names each command as it is run.
func TestOwnCommandNames(t *testing.T) {
	a := &App{}
	for _, c := range ownCommands {
		if got := c.make(a).Name(); got != c.name {
			t.Errorf("ownCommands says %q for the command named %q", c.name, got)
		}
	}
}

// TestTreeFor: a command line naming one of this package's commands builds the root with that
// command alone, and that command's help, usage errors and flags are what the whole tree gives;
// any other line builds the whole tree.
func TestTreeFor(t *testing.T) {
	run := func(full bool, args ...string) (string, error) {
		var out bytes.Buffer
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, NoBackground: true, argv: args}
		cmd := a.RootCmd()
		if !full {
			cmd = a.treeFor(engineline.Words(args))
		}
		cmd.SetArgs(args)
		_, err := cmd.ExecuteC()
		return out.String(), err
	}
	for _, args := range [][]string{
		{"version", "--help"}, {"hook", "--help"}, {"queue", "--help"}, {"queue", "bogus"},
		{"config", "get"}, {"--format", "yaml", "version"}, {"list", "--nope"}, {"handoff", "--help"},
	} {
		full, ferr := run(true, args...)
		one, oerr := run(false, args...)
		if full != one || (ferr == nil) != (oerr == nil) || ferr != nil && ferr.Error() != oerr.Error() {
			t.Errorf("%q: the one-command tree gives %q, %v; the whole tree %q, %v", args, one, oerr, full, ferr)
		}
	}
	for _, tt := range []struct {
		line string
		one  bool
	}{
		{"hook claude", true}, {"--home /m -v hook codex", true}, {"version", true}, {"list --project x", true},
		{"", false}, {"help", false}, {"team list", false}, {"internal fill-pool", false}, {"lst", false},
		{"search x", false},
	} {
		a := &App{}
		got := a.treeFor(engineline.Words(strings.Fields(tt.line))).Commands()
		one := len(got) == 1 && slices.ContainsFunc(ownCommands, func(c struct {
			name string
			make func(*App) *cobra.Command
		}) bool {
			return c.name == got[0].Name()
		})
		if one != tt.one {
			t.Errorf("treeFor(%q) built %d commands; want the one-command tree: %v", tt.line, len(got), tt.one)
		}
	}
}
