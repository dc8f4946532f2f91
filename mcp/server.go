package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// Options configure a server.
type Options struct {
	// Repo is the knowledge repository, already opened (and its settings checked) by the
	// command; the server opens Repo.Root() again when HEAD moves.
	Repo *gitstore.Repo
	// Cwd is the directory the agent works in: its project is the default scope.
	Cwd string
	// Version is reflect's, reported to the client.
	Version string
	// CallTimeout bounds one tool call, a busy repository's retries included (default 10 s).
	CallTimeout time.Duration
	// Log receives what went wrong (never stdout: it carries the protocol).
	Log *slog.Logger
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// Server is reflect's MCP server.
type Server struct {
	o       Options
	sdk     *sdk.Server
	project string // the project of o.Cwd

	mu   sync.Mutex // one call at a time: calls are short, and a write must see the one before
	repo *gitstore.Repo
	head string // the HEAD repo was opened at

	// a missing index is built in the background while calls scan git
	bmu      sync.Mutex
	building bool
	build    sync.WaitGroup
	stop     context.CancelFunc
	stopCtx  context.Context
}

// defaultCallTimeout leaves room under Codex's default tool_timeout_sec (60) and Claude
// Code's, while a write waits out a drain's commit (git.lock_timeout is 10 s).
const defaultCallTimeout = 10 * time.Second

// instructions are what Codex shows the model first (its first 512 characters count).
const instructions = `reflect is this user's memory of past coding sessions: short learnings (fixes, rules, decisions, preferences) kept in a git repository, and the archive of past sessions. Before a task, call memory_recall with what you are about to do; to look something up, memory_search (short hits), then memory_get for the few you need whole. When the user states a lasting rule or you find a fix worth keeping, memory_remember it. history_search shows what happened in past sessions, as evidence.`

// New builds the server and its tools.
func New(o Options) (*Server, error) {
	if o.Repo == nil {
		return nil, errors.New("mcp: no repository")
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = defaultCallTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{o: o, repo: o.Repo, project: learnings.Global}
	s.stopCtx, s.stop = context.WithCancel(context.Background())
	if o.Cwd != "" {
		if w, err := workspace.Read(o.Cwd, 0); err == nil || w.Project != "" {
			s.project = w.Project
		}
	}
	if h, err := o.Repo.Head(); err == nil {
		s.head = h.String()
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "reflect", Title: "reflect memory", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: o.Log, Capabilities: &sdk.ServerCapabilities{}})
	s.addTools()
	return s, nil
}

// Run serves one client over t (stdin and stdout for `reflect mcp`) until it hangs up.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	err := s.sdk.Run(ctx, t)
	s.stop()
	s.build.Wait() // a build cut short removes its directory
	s.mu.Lock()
	s.repo.Close()
	s.mu.Unlock()
	return err
}

// Project is the default scope: the project of the directory the server was started in.
func (s *Server) Project() string { return s.project }

// current returns the repository at HEAD: opened again when HEAD moved since the last call,
// so a pack that a sync fetched, or settings it changed, are seen. Called under s.mu.
func (s *Server) current() (*gitstore.Repo, error) {
	h, err := s.repo.Head()
	if err != nil {
		return nil, err
	}
	if h.String() == s.head {
		return s.repo, nil
	}
	r, err := gitstore.Open(s.repo.Root())
	if err != nil {
		return nil, err
	}
	if err := r.SettingsError(); err != nil {
		return nil, fmt.Errorf("reflect's settings do not load (%v); the user should run reflect doctor", err)
	}
	s.repo.Close() // its open pack files: a long session reopens after every capture
	s.repo, s.head = r, h.String()
	return r, nil
}

// openIndex opens the index for one call: fresh, or caught up with HEAD, or (when a writer
// holds it) a scan of git that says so. It never builds one inline, as a command does: at
// 100,000 learnings that outlasts a call's deadline, and a build cut short by each call would
// never end. Without an index, a call starts the build in the background (one at a time; a
// failed one is tried again by the next call) and calls scan git until it is there.
func (s *Server) openIndex(ctx context.Context, r *gitstore.Repo) (*index.Index, error) {
	ix, err := index.Open(ctx, r, index.Options{LockTimeout: r.Config().Git.LockTimeout.Std(), NoBuild: true})
	if err != nil || !ix.NeedsBuild {
		return ix, err
	}
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.building || s.stopCtx.Err() != nil {
		return ix, nil
	}
	s.building = true
	s.build.Add(1)
	go func() {
		defer s.build.Done()
		br, err := gitstore.Open(r.Root())
		if err == nil {
			_, err = index.Rebuild(s.stopCtx, br, index.Options{LockTimeout: br.Config().Git.LockTimeout.Std()})
			br.Close()
		}
		s.o.Log.Info("built the index in the background", "err", err)
		s.bmu.Lock()
		s.building = false
		s.bmu.Unlock()
	}()
	return ix, err
}

// tool wraps a tool's handler: one call at a time, under the call's deadline, on the
// repository at HEAD; a busy repository is retried until the deadline; a panic becomes a
// tool error and a log line instead of the end of the server.
func tool[In, Out any](s *Server, name string, fn func(ctx context.Context, r *gitstore.Repo, in In) (Out, error)) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (_ *sdk.CallToolResult, out Out, err error) {
		ctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
		defer cancel()
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				s.o.Log.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				err = fmt.Errorf("%s failed inside reflect (%v); this is a bug: the server goes on", name, p)
			}
			if err != nil {
				s.o.Log.Info("tool error", "tool", name, "err", err, "took", time.Since(start))
			}
		}()
		s.mu.Lock()
		defer s.mu.Unlock()
		b := backoff.WithContext(backoff.NewExponentialBackOff(backoff.WithInitialInterval(50*time.Millisecond), backoff.WithMaxElapsedTime(0)), ctx)
		err = backoff.Retry(func() error {
			r, err := s.current()
			if err != nil {
				return backoff.Permanent(err)
			}
			out, err = fn(ctx, r, in)
			if err != nil && !errors.Is(err, lockfile.ErrBusy) {
				return backoff.Permanent(err)
			}
			return err
		}, b)
		if err != nil {
			var zero Out
			return nil, zero, explain(err, ctx)
		}
		return nil, out, nil
	}
}

// explain turns an error into what a model can act on.
func explain(err error, ctx context.Context) error {
	var amb *learnings.AmbiguousIDError
	var fe *learnings.FieldError
	switch {
	case errors.Is(err, lockfile.ErrBusy) || errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the memory is busy (another reflect process holds it); nothing was changed: try again in a few seconds (%v)", err)
	case errors.As(err, &amb):
		return fmt.Errorf("%v; pass the whole id that memory_search returned", err)
	case errors.Is(err, learnings.ErrUnknownID):
		return fmt.Errorf("%v; search first with memory_search and pass an id it returned", err)
	case errors.As(err, &fe):
		return fmt.Errorf("invalid learning: %v; nothing was saved", err)
	case errors.Is(err, gitstore.ErrNotInitialised):
		return fmt.Errorf("%v; the user should run reflect init", err)
	}
	return err
}

// argError is a bad argument, said the way a model can fix it.
func argError(field, format string, args ...any) error {
	return fmt.Errorf("argument %s: %s", field, fmt.Sprintf(format, args...))
}
