package enginecmd

import (
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
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
