package enginecmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/recall"
)

type recallOptions struct {
	cwd, prompt, session, harness string
	explain                       bool
}

func (a *app) recallCmd() *cobra.Command {
	var o recallOptions
	cmd := &cobra.Command{
		Use:   "recall [--cwd DIR] [--prompt TEXT] [--session ID] [--explain]",
		Short: "Print what a hook would inject: at session start, or for a prompt",
		Long: `Print exactly what reflect's SessionStart hook (no --prompt) or UserPromptSubmit hook
(--prompt) would inject into an agent working in --cwd. With --session, learnings already
injected in that session are left out, as the hook does (recall itself records nothing).
--explain lists every candidate with the score and the reason it was kept or dropped.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.cwd == "" {
				o.cwd, _ = os.Getwd()
			}
			cwd, err := filepath.Abs(o.cwd)
			if err != nil {
				return err
			}
			switch fi, err := os.Stat(cwd); {
			case errors.Is(err, fs.ErrNotExist):
				return cli.FlagErrorf("--cwd %s: no such directory", cwd)
			case err != nil:
				return cli.FlagErrorf("--cwd %s: %v", cwd, errors.Unwrap(err))
			case !fi.IsDir():
				return cli.FlagErrorf("--cwd %s: not a directory", cwd)
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			harness := map[string]string{"claude": "claude-code", "claude-code": "claude-code", "codex": "codex",
				"gemini": "gemini", "copilot": "copilot", "cursor": "cursor", "opencode": "opencode"}[o.harness]
			if harness == "" {
				return cli.FlagErrorf("--harness must be claude, codex, gemini, copilot, cursor or opencode (got %q)", o.harness)
			}
			ix, err := a.openIndex(cmd.Context(), r)
			if err != nil {
				return err
			}
			defer ix.Close()
			start := time.Now()
			res, err := recall.Recall(cmd.Context(), r, ix, recall.Request{
				Harness: harness, Session: o.session, Cwd: cwd, Prompt: o.prompt, DryRun: true,
			})
			if err != nil {
				return err
			}
			if res.Note != "" {
				fmt.Fprintf(a.Stderr, "reflect: %s\n", res.Note)
			}
			if a.JSON() {
				out := map[string]any{"kind": res.Kind, "project": res.Project, "terms": cli.NonNil(res.Terms),
					"injected": cli.NonNil(res.IDs()), "additional_context": res.Text, "source": res.Source}
				if o.explain {
					out["candidates"] = res.Candidates
				}
				return a.PrintJSON(out)
			}
			if o.explain {
				a.explain(res, time.Since(start))
			}
			if res.Text == "" {
				fmt.Fprintln(a.Stderr, "nothing to inject")
				return nil
			}
			fmt.Fprintln(a.Stdout, printable.String(res.Text))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cwd, "cwd", "", "the directory the agent works in (default: this one)")
	f.StringVar(&o.prompt, "prompt", "", "the user's prompt (default: a session start)")
	f.StringVar(&o.session, "session", "", "leave out what this session was already given")
	f.StringVar(&o.harness, "harness", "claude", "the host whose session --session names: claude, codex, gemini, copilot, cursor or opencode")
	f.BoolVar(&o.explain, "explain", false, "say why each candidate was kept or dropped")
	return cmd
}

func (a *app) explain(res *recall.Result, took time.Duration) {
	w := printable.Writer(a.Stderr) // titles and bodies may have come from a remote
	fmt.Fprintf(w, "%s recall for %s, %s\n", res.Kind, res.Project, took.Round(100*time.Microsecond))
	for _, tp := range res.Topics {
		var terms []string
		for _, t := range tp.Terms {
			s := t.Word
			if len(t.Parts) > 0 {
				s += " (" + strings.Join(t.Parts, " ") + ")"
			}
			for _, f := range t.Forms[1:] {
				s += " = " + strings.Join(f, " ")
			}
			terms = append(terms, s)
		}
		fmt.Fprintf(w, "%s: %s\n", tp.Kind, strings.Join(terms, ", "))
		for _, p := range tp.Phrases {
			fmt.Fprintf(w, "  %s phrase: %s\n", p.Kind, cli.Truncate(p.Text, 90))
		}
	}
	if len(res.Candidates) == 0 {
		fmt.Fprintln(w, "no candidates")
	}
	for _, c := range res.Candidates {
		mark := "drop"
		if c.Kept {
			mark = "KEEP"
		}
		fmt.Fprintf(w, "%s %s %s\n", mark, c.ID, cli.Truncate(c.Title, 70))
		fmt.Fprintf(w, "     %s: %s\n", c.Rule, c.Why)
		var ms []string
		for _, m := range c.Matches {
			s := m.Said
			if m.Found != "" {
				s += " → " + m.Found
			}
			ms = append(ms, fmt.Sprintf("%s [%s %.2f×%.1f]", s, m.Kind, m.Weight, m.Strength))
		}
		fmt.Fprintf(w, "     %s · coverage %.0f%% · rarity %.2f · score %.2f (%.0f%% of its topic's best)\n",
			c.Topic, 100*c.Coverage, c.Rarity, c.Final, 100*c.Relative)
		if len(ms) > 0 {
			fmt.Fprintf(w, "     matched: %s\n", strings.Join(ms, ", "))
		}
		if c.Freshness.State != "" {
			fmt.Fprintf(w, "     files: %s %s\n", c.Freshness.State, c.Freshness.Note())
		}
	}
	fmt.Fprintln(w)
}
