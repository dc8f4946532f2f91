package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/agentsmd"
	"github.com/reflect-memory/reflect/cmd/internal/engineline"
	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	memsync "github.com/reflect-memory/reflect/sync"
	"github.com/reflect-memory/reflect/team"
)

// Exit codes. Every user-facing failure maps to one of these here, and only here.
const (
	exitOK        = 0
	exitError     = 1  // anything unexpected
	exitUsage     = 2  // bad flags or arguments
	exitNoRepo    = 3  // no knowledge repository: run reflect init
	exitNotFound  = 4  // unknown or ambiguous id
	exitBusy      = 5  // another process held the repository too long
	exitInvalid   = 6  // invalid learning, settings or edit; uncommitted changes in the way; a file the remote holds refused; a promotion holding a secret; an AGENTS.md block out of date (export --check)
	exitRemote    = 7  // the remote refused, could not be reached, timed out or has no main; every local commit is kept
	exitUnhealthy = 8  // reflect doctor found a problem that stops reflect from working
	exitWrite     = 9  // the repository's disk refused a write (full, over quota, read-only); nothing is lost
	exitNoEngine  = 10 // the command needs reflect-engine, which is not installed beside reflect
)

// ErrUnhealthy is what reflect doctor returns after reporting a setup with an error finding.
var ErrUnhealthy = errors.New("unhealthy")

// FlagError is a usage mistake: a bad flag, a missing argument.
type FlagError struct{ err error }

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

func FlagErrorf(format string, args ...any) error { return &FlagError{fmt.Errorf(format, args...)} }

// SilentError carries an exit code for a failure already reported to the user.
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

func ExitCode(err error) int {
	var (
		fe  *FlagError
		se  *SilentError
		le  *learnings.FieldError
		ce  *config.Error
		de  *gitstore.DirtyError
		we  *gitstore.WriteError
		amb *learnings.AmbiguousIDError
		sx  *install.SyntaxError
		fs  *install.ForeignServerError
		rf  *memsync.RefusedError
		sec *team.SecretError
		me  *agentsmd.MarkerError
		ne  *NoEngineError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &se):
		return se.Code
	case errors.As(err, &fe), errors.Is(err, team.ErrName):
		return exitUsage
	case errors.Is(err, gitstore.ErrNotInitialised):
		return exitNoRepo
	case errors.As(err, &we):
		return exitWrite
	case errors.Is(err, learnings.ErrUnknownID), errors.As(err, &amb), errors.Is(err, queue.ErrUnknownEntry),
		errors.Is(err, handoff.ErrNone), errors.Is(err, team.ErrUnknown):
		return exitNotFound
	case errors.Is(err, lockfile.ErrBusy):
		return exitBusy
	case errors.Is(err, memsync.ErrAuth), errors.Is(err, memsync.ErrNetwork), errors.Is(err, memsync.ErrNoRemote), errors.Is(err, memsync.ErrNoMain):
		return exitRemote
	case errors.As(err, &le), errors.As(err, &ce), errors.As(err, &de), errors.Is(err, learnings.ErrChanged), errors.As(err, &sx), errors.As(err, &rf), errors.As(err, &fs),
		errors.As(err, &sec), errors.Is(err, team.ErrExists), errors.Is(err, team.ErrNothing),
		errors.Is(err, agentsmd.ErrStale), errors.As(err, &me):
		return exitInvalid
	case errors.Is(err, ErrUnhealthy):
		return exitUnhealthy
	case errors.As(err, &ne):
		return exitNoEngine
	default:
		return exitError
	}
}

// exit prints err (once) and returns its exit code. A usage error names the help of the
// command that was run (ran, which cobra found even when its flags did not parse).
func (a *App) exit(ran *cobra.Command, err error) int {
	if a.hookRun(ran) {
		// whatever went wrong before its handler ran (a flag a newer plugin passes, a bad
		// --format): a hook never fails its agent, and Claude Code and Gemini CLI block on 2
		if err != nil && a.Verbose {
			fmt.Fprintf(a.Stderr, "reflect hook: nothing done: %s\n", printable.String(err.Error()))
		}
		return exitOK
	}
	code := ExitCode(err)
	var se *SilentError
	if err != nil && !errors.As(err, &se) {
		fmt.Fprintf(a.Stderr, "reflect: %s\n", printable.String(err.Error())) // an error may quote a remote's path or author
		if code == exitUsage {
			path := "reflect"
			if ran != nil {
				path = ran.CommandPath()
			}
			fmt.Fprintf(a.Stderr, "Run '%s --help' for usage.\n", path)
		}
	}
	return code
}

// hookRun says whether this run is `reflect hook …`: the command cobra ran, or, when a flag
// before it kept cobra from finding it, the first word of the command line.
func (a *App) hookRun(ran *cobra.Command) bool {
	if isHook(ran) {
		return true
	}
	w := engineline.Words(a.args())
	return (ran == nil || !ran.HasParent()) && len(w) > 0 && w[0] == "hook"
}

// isHook says whether ran is `reflect hook`, whose process exits 0 whatever happens.
func isHook(ran *cobra.Command) bool {
	return ran != nil && ran.Name() == "hook" && ran.HasParent() && !ran.Parent().HasParent()
}
