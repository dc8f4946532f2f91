package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
)

func (a *App) editCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "edit ID",
		Short: "Edit a learning in $EDITOR, validate it and commit it",
		Long: `Open a learning in $VISUAL or $EDITOR (default vi). When the editor exits the file
is validated: an invalid edit is refused with the reason, nothing is committed, and the
edited copy is kept so no work is lost. The id cannot change; changing the project moves
the file.`,
		Args: ExactArgs(1, "edit needs the id of a learning"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			old, raw, err := learnings.Get(r, args[0])
			if err != nil {
				return err
			}
			tmp, err := os.CreateTemp("", "reflect-edit-"+old.ID+"-*.md")
			if err != nil {
				return err
			}
			tmp.Write(raw)
			tmp.Close()
			if err := runEditor(tmp.Name(), a); err != nil {
				return fmt.Errorf("%w (your copy is at %s)", err, tmp.Name())
			}
			edited, err := os.ReadFile(tmp.Name())
			if err != nil {
				return err
			}
			if bytes.Equal(edited, raw) {
				os.Remove(tmp.Name())
				a.Printf("no change to %s\n", old.ID)
				return nil
			}
			if edited, err = fillAnchors(r, old, edited); err != nil {
				return fmt.Errorf("edit refused, nothing committed: %w\nyour edited copy is kept at %s", err, tmp.Name())
			}
			commit, l, err := learnings.SaveEdit(cmd.Context(), r, old, raw, edited)
			if err != nil {
				return fmt.Errorf("edit refused, nothing committed: %w\nyour edited copy is kept at %s", err, tmp.Name())
			}
			a.AfterWrite(r)
			os.Remove(tmp.Name())
			// a person read it and saved it: a learning that arrived by sync is reviewed now
			if err := provenance.MarkReviewed(r, l.ID, "you"); err != nil {
				a.Log.Warn("record the review", "id", l.ID, "err", err)
			}
			if a.JSON() {
				return a.PrintJSON(map[string]string{"id": l.ID, "path": l.RelPath(), "commit": commit.String()})
			}
			a.Printf("edited %s: %s\n", l.ID, printable.String(l.Title))
			return nil
		},
	}
}

func runEditor(file string, a *App) error {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	argv := strings.Fields(ed)
	cmd := exec.Command(argv[0], append(argv[1:], file)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, a.Stdout, a.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("editor %q exited with status %d; nothing committed", ed, ee.ExitCode())
		}
		return fmt.Errorf("run editor %q: %w", ed, err)
	}
	return nil
}
