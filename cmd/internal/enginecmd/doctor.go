package enginecmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/doctor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/shellquote"
)

func (a *app) doctorCmd() *cobra.Command {
	var repair bool
	cmd := &cobra.Command{
		Use:   "doctor [--repair]",
		Short: "Check the setup: hooks, binary, repository, index, remote, queue and drain",
		Long: `Check that reflect's hooks are wired into Claude Code and Codex (and trusted in Codex),
that the binary they run exists and has reflect-engine beside it, of the same build, that the
knowledge repository opens, its objects are intact and its work tree matches HEAD, that every
learning parses, that the index is fresh, that the remote answers, and that the queue and the
drain are not stuck. Each problem comes with the command that fixes it. Nothing is changed,
except with --repair: a reflect write that was interrupted (a killed process, a full disk) is
first completed or undone, as the next write would do. Exits 8 when a problem stops reflect
from working.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := a.HomeDir()
			if err != nil {
				return err
			}
			prefix := "reflect"
			if a.Home != "" {
				prefix += " --home " + shellquote.Quote(home)
			}
			if repair {
				if r, err := gitstore.Open(home); err == nil {
					paths, err := r.Recover(cmd.Context())
					if err != nil {
						return err
					}
					if len(paths) > 0 && !a.JSON() {
						a.Printf("repaired an interrupted write: %s back in line with HEAD\n\n", cli.Plural(len(paths), "file"))
					}
				}
			}
			cwd, _ := os.Getwd()
			rep := doctor.Run(cmd.Context(), doctor.Options{Home: home, Cwd: cwd, Reflect: prefix})
			if a.JSON() {
				if err := a.PrintJSON(rep); err != nil {
					return err
				}
			} else {
				a.printReport(rep)
			}
			if !rep.Healthy {
				return fmt.Errorf("%w: %s to fix", cli.ErrUnhealthy, cli.Plural(rep.Errors, "problem"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&repair, "repair", false, "first complete or undo a reflect write that was interrupted")
	return cmd
}

// maxDetails is how many files or entries a finding lists in text; JSON has them all.
const maxDetails = 10

// printReport prints one line per finding (severity, check, message  → fix), the files or
// entries it is about indented under it, then a summary.
func (a *app) printReport(rep *doctor.Report) {
	for _, f := range rep.Findings {
		a.Printf("%-5s  %-9s  %s", f.Severity, f.Check, f.Message)
		if f.Fix != "" {
			a.Printf("  → %s", f.Fix)
		}
		a.Printf("\n")
		for i, d := range f.Details {
			if i == maxDetails && len(f.Details) > maxDetails+1 {
				a.Printf("%18s… and %d more (--format json lists them all)\n", "", len(f.Details)-i)
				break
			}
			a.Printf("%18s%s\n", "", d)
		}
	}
	var parts []string
	if rep.Errors > 0 {
		parts = append(parts, cli.Plural(rep.Errors, "error"))
	}
	if rep.Warnings > 0 {
		parts = append(parts, cli.Plural(rep.Warnings, "warning"))
	}
	parts = append(parts, fmt.Sprintf("%d ok", rep.OK))
	verdict := "healthy"
	if !rep.Healthy {
		verdict = "unhealthy"
	}
	a.Printf("%s: %s\n", verdict, strings.Join(parts, ", "))
}
