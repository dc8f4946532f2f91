package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/team"
)

func (a *App) teamCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Team memories: shared learnings, promoted through pull requests",
		Long: `A team memory is a reflect memory in a git repository the team shares. Recall reads it
beside your own, but injects only the learnings a person reviewed: those that reached the
team's main branch through a merge, or through a commit by someone other than their
promoter. reflect promote puts your learnings on a branch of it for review.`,
	}
	cmd.AddCommand(a.teamListCmd(), a.teamRemoveCmd(), a.teamRenameCmd(), a.teamPendingCmd()) // add and sync build indexes: reflect-engine's
	return cmd
}

func (a *App) teamListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the team memories and where they sync",
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			ts, err := team.List(r)
			if err != nil {
				return err
			}
			if a.JSON() {
				if ts == nil {
					ts = []team.Team{}
				}
				return a.PrintJSON(ts)
			}
			if len(ts) == 0 {
				fmt.Fprintln(a.Stderr, "no team memory; reflect team add NAME URL")
			}
			for _, t := range ts {
				a.Printf("%s\t%s\n", t.Name, t.URL)
			}
			return nil
		},
	}
}

func (a *App) teamRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Stop reading a team memory and delete its clone (the remote keeps it)",
		Args:  ExactArgs(1, "team remove needs the team's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			if err := team.Remove(r, args[0]); err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(map[string]any{"removed": args[0]})
			}
			a.Printf("removed team %s\n", args[0])
			return nil
		},
	}
}

func (a *App) teamRenameCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Give a team memory another name (its clone, reviews and index move with it)",
		Args:  ExactArgs(2, "team rename needs the old and the new name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := team.CheckName(args[1]); err != nil {
				return &FlagError{err}
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			if err := team.Rename(r, args[0], args[1]); err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(map[string]any{"from": args[0], "to": args[1]})
			}
			a.Printf("renamed team %s to %s\n", args[0], args[1])
			return nil
		},
	}
}

func (a *App) teamPendingCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pending [NAME...]",
		Short: "List promotions on the teams' remotes that are not merged yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			names := TeamNames(r, args)
			all := []team.Pending{}
			for _, n := range names {
				ps, err := team.ListPending(cmd.Context(), r, n)
				if err != nil {
					return fmt.Errorf("team %s: %w", n, err)
				}
				all = append(all, ps...)
			}
			if a.JSON() {
				return a.PrintJSON(all)
			}
			if len(all) == 0 {
				fmt.Fprintln(a.Stderr, "no promotion waits for review")
			}
			for _, p := range all {
				// a promotion's branch, author and titles are what the team's remote says
				a.Printf("%s\t%s\t%s\n", p.Team, printable.String(p.Branch), printable.String(p.Author))
				for i, id := range p.IDs {
					a.Printf("  %s %s\n", id, printable.String(p.Titles[i]))
				}
			}
			return nil
		},
	}
}

// TeamNames is the teams a command names, or every team when it names none.
func TeamNames(r *gitstore.Repo, args []string) []string {
	if len(args) > 0 {
		return args
	}
	return team.Names(r)
}

type promoteOptions struct {
	team, project, minConfidence string
	batch                        bool
}

func (a *App) promoteCmd() *cobra.Command {
	var o promoteOptions
	cmd := &cobra.Command{
		Use:   "promote ID... --team NAME | promote --batch --project KEY [--min-confidence high] --team NAME",
		Short: "Propose learnings to a team memory through a pull request",
		Long: `Copy learnings of your memory (id and source kept, promoted_by added) to a branch
reflect/promote/<id> of the team memory, push it, and open a pull request with gh when it
is installed and signed in; otherwise print the branch and where to open the pull request.
Each file is scanned for secrets first with every detector on: a finding refuses the
promotion and names the line. --batch promotes the current learnings of --project of at
least --min-confidence on one branch.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.team == "" {
				return FlagErrorf("promote needs --team NAME (reflect team list names them)")
			}
			if o.batch == (len(args) > 0) {
				return FlagErrorf("promote takes learning ids, or --batch --project KEY, not both")
			}
			if o.batch && o.project == "" {
				return FlagErrorf("promote --batch needs --project KEY")
			}
			min, err := learnings.ParseConfidence(o.minConfidence)
			if err != nil {
				return &FlagError{err}
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			ids := args
			if o.batch {
				if ids, err = batchIDs(r, o.project, min); err != nil {
					return err
				}
				if len(ids) == 0 {
					return fmt.Errorf("%w: no current learning of %s at %s confidence or more", team.ErrNothing, o.project, min)
				}
			}
			p, err := team.Promote(cmd.Context(), r, team.PromoteOptions{Team: o.team, IDs: ids, Batch: o.batch, Now: time.Now()})
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(p)
			}
			a.Printf("promoted %s to team %s on branch %s (%s)\n", strings.Join(p.IDs, ", "), p.Team, p.Branch, p.Remote)
			for _, id := range p.Skipped {
				a.Printf("  %s: already on the team's main\n", id)
			}
			if p.PR != "" {
				a.Printf("pull request: %s\n", p.PR)
				return nil
			}
			if p.GHNote != "" {
				fmt.Fprintf(a.Stderr, "reflect: %s\n", p.GHNote)
			}
			a.Printf("open the pull request: %s\n", p.Compare)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.team, "team", "", "the team memory to promote to")
	f.BoolVar(&o.batch, "batch", false, "promote several learnings of --project on one branch")
	f.StringVar(&o.project, "project", "", "with --batch: the project key")
	f.StringVar(&o.minConfidence, "min-confidence", "high", "with --batch: the lowest confidence promoted")
	return cmd
}

// batchIDs lists the current learnings of project at confidence min or higher.
func batchIDs(r *gitstore.Repo, project string, min learnings.Confidence) ([]string, error) {
	if err := learnings.ValidProjectKey(project); err != nil {
		return nil, &FlagError{fmt.Errorf("--project: %w", err)}
	}
	all, _, err := learnings.LoadAll(r)
	if err != nil {
		return nil, err
	}
	order := learnings.AllConfidences() // highest first
	var ids []string
	for _, l := range all {
		if i := slices.Index(order, l.Confidence); l.Project == project && l.Status == learnings.StatusCurrent && i >= 0 && i <= slices.Index(order, min) {
			ids = append(ids, l.ID)
		}
	}
	return ids, nil
}
