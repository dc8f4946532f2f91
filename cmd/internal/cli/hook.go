package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
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
		// a flag this reflect does not know (a newer plugin's) is no reason to lose a capture
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
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
			a.runHook(cmd.Context(), home, args, hooks.Options{Harness: harness, Event: event, Stdin: a.Stdin, Stdout: a.Stdout})
			return nil
		},
	}
}

// runHook runs one hook event with o's harness, event, input and output, in this process or,
// for what needs the engine, in reflect-engine.
func (a *App) runHook(ctx context.Context, home string, args []string, o hooks.Options) hooks.Outcome {
	o.Home, o.Stderr, o.Background = home, a.Stderr, a.Background
	o.Debug = a.Verbose || os.Getenv("REFLECT_DEBUG") == "1"
	if a.Engine != nil {
		o.Engine = a.Engine.Hooks()
		if o.Began.IsZero() {
			o.Began = handedBegan() // a child the lean reflect handed the hook to
		}
	} else {
		// the recall events and opencode's captures run in reflect-engine
		o.HandOff = a.hookHandOff(home, args)
	}
	return hooks.Run(ctx, o)
}

// lateHookCmd runs again, detached and with hooks.LateDeadline, a capture a hook gave up on at
// its deadline (a transcript too long to read in it, a repository held through it): in
// reflect-engine when there is one (opencode's captures read its database there, and a child
// engine would be held to the hook's deadline), else here.
func (a *App) lateHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "late-hook FILE",
		Short: "Run again, without the hook's deadline, a capture a hook gave up on (what the hook starts)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := hooks.LateName(args[0])
			if err != nil {
				return fmt.Errorf("late-hook: %w", err)
			}
			if a.Engine == nil {
				if path, err := enginePath(false, io.Discard); err == nil {
					return execEngine(path, a.args())
				}
			}
			home, err := a.HomeDir()
			if err != nil {
				return err
			}
			return a.RunLate(cmd.Context(), home, name)
		},
	}
}

// RunLate runs again the capture saved as name under hooks.LateDir (hooks.RunLate): what a
// late-hook does, and a drain for those no late-hook completed.
func (a *App) RunLate(ctx context.Context, home, name string) error {
	r, err := gitstore.Open(home)
	if err != nil {
		return err
	}
	defer r.Close()
	return hooks.RunLate(r, name, func(l hooks.Late) hooks.Outcome {
		return a.runHook(ctx, home, []string{l.Harness, l.Event}, hooks.Options{Harness: l.Harness, Event: l.Event,
			Stdin: bytes.NewReader(l.Payload), Stdout: io.Discard, Late: true})
	})
}
