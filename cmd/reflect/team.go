package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/team"
	"github.com/reflect-memory/reflect/team/teamindex"
)

func (a *app) teamCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Team memories: shared learnings, promoted through pull requests",
		Long: `A team memory is a reflect memory in a git repository the team shares. Recall reads it
beside your own, but injects only the learnings a person reviewed: those that reached the
team's main branch through a merge, or through a commit by someone other than their
promoter. reflect promote puts your learnings on a branch of it for review.`,
	}
	cmd.AddCommand(a.teamAddCmd(), a.teamListCmd(), a.teamRemoveCmd(), a.teamRenameCmd(), a.teamSyncCmd(), a.teamPendingCmd())
	return cmd
}

func (a *app) teamAddCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "add NAME URL",
		Short: "Clone a team memory and read it from now on",
		Args:  exactArgs(2, "team add needs a name and the team memory's git URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := team.CheckName(args[0]); err != nil {
				return &flagError{err}
			}
			r, err := a.repo()
			if err != nil {
				return err
			}
			t, _, err := teamindex.Add(cmd.Context(), r, args[0], args[1])
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(t)
			}
			a.printf("added team %s from %s in %s\n", t.Name, t.URL, t.Dir)
			return nil
		},
	}
}

func (a *app) teamListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the team memories and where they sync",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.repo()
			if err != nil {
				return err
			}
			ts, err := team.List(r)
			if err != nil {
				return err
			}
			if a.json() {
				if ts == nil {
					ts = []team.Team{}
				}
				return a.printJSON(ts)
			}
			if len(ts) == 0 {
				fmt.Fprintln(a.stderr, "no team memory; reflect team add NAME URL")
			}
			for _, t := range ts {
				a.printf("%s\t%s\n", t.Name, t.URL)
			}
			return nil
		},
	}
}

func (a *app) teamRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Stop reading a team memory and delete its clone (the remote keeps it)",
		Args:  exactArgs(1, "team remove needs the team's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.repo()
			if err != nil {
				return err
			}
			if err := team.Remove(r, args[0]); err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(map[string]any{"removed": args[0]})
			}
			a.printf("removed team %s\n", args[0])
			return nil
		},
	}
}

func (a *app) teamRenameCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Give a team memory another name (its clone, reviews and index move with it)",
		Args:  exactArgs(2, "team rename needs the old and the new name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := team.CheckName(args[1]); err != nil {
				return &flagError{err}
			}
			r, err := a.repo()
			if err != nil {
				return err
			}
			if err := team.Rename(r, args[0], args[1]); err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(map[string]any{"from": args[0], "to": args[1]})
			}
			a.printf("renamed team %s to %s\n", args[0], args[1])
			return nil
		},
	}
}

func (a *app) teamSyncCmd() *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "sync [NAME...]",
		Short: "Pull the team memories (all of them, or those named)",
		Long: `Fetch each team memory's main branch, check what came in as reflect sync does (a
refusal leaves that team as it was and goes on with the others), record who reviewed each
learning and bring its index up to date. SessionStart runs this in the background.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.repo()
			if err != nil {
				return err
			}
			names := teamNames(r, args)
			type row struct {
				Team   string   `json:"team"`
				Action string   `json:"action,omitempty"`
				In     []string `json:"in"`
				Error  string   `json:"error,omitempty"`
			}
			var rows []row
			var first error
			for _, n := range names {
				res, err := teamindex.Sync(cmd.Context(), r, n)
				rw := row{Team: n, In: []string{}}
				if err != nil {
					rw.Error = err.Error()
					if first == nil {
						first = fmt.Errorf("team %s: %w", n, err)
					}
					if !quiet && !a.json() {
						fmt.Fprintf(a.stderr, "reflect: team %s: %v\n", n, err)
					}
				} else {
					rw.Action = res.Action
					if res.In != nil {
						rw.In = res.In
					}
				}
				rows = append(rows, rw)
			}
			if a.json() {
				if rows == nil {
					rows = []row{}
				}
				if err := a.printJSON(rows); err != nil {
					return err
				}
			} else if !quiet {
				if len(names) == 0 {
					fmt.Fprintln(a.stderr, "no team memory; reflect team add NAME URL")
				}
				for _, rw := range rows {
					if rw.Error == "" {
						a.printf("team %s: %s, %d files in\n", rw.Team, rw.Action, len(rw.In))
					}
				}
			}
			if first != nil {
				if quiet || a.json() {
					return first
				}
				return &silentError{code: exitCode(first)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing when it works")
	return cmd
}

func (a *app) teamPendingCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "pending [NAME...]",
		Short: "List promotions on the teams' remotes that are not merged yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.repo()
			if err != nil {
				return err
			}
			names := teamNames(r, args)
			all := []team.Pending{}
			for _, n := range names {
				ps, err := team.ListPending(cmd.Context(), r, n)
				if err != nil {
					return fmt.Errorf("team %s: %w", n, err)
				}
				all = append(all, ps...)
			}
			if a.json() {
				return a.printJSON(all)
			}
			if len(all) == 0 {
				fmt.Fprintln(a.stderr, "no promotion waits for review")
			}
			for _, p := range all {
				a.printf("%s\t%s\t%s\n", p.Team, p.Branch, p.Author)
				for i, id := range p.IDs {
					a.printf("  %s %s\n", id, p.Titles[i])
				}
			}
			return nil
		},
	}
}

// teamNames is the teams a command names, or every team when it names none.
func teamNames(r *gitstore.Repo, args []string) []string {
	if len(args) > 0 {
		return args
	}
	return team.Names(r)
}

type promoteOptions struct {
	team, project, minConfidence string
	batch                        bool
}

func (a *app) promoteCmd() *cobra.Command {
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
				return flagErrorf("promote needs --team NAME (reflect team list names them)")
			}
			if o.batch == (len(args) > 0) {
				return flagErrorf("promote takes learning ids, or --batch --project KEY, not both")
			}
			if o.batch && o.project == "" {
				return flagErrorf("promote --batch needs --project KEY")
			}
			min, err := learnings.ParseConfidence(o.minConfidence)
			if err != nil {
				return &flagError{err}
			}
			r, err := a.repo()
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
			if a.json() {
				return a.printJSON(p)
			}
			a.printf("promoted %s to team %s on branch %s (%s)\n", strings.Join(p.IDs, ", "), p.Team, p.Branch, p.Remote)
			for _, id := range p.Skipped {
				a.printf("  %s: already on the team's main\n", id)
			}
			if p.PR != "" {
				a.printf("pull request: %s\n", p.PR)
				return nil
			}
			if p.GHNote != "" {
				fmt.Fprintf(a.stderr, "reflect: %s\n", p.GHNote)
			}
			a.printf("open the pull request: %s\n", p.Compare)
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
		return nil, &flagError{fmt.Errorf("--project: %w", err)}
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
