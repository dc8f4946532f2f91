package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/provenance"
	memsync "github.com/reflect-memory/reflect/sync"
)

func (a *app) initCmd() *cobra.Command {
	var remote, from string
	cmd := &cobra.Command{
		Use:   "init [--remote URL | --from URL]",
		Short: "Create the knowledge repository, or join an existing memory (--from)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			if from != "" {
				if remote != "" {
					return flagErrorf("--from and --remote cannot be used together (--from sets the remote)")
				}
				r, res, err := memsync.Clone(cmd.Context(), home, from)
				if err != nil {
					return err
				}
				a.afterWrite(r)
				for _, n := range res.Notes {
					fmt.Fprintf(a.stderr, "reflect: %s\n", n)
				}
				if a.json() {
					return a.printJSON(map[string]any{"home": r.Root(), "created": true, "remote": memsync.RedactURL(r.Remote("origin")), "sync": res})
				}
				a.printf("Joined the memory at %s in %s (%d files)\n", res.URL, r.Root(), len(res.In))
				return nil
			}
			r, created, err := gitstore.Init(cmd.Context(), home, gitstore.InitOptions{Remote: remote})
			if err != nil {
				return err
			}
			if created { // a new memory: nothing in it arrived from elsewhere
				if err := provenance.MarkBuilt(r, time.Now()); err != nil {
					return err
				}
			}
			if a.json() {
				return a.printJSON(map[string]any{"home": r.Root(), "created": created, "remote": memsync.RedactURL(r.Remote("origin"))})
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
	cmd.Flags().StringVar(&from, "from", "", "join the memory at this git remote: clone it here")
	return cmd
}
