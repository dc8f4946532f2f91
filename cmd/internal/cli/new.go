package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/workspace"
)

func (a *App) newCmd() *cobra.Command {
	var title, project string
	var global bool
	cmd := &cobra.Command{
		Use:   "new [--title T] [--project KEY | --global]",
		Short: "Print a fresh, valid learning file to start a hand-written one from",
		Long: `Print a new learning file — a fresh id, every field, today's dates — to write a learning by
hand (in an editor, or in a pull request to a shared memory). Save it under the path printed
on stderr; reflect fmt fills in what a hand-written file leaves out.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case global && project != "":
				return FlagErrorf("give --project or --global, not both")
			case global:
				project = learnings.Global
			case project == "":
				cwd, err := os.Getwd()
				if err != nil {
					return err
				}
				if project, err = workspace.ProjectKey(cwd); err != nil {
					return err
				}
			}
			if title == "" {
				title = "The lesson, in one line"
			}
			l := learnings.New(title, project, time.Now())
			l.Body = "What to do, and why: a few short paragraphs at most.\n"
			l.Source = learnings.Source{Harness: "manual", Trigger: "manual"}
			data, err := l.Render()
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(map[string]string{"id": l.ID, "path": l.RelPath(), "file": string(data)})
			}
			fmt.Fprintf(a.Stderr, "save it as %s in the memory, then commit it (or reflect fmt)\n", l.RelPath())
			_, err = a.Stdout.Write(data)
			return err
		},
	}
	cmd.Flags().StringVarP(&title, "title", "t", "", "one-line title")
	cmd.Flags().StringVar(&project, "project", "", "project key (default: from the current directory's git remote)")
	cmd.Flags().BoolVar(&global, "global", false, "a learning for every project")
	return cmd
}

func (a *App) fmtCmd() *cobra.Command {
	var check bool
	cmd := &cobra.Command{
		Use:   "fmt [--check]",
		Short: "Rewrite hand-written learnings in canonical form (one commit)",
		Long: `Give every learning what a hand-written file may leave out — kind rule, confidence medium,
status current, seen 1, the dates of the commit that added it, the project of its directory —
keeping its comments, key order and unknown keys, in one commit. A learning another author
pushed that nobody reviewed is left as it is (the commit would make it read as yours on your
other machines): reflect edit reviews it. --check only lists the files it would rewrite, and
exits 1 when there are any.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			out, bad, err := learnings.Canonical(r)
			if err != nil {
				return err
			}
			for _, e := range bad {
				for _, line := range strings.Split(e.Error(), "\n") {
					fmt.Fprintf(a.Stderr, "reflect: skipped %s\n", line)
				}
			}
			out, left := ownToFormat(r, out)
			for _, p := range left {
				fmt.Fprintf(a.Stderr, "reflect: left %s as its author wrote it: another author's, not reviewed (reflect edit reviews it)\n", printable.String(p))
			}
			paths := make([]string, len(out))
			for i, u := range out {
				paths[i] = u.Path
			}
			if a.JSON() {
				if err := a.PrintJSON(map[string]any{"unformatted": NonNil(paths), "left": NonNil(left), "check": check}); err != nil {
					return err
				}
			} else {
				for _, p := range paths {
					a.Printf("%s\n", p)
				}
			}
			switch {
			case check && len(out) > 0:
				return &SilentError{Code: exitError}
			case check || len(out) == 0:
				return nil
			}
			files := map[string][]byte{}
			for _, u := range out {
				files[u.Path] = u.Data
			}
			if _, err := r.Commit(cmd.Context(), fmt.Sprintf("fmt: %d learnings in canonical form", len(out)), files); err != nil {
				return err
			}
			a.AfterWrite(r)
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "list what would change, change nothing (exit 1 when anything would)")
	return cmd
}

// ownToFormat splits what fmt would rewrite: the learnings another author wrote and nobody
// reviewed (provenance.Unreviewed) are left as they are. fmt rewrites every file at once,
// choosing none, and its commit is this user's: sync and a fresh clone's provenance.Ensure
// take the author of the commit that made a version for its writer, so the user's other
// laptops would take that author's lesson for the user's own and inject it unreviewed.
func ownToFormat(r *gitstore.Repo, out []learnings.Unformatted) (own []learnings.Unformatted, left []string) {
	for _, u := range out {
		if id, ok := learnings.IDFromPath(u.Path); ok && provenance.Unreviewed(r, id) {
			left = append(left, u.Path)
			continue
		}
		own = append(own, u)
	}
	return own, left
}
