package main

import (
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
)

func (a *app) initCmd() *cobra.Command {
	var remote string
	cmd := &cobra.Command{
		Use:   "init [--remote URL]",
		Short: "Create the knowledge repository (or set its remote)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			r, created, err := gitstore.Init(cmd.Context(), home, gitstore.InitOptions{Remote: remote})
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(map[string]any{"home": r.Root(), "created": created, "remote": r.Remote("origin")})
			}
			if created {
				a.printf("Initialised reflect repository at %s\n", r.Root())
			} else {
				a.printf("reflect repository already at %s\n", r.Root())
			}
			if remote != "" {
				a.printf("Remote origin: %s\n", remote)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&remote, "remote", "", "git remote URL to sync with (sets origin)")
	return cmd
}
