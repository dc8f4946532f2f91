package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/hooks"
)

func (a *app) hookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude|codex",
		Short: "Handle one Claude Code or Codex hook event (installed by `reflect install`)",
		Long: `Reads a hook payload on stdin and captures or recalls. Whatever happens — bad input,
no repository, a locked or broken one, a deadline — it exits 0 and prints nothing or exactly
one JSON object the host accepts. Problems are logged under .git/reflect/log.`,
		Hidden: false,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			defer func() {
				if v := recover(); v != nil {
					a.log.Debug("hook panicked", "panic", v)
				}
				err = nil // a hook never fails the agent
			}()
			harness := ""
			if len(args) > 0 {
				harness = args[0]
			}
			if harness != "claude" && harness != "codex" {
				a.log.Debug("unknown harness; nothing done", "harness", harness)
				return nil
			}
			home, err := a.homeDir()
			if err != nil {
				return nil
			}
			hooks.Run(cmd.Context(), hooks.Options{
				Harness: harness, Home: home, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr,
				Debug:      a.verbose || os.Getenv("REFLECT_DEBUG") == "1",
				Background: a.background,
			})
			return nil
		},
	}
}
