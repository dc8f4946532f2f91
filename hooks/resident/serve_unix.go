//go:build unix

package resident

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/reflect-memory/reflect/internal/lockfile"
)

// readWait bounds how long a connection may take to send its hook: a hook writes it in one
// go, so a slower one is not a hook.
const readWait = 2 * time.Second

// busyWait is how long a hook that has been read waits for the one under way before it is
// handed back (busyByte, not run): a UserPromptSubmit takes ~2 ms in the engine, a
// SessionStart ~10, one that catches the index up on 500 learnings up to its deadline.
const busyWait = 50 * time.Millisecond

// overrun is how long past its deadline a hook may run before the engine gives itself up: a
// hook that never returns would otherwise hold every later one of the memory.
const overrun = 3 * time.Second

// Serve answers, one at a time, the hooks handed to the resident engine of the executable
// at engine for the memory at stateDir, each in the hook's working directory, environment
// and umask, until idle() passes without one, the memory's state directory is gone or another
// (a memory removed and made again at its path), its socket is not its own any more, the
// executable is replaced (a reinstall), Leave asks, or ctx ends. warm, when set, runs once the
// socket is bound and before it takes its name (what a process does once: the index's first
// open, the tables built at first use; a hook that came meanwhile would wait for it, and its
// own process answers it sooner). served is false, and nothing was done, when another engine
// already serves, Leave asks, or there can be no socket.
func Serve(ctx context.Context, stateDir, engine string, idle func() time.Duration, log *slog.Logger, warm func(), handle Handler) (served bool, err error) {
	sock, lock, ok := Socket(stateDir, engine)
	if !ok || asked(stateDir) {
		return false, nil
	}
	if err := os.MkdirAll(Dir(stateDir), 0o700); err != nil {
		return false, err
	}
	home, err := os.Stat(stateDir)
	if err != nil {
		return false, err
	}
	unlock, err := lockfile.Take(ctx, lock, 0)
	if errors.Is(err, lockfile.ErrHeld) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	prune(Dir(stateDir), lock)
	// bound under a name of its own while it warms, then renamed into place: an engine that
	// cannot listen (a file system without sockets) says so before it spends a recall warming
	warming := strings.TrimSuffix(sock, ".sock") + ".w.sock"
	os.Remove(warming)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: warming, Net: "unix"})
	if err != nil {
		log.Warn("resident: cannot listen", "socket", warming, "err", err)
		return false, err
	}
	ln.SetUnlinkOnClose(false) // the socket is removed below, only while it is still this one's
	os.Chmod(warming, 0o600)
	if warm != nil {
		warm()
	}
	// a killed engine's socket, which refuses every connection, is replaced
	if err := os.Rename(warming, sock); err != nil {
		ln.Close()
		os.Remove(warming)
		return false, err
	}
	mine, err := os.Stat(sock)
	if err != nil {
		ln.Close()
		return false, err
	}
	// between hooks the engine stays in the memory's state directory, not in a project it
	// would keep busy (a drive that will not unmount, a folder Windows will not delete)
	os.Chdir(stateDir)
	jobs, broken := make(chan job), make(chan struct{})
	go accept(ln, jobs, broken, log)
	collect := true
	tick := time.NewTicker(Every)
	defer tick.Stop()
	last := time.Now()
	same := func(path string, was os.FileInfo) bool {
		fi, err := os.Stat(path)
		return err == nil && os.SameFile(fi, was)
	}
	for gone := false; !gone; {
		select {
		case <-ctx.Done():
			gone = true
		case <-broken:
			gone = true
		case j := <-jobs:
			run(j, handle, log)
			os.Chdir(stateDir)
			last, collect = time.Now(), true
		case <-tick.C:
			now, _, _ := Socket(stateDir, engine)
			gone = !same(stateDir, home) || !same(sock, mine) || now != sock || asked(stateDir) || time.Since(last) >= idle()
			if collect && !gone && time.Since(last) >= Every {
				// the garbage of the hooks is collected between them rather than in one: a
				// collection was 10% of the engine's time in its hooks (perf, 81 prompts).
				// The memory is kept: given back (debug.FreeOSMemory), the next hook took it
				// again, 270 of the 330–340 page faults of a session start (60 without), and
				// the engine's size was the same (31.8 MB against 32.3 MB); with hooks 200 ms
				// apart, a session start took 10.2 ms then, 8.2 ms now (medians of 25)
				runtime.GC()
				collect = false
			}
		}
	}
	// the socket goes first: a hook read but not begun gets no acknowledgement, so its
	// process runs it itself
	if same(sock, mine) {
		os.Remove(sock)
	}
	ln.Close()
	// hooks read but not begun are closed unacknowledged until no reader can still hand one on
	go func() {
		end := time.After(readWait + busyWait + time.Second)
		for {
			select {
			case j := <-jobs:
				j.conn.Close()
			case <-end:
				return
			}
		}
	}()
	return true, nil
}

// stale is how long the lock file of another engine executable (an older build's) is kept
// when no engine holds it: each reinstall leaves one.
const stale = 7 * 24 * time.Hour

// prune removes the lock files (and sockets) of other engine executables that no engine
// holds and nobody changed for a week, not keep's. One removed just as an engine of that
// build opens it leaves that engine locked on a file no other sees; a second engine's socket
// then takes the name, and the first leaves at its next look (its socket is not its own).
func prune(dir, keep string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(path, ".lock") || path == keep {
			continue
		}
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < stale {
			continue
		}
		if unlock, err := lockfile.Take(context.Background(), path, 0); err == nil {
			base := strings.TrimSuffix(path, ".lock")
			os.Remove(base + ".sock")
			os.Remove(base + ".w.sock")
			os.Remove(path)
			unlock()
		}
	}
}

// job is a hook read whole from its connection, not yet begun.
type job struct {
	conn    *net.UnixConn
	req     Request
	payload []byte
}

// accept reads the hooks that connect, each on its own goroutine (a slow or silent peer holds
// up no other), and passes them on in turn. A failing accept (out of descriptors) is tried
// again; one that keeps failing closes broken, and the engine leaves.
func accept(ln *net.UnixListener, jobs chan<- job, broken chan<- struct{}, log *slog.Logger) {
	for failures := 0; ; {
		conn, err := ln.AcceptUnix()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			if failures++; failures >= 50 {
				log.Error("resident: cannot accept hooks; leaving", "err", err)
				close(broken)
				return
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		failures = 0
		go func() {
			j, err := read(conn)
			if err != nil {
				if err != errNothing { // a look whether it listens (the bench, tests) is no hook
					log.Warn("resident: a connection that is not a hook", "err", err)
				}
				conn.Close()
				return
			}
			select {
			case jobs <- j:
			case <-time.After(busyWait):
				// another hook is still running: this one's process runs it itself, in
				// parallel, as every hook ran before an engine stayed
				conn.Write([]byte{busyByte})
				conn.Close()
			}
		}()
	}
}

// errNothing is a connection closed before it sent a byte: a look whether the engine listens.
var errNothing = errors.New("closed before a byte")

// read reads one hook: a JSON header line, then the payload it sizes.
func read(conn *net.UnixConn) (job, error) {
	if err := samePeer(conn); err != nil {
		return job{}, err
	}
	conn.SetReadDeadline(time.Now().Add(readWait))
	br := bufio.NewReader(io.LimitReader(conn, maxHeader+maxPayload))
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...) // a copy: the reader's buffer is reused
		if err == nil {
			break
		}
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return job{}, errNothing
		}
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) > maxHeader {
			return job{}, fmt.Errorf("header: %w", err)
		}
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return job{}, fmt.Errorf("header: %w", err)
	}
	if req.Size < 0 || req.Size > maxPayload {
		return job{}, fmt.Errorf("payload of %d bytes", req.Size)
	}
	payload := make([]byte, req.Size)
	if _, err := io.ReadFull(br, payload); err != nil {
		return job{}, fmt.Errorf("payload: %w", err)
	}
	conn.SetReadDeadline(time.Time{})
	return job{conn: conn, req: req, payload: payload}, nil
}

// run answers one hook as the process that handed it over would have: acknowledged, then
// run in its directory, environment and umask, then its output written back.
func run(j job, handle Handler, log *slog.Logger) {
	defer j.conn.Close()
	deadline := time.Unix(0, j.req.Deadline)
	if j.req.Deadline == 0 || time.Until(deadline) > time.Minute {
		deadline = time.Now().Add(time.Minute)
	}
	if time.Until(deadline) <= 0 {
		return // its process gave up waiting: unacknowledged, not run
	}
	if _, err := j.conn.Write([]byte{ackByte}); err != nil {
		return // gone before it began
	}
	if err := apply(j.req); err != nil {
		log.Warn("resident: the hook's surroundings", "err", err)
	}
	watchdog := leaveAfter(time.Until(deadline)+overrun, log, "resident: a hook ran past its deadline; leaving", "event", j.req.Event, "harness", j.req.Harness)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var out bytes.Buffer
	then := handle(ctx, j.req, j.payload, &out)
	watchdog.Stop() // the hook returned: what follows (its answer, its background starts) is not cut short
	if out.Len() > MaxOutput {
		out.Truncate(0)
	}
	j.conn.SetWriteDeadline(deadline)
	j.conn.Write(out.Bytes())
	j.conn.Close()
	if then != nil {
		// what the hook left for after its answer (closing the index, starting its
		// background work) holds every later hook too: one that never returns ends the
		// engine, as a hook past its deadline does
		guard := leaveAfter(afterwards, log, "resident: a hook's work after its answer ran past its bound; leaving", "event", j.req.Event, "harness", j.req.Harness, "bound", afterwards)
		then()
		guard.Stop()
	}
}

// leaveAfter ends the engine, logging msg, unless the timer it returns is stopped within d: a
// hook stuck in it would hold every later hook.
func leaveAfter(d time.Duration, log *slog.Logger, msg string, args ...any) *time.Timer {
	return time.AfterFunc(d, func() {
		log.Error(msg, args...)
		os.Exit(3)
	})
}

// afterwards bounds what a hook leaves for after its answer: closing an index a catch-up
// wrote waits for bleve to persist it, a few milliseconds.
const afterwards = 10 * time.Second

// apply makes this process's working directory, environment and umask the hook's.
func apply(req Request) error {
	os.Clearenv()
	var errs []error
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			if err := os.Setenv(k, v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	syscall.Umask(req.Umask & 0o777)
	if req.Cwd != "" {
		if err := os.Chdir(req.Cwd); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
