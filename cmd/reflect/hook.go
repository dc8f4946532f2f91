package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/hooks/hookengine"
)

func (a *app) hookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude|codex|gemini|copilot|cursor|opencode [EVENT]",
		Short: "Handle one hook event of Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor or opencode (installed by `reflect install`)",
		Long: `Reads a hook payload on stdin and captures or recalls. EVENT names the event for hosts whose
payloads do not (Copilot CLI's camelCase hooks, reflect's opencode plugin). Whatever happens — bad input,
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
			harness, event := "", ""
			if len(args) > 0 {
				harness = args[0]
			}
			if len(args) > 1 {
				event = args[1]
			}
			if !hooks.KnownHost(harness) {
				a.log.Debug("unknown harness; nothing done", "harness", harness)
				return nil
			}
			home, err := a.homeDir()
			if err != nil {
				return nil
			}
			hooks.Run(cmd.Context(), hooks.Options{Engine: hookengine.New(),
				Harness: harness, Event: event, Home: home, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr,
				Debug:      a.verbose || os.Getenv("REFLECT_DEBUG") == "1",
				Background: a.background,
			})
			return nil
		},
	}
}
