package enginecmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/team"
	"github.com/reflect-memory/reflect/team/teamindex"
)

func (a *app) teamAddCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "add NAME URL",
		Short: "Clone a team memory and read it from now on",
		Args:  cli.ExactArgs(2, "team add needs a name and the team memory's git URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := team.CheckName(args[0]); err != nil {
				return cli.FlagErrorf("%w", err)
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			t, _, err := teamindex.Add(cmd.Context(), r, args[0], args[1])
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(t)
			}
			a.Printf("added team %s from %s in %s\n", t.Name, t.URL, t.Dir)
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
			r, err := a.Repo()
			if err != nil {
				return err
			}
			names := cli.TeamNames(r, args)
			type row struct {
				Team   string   `json:"team"`
				Action string   `json:"action,omitempty"`
				In     []string `json:"in"`
				Notes  []string `json:"notes,omitempty"` // what was not taken as the remote has it
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
					if !quiet && !a.JSON() {
						fmt.Fprintf(a.Stderr, "reflect: team %s: %s\n", n, printable.String(err.Error()))
					}
				} else {
					rw.Action, rw.Notes = res.Action, res.Notes
					if res.In != nil {
						rw.In = res.In
					}
				}
				rows = append(rows, rw)
			}
			if a.JSON() {
				if rows == nil {
					rows = []row{}
				}
				if err := a.PrintJSON(rows); err != nil {
					return err
				}
			} else if !quiet {
				if len(names) == 0 {
					fmt.Fprintln(a.Stderr, "no team memory; reflect team add NAME URL")
				}
				for _, rw := range rows {
					if rw.Error == "" {
						a.Printf("team %s: %s, %d files in\n", rw.Team, rw.Action, len(rw.In))
					}
					for _, n := range rw.Notes {
						fmt.Fprintf(a.Stderr, "reflect: team %s: %s\n", rw.Team, printable.String(n))
					}
				}
			}
			if first != nil {
				if quiet || a.JSON() {
					return first
				}
				return &cli.SilentError{Code: cli.ExitCode(first)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print nothing when it works")
	return cmd
}
