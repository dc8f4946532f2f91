package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	indexlayout "github.com/reflect-memory/reflect/index/layout"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
)

// internalCmd groups the commands reflect runs itself, detached, for work that must stay
// off a command's (or a hook's) critical path.
func (a *App) internalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "internal", Hidden: true, Short: "Commands reflect runs itself"}
	cmd.AddCommand(a.lateHookCmd())
	cmd.AddCommand(&cobra.Command{
		Use:   "fill-pool",
		Short: "Create the spare files later writes take instead of allocating their own",
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			return r.FillPool()
		},
	})
	return cmd
}

// AfterWrite starts, detached, what follows a write of learnings: the index catches up
// (so the next hook finds it fresh) and the file pool is refilled.
func (a *App) AfterWrite(r *gitstore.Repo) {
	if indexlayout.Exists(r) || r.PoolLow() {
		a.Background("--home", r.Root(), "internal", "after-write")
	}
}

// Background starts `reflect ARGS…` detached: it outlives this process and its terminal.
func (a *App) Background(args ...string) {
	if _, err := a.Start("", args...); err != nil {
		a.Log.Debug("start background reflect", "args", args, "err", err)
	}
}

// errNoBackground is a detached process this run may not start (the demo's).
var errNoBackground = errors.New("this run starts no background process")

// Start starts `reflect ARGS…` detached and returns its pid. With out, the process's stdout
// and stderr go to that file, emptied first; otherwise nowhere.
func (a *App) Start(out string, args ...string) (int, error) {
	if a.NoBackground {
		return 0, errNoBackground
	}
	var self string
	var err error
	if a.Engine == nil && engineline.HandsOff(args) {
		// the binary that can do it: the lean reflect would only hand it on
		self, err = enginePath(false, io.Discard)
	} else {
		self, err = os.Executable()
	}
	if err != nil {
		return 0, err
	}
	var f *os.File
	if out != "" {
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return 0, err
		}
		if f, err = os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			return 0, err
		}
		defer f.Close() // the child holds its own descriptor
	}
	// a resident engine answers the hooks the agent waits on: at nice 10 its prompt hooks took
	// 1.91–1.98× `reflect version` against 1.87× at 0 (41 each, quiet)
	nice := 10
	if w := engineline.Words(args); len(w) == 2 && w[0] == "internal" && w[1] == "resident" {
		nice = 0
	}
	return startDetached(self, args, f, nice)
}
