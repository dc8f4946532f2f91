package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	memsync "github.com/reflect-memory/reflect/sync"
)

func (a *App) syncCmd() *cobra.Command {
	var remote string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "sync [--remote NAME]",
		Short: "Pull the memory from the remote, merge, and push it back",
		Long: `Fetch from the remote (origin unless --remote), fast-forward or merge what came in
(learnings edited on both sides are merged field by field; no conflict marker is ever
written), and push. When another machine pushed meanwhile it fetches and merges again.
A failure keeps every local commit.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.RepoToMend()
			if err != nil {
				return err
			}
			res, err := memsync.Sync(cmd.Context(), r, memsync.Options{Remote: remote})
			if err != nil {
				return err
			}
			a.AfterWrite(r)
			for _, n := range res.Notes {
				fmt.Fprintf(a.Stderr, "reflect: %s\n", n)
			}
			if a.JSON() {
				if res.In == nil {
					res.In = []string{}
				}
				return a.PrintJSON(res)
			}
			if quiet {
				return nil
			}
			switch {
			case res.Action == "up-to-date" && !res.Pushed:
				a.Printf("up to date with %s (%s)\n", res.Remote, res.URL)
			default:
				a.Printf("%s with %s (%s): %d files in, %d commits out\n", res.Action, res.Remote, res.URL, len(res.In), res.Out)
				for _, p := range res.In {
					a.Printf("  in: %s\n", p)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&remote, "remote", "", "remote name (default origin)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing when it works")
	return cmd
}

func (a *App) remoteCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "remote [set URL]",
		Short: "Show the remote the memory syncs with, or set it",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || len(args) == 2 && args[0] == "set" {
				return nil
			}
			return FlagErrorf("usage: reflect remote [set URL]")
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.RepoToMend()
			if err != nil {
				return err
			}
			if len(args) == 2 {
				if err := r.SetRemote(name, args[1]); err != nil {
					return err
				}
			}
			url := memsync.RedactURL(r.Remote(name))
			if a.JSON() {
				return a.PrintJSON(map[string]string{"name": name, "url": url})
			}
			if url == "" {
				fmt.Fprintf(a.Stderr, "no remote %q; reflect remote set URL\n", name)
				return nil
			}
			a.Printf("%s\t%s\n", name, url)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "origin", "remote name")
	return cmd
}
