package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
)

func (a *App) archiveCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "archive ID [--reason R]",
		Short: "Retire a learning: it stays in git but leaves recall",
		Args:  ExactArgs(1, "archive needs the id of a learning"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			var changed bool
			ls, commit, err := learnings.Change(cmd.Context(), r, []string{args[0]}, func(ls []*learnings.Learning) (string, error) {
				l := ls[0]
				if changed = l.Archive(time.Now()); !changed {
					return "", nil
				}
				return learnings.ArchiveMessage(l, reason), nil
			})
			if err != nil {
				return err
			}
			a.AfterWrite(r)
			l := ls[0]
			if a.JSON() {
				return a.PrintJSON(map[string]any{"id": l.ID, "status": l.Status, "changed": changed, "commit": commit.String()})
			}
			if !changed {
				a.Printf("%s is already %s\n", l.ID, l.Status)
				return nil
			}
			a.Printf("archived %s: %s\n", l.ID, printable.String(l.Title))
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the commit message)")
	return cmd
}

func (a *App) supersedeCmd() *cobra.Command {
	var by string
	cmd := &cobra.Command{
		Use:   "supersede OLD --by NEW",
		Short: "Mark a learning as replaced by a newer one",
		Args:  ExactArgs(1, "supersede needs the id of the old learning"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if by == "" {
				return FlagErrorf("--by NEW is required")
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			var changed bool
			ls, commit, err := learnings.Change(cmd.Context(), r, []string{args[0], by}, func(ls []*learnings.Learning) (string, error) {
				if err := reviewFirst(r, ls[1]); err != nil {
					return "", err
				}
				var err error
				if changed, err = learnings.Supersede(ls[0], ls[1], time.Now()); err != nil || !changed {
					return "", err
				}
				return learnings.SupersedeMessage(ls[0], ls[1]), nil
			})
			if err != nil {
				return err
			}
			a.AfterWrite(r)
			if a.JSON() {
				return a.PrintJSON(map[string]any{"id": ls[0].ID, "superseded_by": ls[1].ID, "changed": changed, "commit": commit.String()})
			}
			if !changed {
				a.Printf("%s is already superseded by %s\n", ls[0].ID, ls[1].ID)
				return nil
			}
			a.Printf("%s is superseded by %s\n", ls[0].ID, ls[1].ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&by, "by", "", "id of the learning that replaces it")
	return cmd
}

// reviewFirst refuses newer as the learning that supersedes another when another author wrote
// it and nobody reviewed it (provenance.Unreviewed). Superseding lists the old one in newer's
// file, so the commit would be this user's version of it: their other laptops, and a fresh
// clone, would take it for the user's own and inject it, while this machine still holds it
// back. Naming an id is not reading it; an edit is, and reviews it.
func reviewFirst(r *gitstore.Repo, newer *learnings.Learning) error {
	if !provenance.Unreviewed(r, newer.ID) {
		return nil
	}
	return fmt.Errorf("%s is another author's learning that nobody reviewed: superseding by it would make it read as yours on your other machines; review it first (reflect edit %s)", newer.ID, newer.ID)
}
