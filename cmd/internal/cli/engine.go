package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/hooks/resident"
	"github.com/reflect-memory/reflect/install"
)

// reflect is two executables built from one command tree (this package's): reflect, which
// every hook and most commands start, and reflect-engine, which links what reflect does not
// — the search engine (bleve, whose package init alone builds Levenshtein automata for
// 1.9 ms), sqlite, the MCP SDK. A process that links them started in 9.4–9.7 ms; reflect
// starts in ~4 ms, as deja-vu does (docs/ARCHITECTURE.md has the figures). reflect runs the commands of this
// package itself and hands the others, listed in engineline.Commands, to reflect-engine.

// NoEngineError is a command that needs reflect-engine run by a reflect that has none beside
// it (exit 10).
type NoEngineError struct {
	Looked string // where reflect-engine was looked for
	Err    error  // why it could not be built or started, when that was tried
	Found  bool   // it is there but did not start
}

func (e *NoEngineError) Error() string {
	what := fmt.Sprintf("which is not installed beside reflect (looked for %s)", e.Looked)
	if e.Found {
		what = fmt.Sprintf("which could not be started (%s)", e.Looked)
	}
	msg := fmt.Sprintf("this command needs %s, %s; install both: go install github.com/reflect-memory/reflect/cmd/...@latest, or unpack the release archive, which holds both", install.EngineName, what)
	if e.Err != nil {
		msg += fmt.Sprintf(" (%v)", e.Err)
	}
	return msg
}

func (e *NoEngineError) Unwrap() error { return e.Err }

// enginePath finds reflect-engine: beside this executable (symbolic links resolved), never on
// PATH, where a different version could answer. A reflect built from a source checkout of
// this module (`go run ./cmd/reflect …`) without one beside it builds one once into the user's
// cache, when build allows (a hook never waits for a build), so that the README's first
// command works on a fresh clone.
func enginePath(build bool, progress io.Writer) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", &NoEngineError{Looked: install.EngineName, Err: err}
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	beside := install.EngineBeside(self)
	if isFile(beside) {
		return beside, nil
	}
	root, key, ok := sourceBuild(self)
	if !ok {
		return "", &NoEngineError{Looked: beside}
	}
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		return "", &NoEngineError{Looked: beside, Err: err}
	}
	cached := filepath.Join(cacheDir, "reflect", "engine", key, install.EngineName)
	if isFile(cached) {
		return cached, nil
	}
	if !build {
		return "", &NoEngineError{Looked: beside}
	}
	if err := buildEngine(root, cached, progress); err != nil {
		return "", &NoEngineError{Looked: beside, Err: fmt.Errorf("building it from this checkout: %w", err)}
	}
	return cached, nil
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// module is this module's path, as go.mod and the build information name it.
const module = "github.com/reflect-memory/reflect"

// sourceBuild reports whether this reflect was built from a source checkout of this module
// that is still there, and then the checkout's root and the key of this build: the VCS
// revision of a clean checkout, else the hash of the executable. The checkout is the one this
// file was compiled from (its path is in the binary unless -trimpath), and the working
// directory must be inside it (`go run ./cmd/reflect demo` in the clone); never a checkout found
// from the working directory: a hook or a command runs in whatever project the agent works in, and
// a directory whose go.mod claims this module (a fork, or a repository made to look like one)
// must not get its code built and run as reflect-engine.
func sourceBuild(self string) (root, key string, ok bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Path != module || info.Main.Version != "(devel)" {
		return "", "", false
	}
	root, ok = compiledFrom()
	if !ok || !within(root) {
		return "", "", false
	}
	var rev string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" && !modified {
		return root, rev, true
	}
	// `go run` records no VCS state, and a modified checkout's revision says little: the
	// executable itself is the key (go run builds the same bytes from the same source)
	f, err := os.Open(self)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", "", false
	}
	return root, hex.EncodeToString(h.Sum(nil))[:24], true
}

// within says whether the working directory is root or under it: a dev build copied or run
// elsewhere says how to install the engine rather than building one from its checkout.
func within(root string) bool {
	dir, err := os.Getwd()
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// compiledFrom is the root of the checkout this package was compiled from: three directories
// above this file (cmd/internal/cli), when the path is absolute (not -trimpath) and holds
// this module's go.mod.
func compiledFrom() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
	return root, isModuleRoot(root)
}

func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "module")), `"`) == module
		}
	}
	return false
}

// buildEngine builds ./cmd/reflect-engine of the checkout at root into out (through a
// temporary file, so that two first runs at once do not read a half-written one).
func buildEngine(root, out string, progress io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(progress, "reflect: building %s once from this checkout into %s\n", install.EngineName, filepath.Dir(out))
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	c := exec.Command("go", "build", "-o", tmp, "./cmd/reflect-engine")
	// static, as the release archives are: without the dynamic loader it starts 1.0 ms sooner
	// (8.5 against 9.5 ms), which every search and recall pays
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	c.Dir = root
	var stderr bytes.Buffer
	c.Stdout, c.Stderr = progress, &stderr
	if err := c.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("go build ./cmd/reflect-engine: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return os.Rename(tmp, out)
}

// EngineAnnotation marks an entry of the lean tree that hands its command to reflect-engine.
const EngineAnnotation = "reflect-engine"

// handOffCommands adds the entries of engineline.Commands to root: each has its command's name,
// aliases and summary, so that help lists every command, and hands whatever it is given —
// flags, help, subcommands — to reflect-engine, which parses it as it would have been here.
func (a *App) handOffCommands(root *cobra.Command) {
	for _, ec := range engineline.Commands {
		parent := root
		if i := strings.LastIndex(ec.Path, " "); i >= 0 {
			p, _, err := root.Find(strings.Fields(ec.Path[:i]))
			if err != nil {
				continue
			}
			parent = p
		}
		stub := &cobra.Command{
			Use: ec.Use, Short: ec.Short, Aliases: ec.Aliases, Hidden: ec.Hidden,
			Annotations:        map[string]string{EngineAnnotation: ec.Path},
			DisableFlagParsing: true,
			RunE:               func(cmd *cobra.Command, _ []string) error { return a.handOff() },
		}
		stub.SetHelpFunc(func(*cobra.Command, []string) {
			os.Exit(a.exit(nil, a.handOff()))
		})
		parent.AddCommand(stub)
	}
}

// handOff runs this process's command line in reflect-engine and does not come back when it
// can start it (on unix the engine replaces this process: same arguments, environment and
// streams, no process left waiting).
func (a *App) handOff() error {
	path, err := enginePath(true, a.Stderr)
	if err != nil {
		return err
	}
	return execEngine(path, a.args())
}

// args is the command line this App runs.
func (a *App) args() []string {
	if a.argv != nil {
		return a.argv
	}
	return os.Args[1:]
}

// hookHandOff runs this hook in reflect-engine: the resident one of the memory when one
// listens (package hooks/resident), else a child, the payload on its stdin, what it prints
// returned, killed at ctx's deadline; after a child, one is started to stay for the next
// hooks (recall.resident). hooks.ErrNoEngine when there is no engine to run.
func (a *App) hookHandOff(home string, args []string) func(ctx context.Context, h hooks.Handed) ([]byte, error) {
	return func(ctx context.Context, h hooks.Handed) ([]byte, error) {
		path, err := enginePath(false, io.Discard)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", hooks.ErrNoEngine, err)
		}
		stay := false
		if h.Resident > 0 && !h.Debug { // a resident engine's stderr is not this hook's
			if sock, _, ok := resident.Socket(h.StateDir, path); ok {
				out, err := resident.Ask(ctx, sock, residentRequest(args, h), h.Payload)
				if !errors.Is(err, resident.ErrAbsent) {
					return out, err
				}
				stay = !errors.Is(err, resident.ErrBusy) // busy: one stays already
			}
		}
		out, err := a.hookChild(ctx, path, home, args, h.Payload, h.Began, h.Debug)
		if stay && !errors.Is(err, hooks.ErrNoEngine) && h.Afterwards != nil {
			h.Afterwards("internal", "resident") // to answer the next hooks
		}
		return out, err
	}
}

// residentRequest is the hook of args as a resident engine runs it: in this process's
// directory, environment and umask.
func residentRequest(args []string, h hooks.Handed) resident.Request {
	req := resident.Request{Harness: args[0], Env: os.Environ(), Umask: resident.Umask(), Began: h.Began.UnixNano()}
	if len(args) > 1 {
		req.Event = args[1]
	}
	req.Cwd, _ = os.Getwd()
	return req
}

// hookChild runs the hook of args in reflect-engine at path as a child, telling it when the
// hook began (beganEnv), as a resident engine is told: its deadline counts from there, so that
// after a slow stdin it gives up (and hands a capture on) before this process kills it.
func (a *App) hookChild(ctx context.Context, path, home string, args []string, payload []byte, began time.Time, debug bool) ([]byte, error) {
	argv := []string{"--home", home}
	if a.Verbose {
		argv = append(argv, "--verbose")
	}
	c := exec.CommandContext(ctx, path, append(append(argv, "hook"), args...)...)
	c.Stdin = bytes.NewReader(payload)
	if !began.IsZero() {
		c.Env = append(os.Environ(), beganEnv+"="+strconv.FormatInt(began.UnixNano(), 10))
	}
	var out bytes.Buffer
	c.Stdout = &limited{w: &out, n: resident.MaxOutput}
	if debug {
		c.Stderr = a.Stderr
	}
	c.WaitDelay = 100 * time.Millisecond
	if err := c.Start(); err != nil {
		if ctx.Err() != nil { // the deadline, not a missing engine: nothing is done in its place
			return nil, fmt.Errorf("reflect-engine was not started before the hook's deadline: %w", ctx.Err())
		}
		return nil, fmt.Errorf("%w: %v", hooks.ErrNoEngine, err)
	}
	if err := c.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reflect-engine passed the hook's deadline: %w", ctx.Err())
		}
		return nil, fmt.Errorf("reflect-engine: %w", err)
	}
	return out.Bytes(), nil
}

// beganEnv carries, to a reflect-engine run as a hook's child, when the hook began (Unix
// nanoseconds).
const beganEnv = "REFLECT_HOOK_BEGAN"

// handedBegan is when the hook this engine runs as a child began (beganEnv), taken out of the
// environment so that nothing it starts inherits it; zero when not set, or not a moment of
// the last minute.
func handedBegan() time.Time {
	v, ok := os.LookupEnv(beganEnv)
	if !ok {
		return time.Time{}
	}
	os.Unsetenv(beganEnv)
	ns, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}
	}
	t := time.Unix(0, ns)
	if d := time.Since(t); d < 0 || d > time.Minute {
		return time.Time{}
	}
	return t
}

// limited writes at most n bytes to w and drops the rest (a hook's output is one small JSON
// object; the engine's is bounded here too).
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return len(p), nil
	}
	k := min(len(p), l.n)
	l.n -= k
	if _, err := l.w.Write(p[:k]); err != nil {
		return 0, err
	}
	return len(p), nil
}
