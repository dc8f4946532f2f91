package enginecmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/hooks/hookengine"
	"github.com/reflect-memory/reflect/hooks/resident"
	"github.com/reflect-memory/reflect/index"
)

// internalCmds are the commands reflect runs itself, detached, that need the index: they go
// under the internal command.
func (a *app) internalCmds(cmd *cobra.Command) {
	cmd.AddCommand(&cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to HEAD, building it when it is missing or corrupt",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			ix, err := index.Open(cmd.Context(), r, index.Options{LockTimeout: r.Config().Git.LockTimeout.Std()})
			if err != nil {
				return err
			}
			return ix.Close()
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "resident",
		Short: "Stay to answer the memory's recall hooks, for recall.resident after the last (what a recall hook starts)",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			return a.stayResident(cmd.Context(), r)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "after-write",
		Short: "What follows a write: index the new learnings, refill the file pool",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			err = index.CatchUp(cmd.Context(), r)
			if perr := r.FillPool(); err == nil {
				err = perr
			}
			return err
		},
	})
}

// stayResident answers the memory's hooks that the lean reflect hands over (package
// hooks/resident) until recall.resident passes without one, or a signal asks it to leave
// (after the hook under way). recall.resident is read again every few seconds: set to 0, no
// hook asks the engine any more, and it leaves.
func (a *app) stayResident(ctx context.Context, r *gitstore.Repo) error {
	setting := r.Config().Recall.Resident.Std()
	if setting <= 0 {
		return nil
	}
	read := time.Now()
	idle := func() time.Duration {
		if time.Since(read) >= 5*time.Second {
			read = time.Now()
			if cfg, _, err := config.Load("", r.LocalSettingsPath()); err == nil {
				setting = cfg.Recall.Resident.Std()
			}
		}
		return setting
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if s, err := filepath.EvalSymlinks(self); err == nil {
		self = s
	}
	ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer cancel()
	home := r.Root()
	engine := hookengine.New()
	answer := func(ctx context.Context, req resident.Request, payload []byte, out io.Writer) func() {
		// what may wait until the hook has answered is done once it has (closing the index),
		// then what the hook starts in the background starts (it may need the index)
		var later [][]string
		var settle []func()
		hooks.Run(ctx, hooks.Options{Harness: req.Harness, Event: req.Event, Home: home,
			Stdin: bytes.NewReader(payload), Stdout: out, Stderr: io.Discard, Engine: engine,
			Background: func(args ...string) { later = append(later, args) }, Began: time.Unix(0, req.Began), Resident: true,
			Answered: func(f func()) { settle = append(settle, f) }})
		return func() {
			for _, f := range settle {
				f()
			}
			for _, args := range later {
				pid, err := a.Start("", args...)
				if err != nil {
					continue
				}
				// the engine stays: the processes it starts are waited for, or each would
				// stay a zombie until it left
				go func() {
					if p, err := os.FindProcess(pid); err == nil {
						p.Wait()
					}
				}()
			}
		}
	}
	log := hooks.OpenLogStaying(r)
	warm := func() { log.Debug("resident: warmed", "recalls", hookengine.Warm(ctx, r)) }
	_, err = resident.Serve(ctx, r.StateDir(), self, idle, log, warm, answer)
	return err
}
