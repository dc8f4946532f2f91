package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/provenance"
)

// app is what every command shares: the streams, the global flags and the repository.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	home           string // --home
	format         string // --format: text or json
	verbose        bool
	log            *slog.Logger
	noBackground   bool // start no detached process (the demo removes its home when done)
}

// Main runs reflect with os.Args and returns the process exit code.
func Main() int {
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	cmd := a.rootCmd()
	cmd.SetArgs(os.Args[1:])
	ran, err := cmd.ExecuteContextC(context.Background())
	return a.exit(ran, err)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "reflect",
		Short: "A memory for coding agents, kept in a git repository you own",
		Long: `reflect captures what happens in Claude Code and Codex sessions, turns it into short
markdown learnings, and keeps them in a git repository (default ~/.reflect) that you
review, edit and sync like code.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return flagErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if a.format != "text" && a.format != "json" {
				return flagErrorf("--format must be text or json (got %q)", a.format)
			}
			level := slog.LevelWarn
			if a.verbose || os.Getenv("REFLECT_DEBUG") == "1" {
				level = slog.LevelDebug
			}
			a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
			return nil
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &flagError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.home, "home", "", "knowledge repository (default $REFLECT_HOME, else ~/.reflect)")
	pf.StringVar(&a.format, "format", "text", "output format: text or json")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "log what reflect does to stderr")
	root.AddCommand(
		a.initCmd(), a.addCmd(), a.listCmd(), a.showCmd(), a.editCmd(),
		a.archiveCmd(), a.supersedeCmd(), a.versionCmd(), a.demoCmd(), a.internalCmd(),
		a.hookCmd(), a.queueCmd(), a.installCmd(), a.uninstallCmd(), a.statuslineCmd(),
		a.searchCmd(), a.reindexCmd(), a.recallCmd(), a.drainCmd(), a.statusCmd(), a.syncCmd(), a.remoteCmd(),
		a.doctorCmd(), a.historyCmd(), a.configCmd(), a.newCmd(), a.fmtCmd(), a.staleCmd(),
		a.mcpCmd(),
		a.handoffCmd(),
		a.viewCmd(),
		a.teamCmd(), a.promoteCmd(), a.exportCmd(),
	)
	// a command that only groups others takes no argument of its own: a word that names no
	// subcommand is a usage error, typed as every other one (not cobra's plain error)
	var group func(c *cobra.Command)
	group = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.HasSubCommands() && sub.Args == nil {
				sub.Args = func(cmd *cobra.Command, args []string) error {
					if len(args) > 0 {
						return flagErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
					}
					return nil
				}
			}
			group(sub)
		}
	}
	group(root)
	return root
}

// homeDir resolves the knowledge repository: --home, else $REFLECT_HOME, else ~/.reflect.
func (a *app) homeDir() (string, error) {
	h := a.home
	if h == "" {
		h = os.Getenv("REFLECT_HOME")
	}
	if h == "" {
		u, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find your home directory; set REFLECT_HOME or --home: %w", err)
		}
		h = filepath.Join(u, ".reflect")
	}
	return filepath.Abs(h)
}

// repo opens the knowledge repository for a command, which refuses to run on settings that do
// not load (exit 6, naming the file, line and key).
func (a *app) repo() (*gitstore.Repo, error) { return a.openRepo(false) }

// repoToMend opens the knowledge repository even when its settings do not load, with the
// defaults for the bad file's keys: sync must still pull the fix, config still mend the file.
func (a *app) repoToMend() (*gitstore.Repo, error) { return a.openRepo(true) }

func (a *app) openRepo(lenient bool) (*gitstore.Repo, error) {
	h, err := a.homeDir()
	if err != nil {
		return nil, err
	}
	r, err := gitstore.Open(h)
	if err != nil {
		return nil, err
	}
	split, err := r.SplitSettings(context.Background())
	if err != nil {
		return nil, err
	}
	if split != nil && len(split.Moved)+len(split.Skipped) > 0 {
		fmt.Fprintf(a.stderr, "reflect: %s now live in %s, local to this machine (reflect.toml is synced, so it may no longer choose them); reflect config list shows them\n",
			strings.Join(split.Moved, ", "), r.LocalSettingsPath())
		if len(split.Skipped) > 0 {
			fmt.Fprintf(a.stderr, "reflect: %s had values this reflect does not accept: dropped from reflect.toml, defaults used\n", strings.Join(split.Skipped, ", "))
		}
	}
	// which learnings arrived by sync: rebuilt from history once, for a clone made before
	// reflect kept the records (or whose records were deleted)
	if err := provenance.Ensure(r, time.Now()); err != nil {
		a.log.Warn("rebuild the provenance records", "err", err)
	}
	if err := r.SettingsError(); err != nil {
		if !lenient {
			return nil, err
		}
		fmt.Fprintf(a.stderr, "reflect: %v (using the defaults for that file until it is fixed)\n", err)
	}
	return r, nil
}

func (a *app) json() bool { return a.format == "json" }

// printJSON writes v as indented JSON, an empty list as [] (never null).
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(emptyLists(v))
}

func (a *app) printf(format string, args ...any) { fmt.Fprintf(a.stdout, format, args...) }
