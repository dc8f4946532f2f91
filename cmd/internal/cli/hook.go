package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/hooks"
)

func (a *App) hookCmd() *cobra.Command {
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
					a.Log.Debug("hook panicked", "panic", v)
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
				a.Log.Debug("unknown harness; nothing done", "harness", harness)
				return nil
			}
			home, err := a.HomeDir()
			if err != nil {
				return nil
			}
			o := hooks.Options{
				Harness: harness, Event: event, Home: home, Stdin: a.Stdin, Stdout: a.Stdout, Stderr: a.Stderr,
				Debug:      a.Verbose || os.Getenv("REFLECT_DEBUG") == "1",
				Background: a.Background,
			}
			if a.Engine != nil {
				o.Engine = a.Engine.Hooks()
			} else {
				// the recall events and opencode's captures run in reflect-engine
				o.HandOff = a.hookHandOff(home, args)
			}
			hooks.Run(cmd.Context(), o)
			return nil
		},
	}
}
