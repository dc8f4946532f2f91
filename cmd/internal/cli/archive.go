package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
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
