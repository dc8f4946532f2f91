package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/provenance"
	memsync "github.com/reflect-memory/reflect/sync"
)

func (a *App) initCmd() *cobra.Command {
	var remote, from string
	cmd := &cobra.Command{
		Use:   "init [--remote URL | --from URL]",
		Short: "Create the knowledge repository, or join an existing memory (--from)",
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.HomeDir()
			if err != nil {
				return err
			}
			if from != "" {
				if remote != "" {
					return FlagErrorf("--from and --remote cannot be used together (--from sets the remote)")
				}
				r, res, err := memsync.Clone(cmd.Context(), home, from, memsync.Options{})
				if err != nil {
					return err
				}
				a.AfterWrite(r)
				for _, n := range res.Notes {
					fmt.Fprintf(a.Stderr, "reflect: %s\n", n)
				}
				if a.JSON() {
					return a.PrintJSON(map[string]any{"home": r.Root(), "created": true, "remote": memsync.RedactURL(r.Remote("origin")), "sync": res})
				}
				a.Printf("Joined the memory at %s in %s (%d files)\n", res.URL, r.Root(), len(res.In))
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
			if a.JSON() {
				return a.PrintJSON(map[string]any{"home": r.Root(), "created": created, "remote": memsync.RedactURL(r.Remote("origin"))})
			}
			if created {
				a.Printf("Initialised reflect repository at %s\n", r.Root())
			} else {
				a.Printf("reflect repository already at %s\n", r.Root())
			}
			if remote != "" {
				a.Printf("Remote origin: %s\n", remote)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&remote, "remote", "", "git remote URL to sync with (sets origin)")
	cmd.Flags().StringVar(&from, "from", "", "join the memory at this git remote: clone it here")
	return cmd
}
