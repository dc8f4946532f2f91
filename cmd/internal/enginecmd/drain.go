package enginecmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/drain"
	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/hooks/hookengine"
	"github.com/reflect-memory/reflect/hooks/resident"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/queue"
	memsync "github.com/reflect-memory/reflect/sync"
)

type drainOptions struct {
	extractor  string
	max        int
	background bool
}

func (a *app) drainCmd() *cobra.Command {
	var o drainOptions
	cmd := &cobra.Command{
		Use:   "drain [--extractor NAME] [--max N] [--background]",
		Short: "Turn queued sessions into learnings, oldest first, one commit each",
		Long: `Turn queued sessions into learnings: oldest first, under a drain lock (a second drain
exits at once), one commit per entry with its learnings and the entry's removal. An entry
that fails for good moves to queue/failed with the reason (reflect queue retry brings it
back). The extractor is heuristic (offline, built in), claude, codex or command:PATH;
reflect.toml's drain.extractor is the default.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			if o.max < 0 {
				return cli.FlagErrorf("--max must not be negative")
			}
			cfg := r.Config().Drain
			if o.extractor != "" {
				if err := config.CheckExtractor(o.extractor); err != nil {
					return cli.FlagErrorf("--extractor %v", err)
				}
				cfg.Extractor = o.extractor
			}
			if o.background {
				args := []string{"--home", r.Root(), "drain", "--extractor", cfg.Extractor}
				if o.max > 0 {
					args = append(args, "--max", fmt.Sprint(o.max))
				}
				return a.drainBackground(r, args)
			}
			a.runAbandonedLate(cmd.Context(), r)
			rep, err := drain.Run(cmd.Context(), r, drain.Options{Extractor: drain.FromConfig(cfg, drain.LLMOptions{}), Max: o.max, Log: a.Log})
			if errors.Is(err, drain.ErrBusy) {
				fmt.Fprintln(a.Stderr, "reflect: another drain is running; nothing to do")
				return nil
			}
			a.sweepSessions(r)
			// a commit that failed still leaves a report to print; the error comes after it
			var uncommitted *drain.CommitError
			if err != nil && !errors.As(err, &uncommitted) {
				return err
			}
			if sc := r.Config().Sync; sc.Auto && uncommitted == nil && rep.Learned+rep.Merged > 0 && r.Remote(sc.Remote) != "" {
				if _, err := memsync.Sync(cmd.Context(), r, memsync.Options{Remote: sc.Remote}); err != nil {
					fmt.Fprintf(a.Stderr, "reflect: auto sync after the drain: %v\n", err)
				}
			}
			if a.JSON() {
				if perr := a.PrintJSON(rep); perr != nil {
					return perr
				}
				return err
			}
			for _, e := range rep.Entries {
				switch {
				case e.Uncommitted != "":
					a.Printf("%s  not committed, still queued: %s\n", e.ID, e.Uncommitted)
				case e.Requeued != "":
					a.Printf("%s  still queued: %s%s\n", e.ID, e.Requeued, note(e.Note))
				case e.Failed != "":
					a.Printf("%s  failed after %d attempts: %s\n", e.ID, e.Attempts, e.Failed)
				default:
					a.Printf("%s  %d new, %d seen again (%s)%s\n", e.ID, len(e.Learned), len(e.Merged), e.Extractor, note(e.Note))
					if e.Handoff != "" {
						a.Printf("%s  handoff: %s\n", e.ID, handoffNote(e.Handoff))
					}
				}
			}
			a.Printf("drained %d, failed %d, %d new learnings, %d seen again; %d left in the queue\n",
				rep.Drained, rep.Failed, rep.Learned, rep.Merged, rep.Remaining)
			if rep.Stopped != "" {
				a.Printf("stopped: %s\n", rep.Stopped)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.extractor, "extractor", "", "heuristic, claude, codex or command:PATH (default: reflect.toml's drain.extractor)")
	f.IntVar(&o.max, "max", 0, "drain at most N entries (0: all)")
	f.BoolVar(&o.background, "background", false, "drain in a detached process and return at once")
	return cmd
}

// maxLatePerDrain bounds the captures a drain runs again before it drains: each may take up
// to hooks.LateDeadline, and one that keeps failing (its transcript gone) is tried for a day.
const maxLatePerDrain = 5

// runAbandonedLate runs again, before the drain reads the queue they add to, the captures
// handed on at their hook's deadline that no late-hook completed (hooks.AbandonedLate): its
// process could not be started, the machine went down, or it gave up too.
func (a *app) runAbandonedLate(ctx context.Context, r *gitstore.Repo) {
	names, err := hooks.AbandonedLate(r, time.Now())
	if err != nil {
		a.Log.Warn("list the captures handed on", "err", err)
	}
	for i, name := range names {
		if ctx.Err() != nil || i == maxLatePerDrain {
			return // the rest wait for the next drain
		}
		if err := a.RunLate(ctx, r.Root(), name); err != nil {
			fmt.Fprintf(a.Stderr, "reflect: %v\n", err)
		}
	}
}

// sweepSessions removes what sessions left on this machine longer ago than recall.SeenKept
// (hookengine.SweepSessions);
// what it cannot remove is logged and left for the next drain.
func (a *app) sweepSessions(r *gitstore.Repo) {
	if n, err := hookengine.SweepSessions(r, time.Now()); err != nil {
		a.Log.Warn("sweep sessions' state", "swept", n, "err", err)
	} else if n > 0 {
		a.Log.Info("swept sessions' state", "swept", n)
	}
}

// drainBackground starts the drain detached and says so, and where it writes what it does:
// .git/reflect/log/drain.log holds the last background drain's report and warnings.
func (a *app) drainBackground(r *gitstore.Repo, args []string) error {
	logPath := filepath.Join(r.StateDir(), "log", "drain.log")
	pid, err := a.Start(logPath, args...)
	if err != nil {
		return fmt.Errorf("start a drain in the background: %w", err)
	}
	if a.JSON() {
		return a.PrintJSON(struct {
			Started bool   `json:"started"`
			PID     int    `json:"pid"`
			Log     string `json:"log"`
		}{true, pid, logPath})
	}
	a.Printf("Started a drain in the background (pid %d); it writes to %s\n", pid, logPath)
	a.Printf("reflect status shows what it did once it is done.\n")
	return nil
}

func note(s string) string {
	if s == "" {
		return ""
	}
	return " — " + s
}

// statusJSON is `reflect status --format json`.
type statusJSON struct {
	Home     string              `json:"home"`
	Head     string              `json:"head"`
	Queue    int                 `json:"queue"`
	Failed   int                 `json:"failed"`
	Late     int                 `json:"handed_on"` // captures a hook gave up on, not yet run again
	LastRun  *drain.Report       `json:"last_drain,omitempty"`
	Paused   *drainstate.Pause   `json:"paused,omitempty"`
	Usage    drainstate.DayUsage `json:"usage_today"`
	Caps     map[string]int      `json:"caps"`
	Capped   string              `json:"capped,omitempty"`
	Index    index.Status        `json:"index"`
	Extract  string              `json:"extractor"`
	Resident resident.State      `json:"resident"`
	Problems []string            `json:"problems,omitempty"`
}

func (a *app) statusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "The queue, the last drain, LLM usage against its caps, the index, and the resident engine",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			st, err := a.status(r)
			if err != nil {
				return err
			}
			if a.JSON() {
				return a.PrintJSON(st)
			}
			a.Printf("memory   %s at %s\n", st.Home, cli.ShortID(st.Head))
			a.Printf("queue    %d pending, %d failed", st.Queue, st.Failed)
			if st.Late > 0 {
				a.Printf(", %d captures a hook gave up on at its deadline (the next drain runs them again)", st.Late)
			}
			a.Printf("\n")
			if st.LastRun != nil {
				lr := st.LastRun
				a.Printf("drain    last %s (%s): drained %d, failed %d, %d new, %d seen again; %d left", lr.Finished.Local().Format("2006-01-02 15:04"), lr.Extractor, lr.Drained, lr.Failed, lr.Learned, lr.Merged, lr.Remaining)
				if lr.Stopped != "" {
					a.Printf(" (stopped: %s)", lr.Stopped)
				}
				a.Printf("\n")
			} else {
				a.Printf("drain    never ran on this machine\n")
			}
			a.Printf("extract  %s\n", drainstate.Describe(st.Extract))
			if st.Paused != nil {
				a.Printf("PAUSED   LLM draining since %s: %s — fix it, then reflect queue retry\n", st.Paused.Since.Local().Format("2006-01-02 15:04"), st.Paused.Reason)
			}
			caps := drainstate.Caps(r.Config().Drain, st.Usage)
			a.Printf("usage    today %d LLM calls of %s, ~%d input tokens of %s\n", caps[0].Used, caps[0].MaxText(), caps[1].Used, caps[1].MaxText())
			if st.Capped != "" {
				a.Printf("CAPPED   %s\n", st.Capped)
			}
			ix := st.Index
			switch {
			case !ix.Exists:
				a.Printf("index    none yet (the next search builds it)\n")
			case ix.Fresh:
				a.Printf("index    up to date (%d learnings)\n", ix.Learnings)
			default:
				a.Printf("index    behind HEAD by %d changed learnings (the next search catches up)\n", ix.Behind)
			}
			a.Printf("resident %s\n", st.Resident)
			return nil
		},
	}
}

func (a *app) status(r *gitstore.Repo) (*statusJSON, error) {
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	cfg := r.Config().Drain
	st := &statusJSON{Home: r.Root(), Head: head.String(), LastRun: drain.LastDrain(r), Paused: drainstate.Paused(r),
		Usage: drainstate.UsageOn(r, time.Now()), Caps: map[string]int{"calls": cfg.MaxCallsPerDay, "tokens": cfg.MaxTokensPerDay},
		Extract: cfg.Extractor}
	if st.Queue, st.Failed, err = queue.Count(r); err != nil {
		return nil, err
	}
	st.Late = hooks.LateSaved(r)
	st.Capped = drainstate.CapReached(cfg, st.Usage)
	st.Resident = resident.Look(r.StateDir(), r.Config().Recall.Resident.Std())
	st.Index, err = index.Inspect(r)
	return st, err
}

// handoffNote says what a drain did with the handoff's summary: a path means rewritten.
func handoffNote(s string) string {
	if strings.HasPrefix(s, "kept ") {
		return s
	}
	return "summary rewritten in " + s
}
