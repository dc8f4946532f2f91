package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
)

// internalCmd groups the commands reflect runs itself, detached, for work that must stay
// off a command's (or a hook's) critical path.
func (a *app) internalCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "internal", Hidden: true, Short: "Commands reflect runs itself"}
	cmd.AddCommand(&cobra.Command{
		Use:   "fill-pool",
		Short: "Create the spare files later writes take instead of allocating their own",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.repo()
			if err != nil {
				return err
			}
			return r.FillPool()
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to HEAD, building it when it is missing or corrupt",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.repo()
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
		Use:   "after-write",
		Short: "What follows a write: index the new learnings, refill the file pool",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.repo()
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
	return cmd
}

// afterWrite starts, detached, what follows a write of learnings: the index catches up
// (so the next hook finds it fresh) and the file pool is refilled.
func (a *app) afterWrite(r *gitstore.Repo) {
	if index.Exists(r) || r.PoolLow() {
		a.background("--home", r.Root(), "internal", "after-write")
	}
}

// background starts `reflect ARGS…` detached: it outlives this process and its terminal.
func (a *app) background(args ...string) {
	if _, err := a.start("", args...); err != nil {
		a.log.Debug("start background reflect", "args", args, "err", err)
	}
}

// errNoBackground is a detached process this run may not start (the demo's).
var errNoBackground = errors.New("this run starts no background process")

// start starts `reflect ARGS…` detached and returns its pid. With out, the process's stdout
// and stderr go to that file, emptied first; otherwise nowhere.
func (a *app) start(out string, args ...string) (int, error) {
	if a.noBackground {
		return 0, errNoBackground
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	c := exec.Command(self, args...)
	if out != "" {
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return 0, err
		}
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return 0, err
		}
		defer f.Close() // the child holds its own descriptor
		c.Stdout, c.Stderr = f, f
	}
	detach(c)
	if err := c.Start(); err != nil {
		return 0, err
	}
	pid := c.Process.Pid
	c.Process.Release()
	return pid, nil
}
