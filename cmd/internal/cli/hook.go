package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
func (a *App) runHook(ctx context.Context, home string, args []string, o hooks.Options) {
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
	hooks.Run(ctx, o)
}

// lateHookCmd runs again, detached and with hooks.LateDeadline, a capture a hook gave up on at
// its deadline (a transcript too long to read in it): reflect runs it itself.
func (a *App) lateHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "late-hook HARNESS EVENT FILE",
		Short: "Run again, without the hook's deadline, a capture a hook gave up on (what the hook starts)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := a.HomeDir()
			if err != nil {
				return err
			}
			r, err := gitstore.Open(home)
			if err != nil {
				return err
			}
			name, ok := strings.CutPrefix(filepath.ToSlash(args[2]), hooks.LateDir+"/")
			if !ok || name == "" || strings.Contains(name, "/") {
				r.Close()
				return fmt.Errorf("late-hook: %s is not a file of %s", args[2], hooks.LateDir)
			}
			payload, err := r.ReadState(hooks.LateDir + "/" + name)
			rerr := os.Remove(filepath.Join(r.StateDir(), filepath.FromSlash(hooks.LateDir), name))
			r.Close()
			if err != nil {
				return err
			}
			if rerr != nil {
				a.Log.Warn("remove the late hook's payload", "file", args[2], "err", rerr)
			}
			a.runHook(cmd.Context(), home, args[:2], hooks.Options{Harness: args[0], Event: args[1],
				Stdin: bytes.NewReader(payload), Stdout: io.Discard, Late: true})
			return nil
		},
	}
}
