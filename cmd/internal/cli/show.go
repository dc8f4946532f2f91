package cli

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/team"
)

func (a *App) showCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a learning (a unique prefix of its id is enough)",
		Args:  ExactArgs(1, "show needs the id of a learning"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			l, raw, err := learnings.Get(r, args[0])
			if errors.Is(err, learnings.ErrUnknownID) {
				// recall names team learnings by id too: look in the teams' memories
				if tl, traw, terr := team.Get(r, args[0]); terr == nil {
					l, raw, err = tl, traw, nil
				}
			}
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(toJSON(l, true))
			}
			// a learning may have arrived from a remote: its file is printed without the
			// control characters a terminal would act on
			_, err = io.WriteString(a.Stdout, printable.String(string(raw)))
			return err
		},
	}
}

// ExactArgs is cobra.ExactArgs with a message that says what is missing.
func ExactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return FlagErrorf("%s", msg)
		}
		return nil
	}
}

// NoArgs is cobra.NoArgs as a usage error (exit 2).
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return FlagErrorf("%s takes no arguments (got %q)", cmd.CommandPath(), args[0])
	}
	return nil
}
