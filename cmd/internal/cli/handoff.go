package cli

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// handoffTarget is the project and branch a handoff command is about: the flags, else the
// current directory's.
type handoffTarget struct{ project, branch string }

func (t *handoffTarget) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.project, "project", "", "project key (default: the current directory's)")
	cmd.Flags().StringVar(&t.branch, "branch", "", "branch (default: the current directory's)")
}

func (t *handoffTarget) resolve(cmd *cobra.Command) (project, branch string, err error) {
	project, branch = t.project, t.branch
	if project == "" || !cmd.Flags().Changed("branch") {
		dir, _ := os.Getwd()
		ws, _ := workspace.Read(dir, 0)
		if project == "" {
			project = ws.Project
		}
		if !cmd.Flags().Changed("branch") {
			branch = ws.Branch
		}
	}
	if project == learnings.Global {
		return "", "", FlagErrorf("not in a git repository: a handoff belongs to a project; name one with --project")
	}
	if err := learnings.ValidProjectKey(project); err != nil {
		return "", "", FlagErrorf("--project %q: %v", project, err)
	}
	return project, branch, nil
}

func (a *App) handoffCmd() *cobra.Command {
	var t handoffTarget
	cmd := &cobra.Command{
		Use:   "handoff",
		Short: "Where the last session of this project and branch left off",
		Long: `Print the handoff the last session of a project and branch left: its agent and machine,
when, the task, what was concluded, what is still open, the files touched and the commands
that last failed. A session start in the same project injects it (handoff.* settings).`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			project, branch, err := t.resolve(cmd)
			if err != nil {
				return err
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			h, blob, err := handoff.Read(r, project, branch)
			if err != nil {
				return err
			}
			if h == nil {
				return fmt.Errorf("%w for project %s, branch %s", handoff.ErrNone, project, branchOrDetached(branch))
			}
			path := handoff.Path(project, branch)
			origin := handoff.OriginOf(r, path, blob)
			if a.JSON() {
				return a.PrintJSON(map[string]any{"path": path, "handoff": h, "written_here": origin.Here,
					"author": origin.Author, "other_author": origin.Other})
			}
			a.Printf("%s", h.Markdown())
			switch {
			case origin.Here:
			case origin.Other:
				a.Printf("\n(arrived by sync, written by %s)\n", printable.String(origin.Author))
			default:
				a.Printf("\n(arrived by sync)\n")
			}
			return nil
		},
	}
	t.flags(cmd)
	var clear handoffTarget
	clearCmd := &cobra.Command{
		Use: "clear", Short: "Remove the handoff of a project and branch (one commit; git history keeps it)", Args: NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			project, branch, err := clear.resolve(cmd)
			if err != nil {
				return err
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			if _, err := handoff.Clear(cmd.Context(), r, project, branch); err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(map[string]any{"cleared": handoff.Path(project, branch)})
			}
			a.Printf("cleared the handoff of %s on %s\n", project, branchOrDetached(branch))
			return nil
		},
	}
	clear.flags(clearCmd)
	var limit int
	listCmd := &cobra.Command{
		Use: "list", Short: "The recent handoffs across projects, latest first", Args: NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			items, bad, err := handoff.List(r)
			if err != nil {
				return err
			}
			for _, e := range bad {
				fmt.Fprintf(a.Stderr, "reflect: skipped %v\n", e)
			}
			if limit > 0 && len(items) > limit {
				items = items[:limit]
			}
			if a.JSON() {
				out := make([]map[string]any, 0, len(items))
				for _, it := range items {
					out = append(out, map[string]any{"path": it.Path, "project": it.Project, "branch": it.Branch,
						"harness": it.Harness, "session": it.Session, "machine": it.Machine, "updated": it.Updated,
						"task": it.Task, "open": len(it.Open()), "files": len(it.Files)})
				}
				return a.PrintJSON(out)
			}
			if len(items) == 0 {
				fmt.Fprintln(a.Stderr, "no handoff yet: a capture writes one when a session touched files or left something open")
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "UPDATED\tPROJECT\tBRANCH\tAGENT\tMACHINE\tOPEN\tFILES\tTASK")
			for _, it := range items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", it.Updated.Local().Format("2006-01-02 15:04"), it.Project,
					branchOrDetached(it.Branch), handoff.HostName(it.Harness), it.Machine, len(it.Open()), len(it.Files), oneLine(it.Task, 60))
			}
			return tw.Flush()
		},
	}
	listCmd.Flags().IntVar(&limit, "limit", 20, "show at most this many (0: all)")
	cmd.AddCommand(listCmd, clearCmd)
	return cmd
}

func branchOrDetached(b string) string {
	if b == "" {
		return handoff.Detached
	}
	return b
}

// oneLine is s on one line, cut at n characters.
func oneLine(s string, n int) string {
	r := []rune(s)
	out := make([]rune, 0, min(len(r), n))
	for _, c := range r {
		if c == '\n' || c == '\t' {
			c = ' '
		}
		if len(out) == n-1 && len(r) > n {
			out = append(out, '…')
			break
		}
		out = append(out, c)
	}
	return string(out)
}
