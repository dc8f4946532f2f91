package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/provenance"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
)

// App is what every command shares: the streams, the global flags and the repository.
type App struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Home           string // --home
	Format         string // --format: text or json
	Verbose        bool
	Log            *slog.Logger
	NoBackground   bool // start no detached process (the demo removes its home when done)
	// Engine is the engine's part of the command tree; see Engine.
	Engine Engine
	argv   []string // the command line Main runs (nil: os.Args[1:])
}

// Engine is what reflect-engine adds to the command tree this package defines: the commands
// that need the search engine (bleve), sqlite or the MCP SDK, and the hooks' recall. The lean
// reflect has none and hands those commands to reflect-engine (handoff.go); the two binaries
// share this one tree, so that help, flags, errors and exit codes are the same whichever
// runs a command.
type Engine interface {
	// Commands adds the engine's commands to root, beside (or under) this package's.
	Commands(a *App, root *cobra.Command)
	// Hooks is the hooks' engine (hooks.Engine), which answers the recall events in process.
	Hooks() *hooks.Engine
}

// Main runs reflect with os.Args and returns the process exit code. engine is nil in the lean
// reflect.
func Main(engine Engine) int {
	// A capture allocates a few MB and exits within milliseconds; at Go's default the first
	// collection starts at 4 MB and cost ~1 ms of every capture. Eight times the headroom
	// lets short commands finish without collecting while long ones still collect in
	// proportion. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	// ... and a soft limit keeps that headroom from growing a long command's heap to nine
	// times what it holds: a provenance rebuild over 1,000 commits of a 10,000-learning
	// memory reached 1.0 GB of RSS without it (~170 MB live), 0.27 GB with it.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
	a := &App{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Engine: engine, argv: os.Args[1:]}
	if engine == nil && engineline.Runs(a.argv) {
		// reflect-engine's command, handed over before this tree is even built (0.3 ms less on
		// every hand-off); shell completion too, since the engine's tree has every flag
		return a.exit(nil, a.handOff())
	}
	cmd := a.treeFor(engineline.Words(a.argv))
	cmd.SetArgs(a.argv)
	ran, err := cmd.ExecuteContextC(context.Background())
	return a.exit(ran, err)
}

// Sub is an App of the same binary on other streams that starts no detached process (the
// demo runs commands in process with it).
func (a *App) Sub(stdin io.Reader, stdout, stderr io.Writer) *App {
	return &App{Stdin: stdin, Stdout: stdout, Stderr: stderr, NoBackground: true, Engine: a.Engine}
}

// RootCmd is the command tree: this package's commands, then the engine's or, in the lean
// reflect, the entries that hand them to reflect-engine.
func (a *App) RootCmd() *cobra.Command {
	root := a.bareRoot()
	for _, c := range ownCommands {
		root.AddCommand(c.make(a))
	}
	if a.Engine != nil {
		a.Engine.Commands(a, root)
	} else {
		a.handOffCommands(root)
	}
	return grouped(root)
}

// ownCommands are this package's top-level commands, by the name each is run by
// (TestOwnCommandNames holds the names to the commands).
var ownCommands = []struct {
	name string
	make func(*App) *cobra.Command
}{
	{"init", (*App).initCmd}, {"add", (*App).addCmd}, {"list", (*App).listCmd}, {"show", (*App).showCmd},
	{"edit", (*App).editCmd}, {"archive", (*App).archiveCmd}, {"supersede", (*App).supersedeCmd},
	{"version", (*App).versionCmd}, {"internal", (*App).internalCmd}, {"hook", (*App).hookCmd},
	{"queue", (*App).queueCmd}, {"install", (*App).installCmd}, {"uninstall", (*App).uninstallCmd},
	{"statusline", (*App).statuslineCmd}, {"sync", (*App).syncCmd}, {"remote", (*App).remoteCmd},
	{"config", (*App).configCmd}, {"new", (*App).newCmd}, {"fmt", (*App).fmtCmd}, {"stale", (*App).staleCmd},
	{"handoff", (*App).handoffCmd}, {"team", (*App).teamCmd}, {"promote", (*App).promoteCmd},
	{"export", (*App).exportCmd},
}

// treeFor is the tree a process whose command line has these words (flags aside) runs: the
// root and the one command the first word names, when it is one of this package's and no
// engine command lives under it; else the whole tree (help, completion, a mistyped word,
// whose suggestions need every name). Building every command took 0.12 ms of each hook
// process (~4% of it, instrumented Stop hook), 0.02 ms with the hook command alone.
func (a *App) treeFor(words []string) *cobra.Command {
	if len(words) == 0 {
		return a.RootCmd()
	}
	for _, ec := range engineline.Commands {
		if strings.HasPrefix(ec.Path, words[0]+" ") {
			return a.RootCmd()
		}
	}
	for _, c := range ownCommands {
		if c.name == words[0] {
			root := a.bareRoot()
			root.AddCommand(c.make(a))
			return grouped(root)
		}
	}
	return a.RootCmd()
}

// grouped gives every command under root that only groups others an argument check: a word
// that names no subcommand is a usage error, typed as every other one (not cobra's plain
// error).
func grouped(root *cobra.Command) *cobra.Command {
	var group func(c *cobra.Command)
	group = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.HasSubCommands() && sub.Args == nil {
				sub.Args = func(cmd *cobra.Command, args []string) error {
					if len(args) > 0 {
						return FlagErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
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

// bareRoot is the root command with its flags and no subcommand.
func (a *App) bareRoot() *cobra.Command {
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
				return FlagErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			if a.Verbose || os.Getenv("REFLECT_DEBUG") == "1" {
				level = slog.LevelDebug
			}
			a.Log = slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: level}))
			if a.Format != "text" && a.Format != "json" && !isHook(cmd) { // a hook prints what its host reads
				return FlagErrorf("--format must be text or json (got %q)", a.Format)
			}
			return nil
		},
	}
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.Home, "home", "", "knowledge repository (default $REFLECT_HOME, else ~/.reflect)")
	pf.StringVar(&a.Format, "format", "text", "output format: text or json")
	pf.BoolVarP(&a.Verbose, "verbose", "v", false, "log what reflect does to stderr")
	return root
}

// HomeDir resolves the knowledge repository: --home, else $REFLECT_HOME, else ~/.reflect.
func (a *App) HomeDir() (string, error) {
	h := a.Home
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

// Repo opens the knowledge repository for a command, which refuses to run on settings that do
// not load (exit 6, naming the file, line and key).
func (a *App) Repo() (*gitstore.Repo, error) { return a.openRepo(false) }

// RepoToMend opens the knowledge repository even when its settings do not load, with the
// defaults for the bad file's keys: sync must still pull the fix, config still mend the file.
func (a *App) RepoToMend() (*gitstore.Repo, error) { return a.openRepo(true) }

func (a *App) openRepo(lenient bool) (*gitstore.Repo, error) {
	h, err := a.HomeDir()
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
	if removed, clear := r.RemovedSettings(); len(removed) > 0 && (a.IsTerminal(a.Stderr) || split != nil && split.Remote) {
		fmt.Fprintf(a.Stderr, "reflect: reflect.toml set %s, which are local to each machine: removed and not carried over, since this memory has a remote and whoever can push to it writes reflect.toml; set the ones you chose with reflect config set KEY VALUE (reflect config list shows what holds now)\n",
			strings.Join(removed, ", "))
		if a.IsTerminal(a.Stderr) {
			if err := clear(); err != nil {
				a.Log.Warn("clear the list of removed settings", "err", err)
			}
		}
	}
	switch {
	case split != nil && split.Remote:
	case split != nil:
		if len(split.Moved) > 0 {
			fmt.Fprintf(a.Stderr, "reflect: %s now live in %s, local to this machine (reflect.toml is synced, so it may no longer choose them); reflect config list shows them\n",
				strings.Join(split.Moved, ", "), r.LocalSettingsPath())
		}
		if len(split.Skipped) > 0 {
			fmt.Fprintf(a.Stderr, "reflect: %s had values this reflect does not accept: dropped from reflect.toml, defaults used\n", strings.Join(split.Skipped, ", "))
		}
	}
	// which learnings arrived by sync: rebuilt from history once, for a clone made before
	// reflect kept the records (or whose records were deleted)
	if err := provenance.Ensure(r, time.Now()); err != nil {
		a.Log.Warn("rebuild the provenance records", "err", err)
	}
	if err := r.SettingsError(); err != nil {
		if !lenient {
			return nil, err
		}
		fmt.Fprintf(a.Stderr, "reflect: %v (using the defaults for that file until it is fixed)\n", err)
	}
	return r, nil
}

func (a *App) JSON() bool { return a.Format == "json" }

// PrintJSON writes v as indented JSON, an empty list as [] (never null).
func (a *App) PrintJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(emptyLists(v))
}

func (a *App) Printf(format string, args ...any) { fmt.Fprintf(a.Stdout, format, args...) }
