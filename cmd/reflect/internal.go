package main

import (
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
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
	return cmd
}

// afterWrite starts a background refill of the file pool when a write left it low.
func (a *app) afterWrite(r *gitstore.Repo) {
	if r.PoolLow() {
		a.background("--home", r.Root(), "internal", "fill-pool")
	}
}

// background starts `reflect ARGS…` detached: it outlives this process and its terminal.
func (a *app) background(args ...string) {
	if a.noBackground {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	c := exec.Command(self, args...)
	detach(c)
	if err := c.Start(); err != nil {
		a.log.Debug("start background reflect", "args", args, "err", err)
		return
	}
	c.Process.Release()
}
