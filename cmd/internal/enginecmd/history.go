package enginecmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/history"
	"github.com/reflect-memory/reflect/history/watch"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/opencode"
	"github.com/reflect-memory/reflect/workspace"
)

func (a *app) historyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Find what happened in past agent sessions, with the evidence",
		Long: `Session history is a local archive of your Claude Code, Codex, Gemini CLI, Copilot CLI and
Cursor transcripts, kept under
.git/reflect/history of the knowledge repository: never committed, never synced, secrets
redacted before anything is written. The Stop hook adds each session as it goes;
'reflect history import' reads the hosts' folders.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.historyImportCmd(), a.historySearchCmd(), a.historyRecentCmd())
	return cmd
}

func (a *app) historyImportCmd() *cobra.Command {
	var (
		claude, codex, transcript string
		gemini, copilot, cursor   string
		sinceDays, limitFiles     int
		all                       bool
		watchFor                  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Read new transcripts into the session history (incremental)",
		Long: `Reads the transcripts of Claude Code ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects,
subagents included), Codex ($CODEX_HOME/sessions, else ~/.codex/sessions, both formats),
Gemini CLI (~/.gemini/tmp/*/chats), Copilot CLI (~/.copilot/session-state), Cursor
(~/.cursor/projects/*/agent-transcripts) and opencode (its database,
~/.local/share/opencode/opencode.db, mirrored under .git/reflect/opencode).
A file read before is read from where the last import stopped; one rewritten since is read
again whole (a Gemini CLI session is read whole, and only the messages it changed are stored
again). Files that cannot be used are listed with the reason.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all && cmd.Flags().Changed("since-days") {
				return cli.FlagErrorf("--since-days and --all-history cannot be used together")
			}
			if sinceDays < 1 {
				return cli.FlagErrorf("--since-days must be at least 1 (or --all-history)")
			}
			if limitFiles < 0 {
				return cli.FlagErrorf("--limit-files must not be negative")
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			// the Stop hook runs this detached, with no stderr: warnings also go to the
			// repository's log
			o := history.ImportOptions{LimitFiles: limitFiles, LockTimeout: r.Config().Git.LockTimeout.Std(),
				Progress: a.progress("importing transcripts"),
				Log:      slog.New(slog.NewMultiHandler(a.Log.Handler(), hooks.OpenLog(r).Handler()))}
			if transcript != "" {
				o.Files = []string{transcript}
			} else {
				if o.ClaudeDir, err = hostDir(claude, install.Claude, "projects"); err != nil {
					return err
				}
				if o.CodexDir, err = hostDir(codex, install.Codex, "sessions"); err != nil {
					return err
				}
				if o.GeminiDir, err = hostDir(gemini, install.Gemini, "tmp"); err != nil {
					return err
				}
				if o.CopilotDir, err = hostDir(copilot, install.Copilot, "session-state"); err != nil {
					return err
				}
				if o.CursorDir, err = hostDir(cursor, install.Cursor, "projects"); err != nil {
					return err
				}
				o.OpencodeMirrors = filepath.Join(r.StateDir(), "opencode")
				o.OpencodeDB, o.OpencodeStorage = opencode.DBPath(), opencode.StorageDir()
				if !all {
					o.Since = time.Now().Add(-time.Duration(sinceDays) * 24 * time.Hour)
				}
			}
			if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
				// an import allocates much and keeps little: collecting a quarter as often
				// made it a fifth faster (BenchmarkImport), and the soft limit keeps the
				// heap that this lets grow under 256 MB
				debug.SetGCPercent(400)
				debug.SetMemoryLimit(256 << 20)
			}
			if watchFor > 0 && transcript != "" {
				// the Stop hook's importer stays for the session's next turns (package watch)
				watched, err := a.watchTranscript(cmd.Context(), r, transcript, watchFor, o)
				if watched {
					return nil
				}
				if err != nil {
					// the watch could not begin (its locks): the turn is imported all the same
					o.Log.Warn("history import: cannot watch the session", "transcript", transcript, "err", err)
				}
			}
			rep, err := history.At(r.StateDir()).Import(cmd.Context(), o)
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(rep)
			}
			rep.WriteText(a.Stdout)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&claude, "claude", "", "Claude Code's projects folder (default $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)")
	f.StringVar(&codex, "codex", "", "Codex's sessions folder (default $CODEX_HOME/sessions, else ~/.codex/sessions)")
	f.StringVar(&gemini, "gemini", "", "Gemini CLI's tmp folder (default ~/.gemini/tmp)")
	f.StringVar(&copilot, "copilot", "", "Copilot CLI's session-state folder (default $COPILOT_HOME/session-state, else ~/.copilot/session-state)")
	f.StringVar(&cursor, "cursor", "", "Cursor's projects folder (default ~/.cursor/projects)")
	f.IntVar(&sinceDays, "since-days", 30, "only transcripts changed in the last N days")
	f.BoolVar(&all, "all-history", false, "every transcript, however old")
	f.IntVar(&limitFiles, "limit-files", 0, "read at most N new or changed files, newest first (0: all)")
	f.StringVar(&transcript, "transcript", "", "read only this transcript (what the Stop hook runs)")
	f.DurationVar(&watchFor, "watch", 0, "with --transcript: stay, importing the transcript again whenever a Stop hook pokes, until this long passes without one (what the Stop hook runs; history.watch)")
	return cmd
}

// watchTranscript imports transcript, then again at every poke of a Stop hook of its session,
// until idle passes without one or a signal asks it to stop (it finishes the import under way).
// watched is false when another importer watches the transcript already: nothing was done.
func (a *app) watchTranscript(ctx context.Context, r *gitstore.Repo, transcript string, idle time.Duration, o history.ImportOptions) (bool, error) {
	stop, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
	defer cancel()
	// the hook started it in the agent's project: staying there for minutes would keep that
	// directory busy (a drive that will not unmount, a folder Windows will not delete)
	if abs, err := filepath.Abs(transcript); err == nil {
		o.Files = []string{abs}
		os.Chdir(r.StateDir())
	}
	imp := func() error {
		_, err := history.At(r.StateDir()).Import(ctx, o)
		// what an import allocated goes back to the system while the watch waits
		debug.FreeOSMemory()
		return err
	}
	failed := func(err error) { o.Log.Warn("history import", "transcript", transcript, "err", err) }
	return watch.Watch(stop, r.StateDir(), transcript, idle, imp, failed)
}

// hostDir is flag when set, else the host's folder of transcripts.
func hostDir(flag, harness, sub string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	home, err := install.HostHome(harness)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, sub), nil
}

func (a *app) historySearchCmd() *cobra.Command {
	q := history.NewQuery("")
	var project string
	cmd := &cobra.Command{
		Use:   "search QUERY…",
		Short: "Find past sessions by a needle and show the messages around each hit",
		Long: `Finds the messages of past sessions that hold the words of QUERY and shows, per session,
windows of the original messages around the best hits: prompts, replies, tool calls with
their input and output. a|b matches either alternative; a plain query of several words
needs all of them, then (unless --all-terms) any; "a phrase" is found as written. Chinese,
Japanese and Korean text is found by substring. The scope is the current directory's
project (its clones and worktrees included) unless --global or --project.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.FlagErrorf("search needs a query, e.g. reflect history search 'ECONNREFUSED|connection refused'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			for _, c := range []struct {
				name string
				v    int
				min  int
			}{{"limit", q.Limit, 1}, {"windows-per-session", q.WindowsPerSession, 1}, {"before", q.Before, 0}, {"after", q.After, 0},
				{"message-chars", q.MessageChars, 20}, {"tool-message-chars", q.ToolMessageChars, 20}, {"budget-chars", q.BudgetChars, 100}} {
				if c.v < c.min {
					return cli.FlagErrorf("--%s must be at least %d (got %d)", c.name, c.min, c.v)
				}
			}
			if q.Global && project != "" {
				return cli.FlagErrorf("--global and --project cannot be used together")
			}
			if !q.Global {
				q.Project = project
				if project == "" {
					q.Project = currentProject()
				} else if err := learnings.ValidProjectKey(project); err != nil {
					return cli.FlagErrorf("--project: %v", err)
				}
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			q.LockTimeout = r.Config().Git.LockTimeout.Std()
			res, err := history.At(r.StateDir()).Search(cmd.Context(), q)
			if errors.Is(err, history.ErrEmpty) {
				return a.emptyHistory(err, map[string]any{"query": q.Text, "results": []any{}, "note": err.Error()})
			}
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(res)
			}
			res.WriteText(printable.Writer(a.Stdout)) // a transcript may hold any byte a tool printed
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&q.AllTerms, "all-terms", false, "a query of several words needs all of them (no fallback to any)")
	f.BoolVar(&q.Global, "global", false, "search the sessions of every project")
	f.StringVar(&project, "project", "", "search the sessions of this project key")
	f.BoolVar(&q.Recent, "recent", false, "newest sessions first, instead of the most hits")
	f.IntVar(&q.Limit, "limit", q.Limit, "sessions shown")
	f.IntVar(&q.WindowsPerSession, "windows-per-session", q.WindowsPerSession, "evidence windows per session")
	f.IntVar(&q.Before, "before", q.Before, "messages shown before a hit")
	f.IntVar(&q.After, "after", q.After, "messages shown after a hit")
	f.IntVar(&q.MessageChars, "message-chars", q.MessageChars, "longest prompt or reply shown (the middle is cut)")
	f.IntVar(&q.ToolMessageChars, "tool-message-chars", q.ToolMessageChars, "longest tool input or output shown")
	f.IntVar(&q.BudgetChars, "budget-chars", q.BudgetChars, "characters of messages shown in all")
	return cmd
}

func (a *app) historyRecentCmd() *cobra.Command {
	var (
		global  bool
		project string
		limit   int
	)
	cmd := &cobra.Command{
		Use:   "recent",
		Short: "The latest sessions of this project, each with its first prompt",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return cli.FlagErrorf("--limit must be at least 1")
			}
			if global && project != "" {
				return cli.FlagErrorf("--global and --project cannot be used together")
			}
			if project == "" {
				project = currentProject()
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			sessions, err := history.At(r.StateDir()).Recent(cmd.Context(), project, global, limit)
			if errors.Is(err, history.ErrEmpty) {
				return a.emptyHistory(err, []any{})
			}
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(sessions)
			}
			if len(sessions) == 0 {
				fmt.Fprintf(a.Stderr, "no session of %s in the history (--global lists every project's)\n", project)
				return nil
			}
			history.WriteRecent(printable.Writer(a.Stdout), sessions) // a first prompt may hold any byte
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&global, "global", false, "sessions of every project")
	f.StringVar(&project, "project", "", "sessions of this project key")
	f.IntVar(&limit, "limit", 10, "sessions listed")
	return cmd
}

// currentProject is the project key of the working directory, as learnings and sessions
// are filed (the global scope outside git).
func currentProject() string {
	wd, err := os.Getwd()
	if err != nil {
		return learnings.Global
	}
	w, _ := workspace.Read(wd, 0)
	return w.Project
}

// emptyHistory answers a search or a listing when nothing was imported yet: not a failure
// (exit 0), but said on stderr, and with --format json an empty answer.
func (a *app) emptyHistory(err error, empty any) error {
	fmt.Fprintf(a.Stderr, "reflect: %v\n", err)
	if a.JSON() {
		return a.PrintJSON(empty)
	}
	return nil
}
