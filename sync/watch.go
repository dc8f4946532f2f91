package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	gosync "sync"
	"time"
)

// deadliner is what a bound is put on: a TCP connection, a pipe to a child.
type deadliner interface{ SetDeadline(time.Time) error }

// watch keeps the bounds of one exchange with a remote. Every connection and pipe of the
// exchange carries the same deadline: until the remote has advertised its refs, the
// handshake's end or Idle from the last byte, whichever is sooner; after that, Idle from
// the last byte moved in either direction (a pending read is pushed back by a write, so a
// long upload the remote only acknowledges at the end is not cut). When the exchange's
// context ends, abort closes and kills everything it holds at once.
type watch struct {
	t Timeouts

	mu        gosync.Mutex
	handshake time.Time // zero once the remote has advertised its refs
	targets   []deadliner
	closers   []func()
	cause     error // why abort ran; nil while it has not
}

func newWatch(t Timeouts) *watch {
	return &watch{t: t, handshake: time.Now().Add(t.Handshake)}
}

// follow ties the watch to ctx: when ctx ends, everything is closed. The returned stop
// unties it.
func (w *watch) follow(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { w.abort(context.Cause(ctx)) })
}

func (w *watch) deadline(now time.Time) time.Time {
	d := now.Add(w.t.Idle)
	if !w.handshake.IsZero() && w.handshake.Before(d) {
		d = w.handshake
	}
	return d
}

// add puts d under the watch's deadline.
func (w *watch) add(d deadliner) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.targets = append(w.targets, d)
	d.SetDeadline(w.deadline(time.Now()))
}

// onAbort registers f to run when the exchange is given up; at once when it already was.
func (w *watch) onAbort(f func()) {
	w.mu.Lock()
	if w.cause == nil {
		w.closers = append(w.closers, f)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	f()
}

// touch records a byte moved: every deadline moves to Idle from now.
func (w *watch) touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.deadline(time.Now())
	for _, t := range w.targets {
		t.SetDeadline(d)
	}
}

// handshook ends the handshake: from now on only Idle bounds the exchange.
func (w *watch) handshook() {
	w.mu.Lock()
	w.handshake = time.Time{}
	w.mu.Unlock()
	w.touch()
}

// abort gives the exchange up: it runs the closers (close the connection, kill the child)
// once, and remembers why.
func (w *watch) abort(cause error) {
	w.mu.Lock()
	if w.cause != nil {
		w.mu.Unlock()
		return
	}
	if cause == nil {
		cause = errors.New("aborted")
	}
	w.cause = cause
	closers := w.closers
	w.closers = nil
	w.mu.Unlock()
	for _, f := range closers {
		f()
	}
}

// explain turns an error of a read or write into what happened: the context's end, or
// which bound the remote went past.
func (w *watch) explain(err error) error {
	if err == nil {
		return nil
	}
	var te *timeoutError
	if errors.As(err, &te) {
		return err
	}
	w.mu.Lock()
	cause, handshaking := w.cause, !w.handshake.IsZero()
	w.mu.Unlock()
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		return &timeoutError{"the time allowed ran out before the remote was done"}
	case errors.Is(cause, context.Canceled):
		return cause
	case !errors.Is(err, os.ErrDeadlineExceeded):
		return err
	case handshaking:
		return &timeoutError{fmt.Sprintf("no answer within %s of connecting", w.t.Handshake)}
	}
	return &timeoutError{fmt.Sprintf("nothing received or sent for %s", w.t.Idle)}
}

// deadlineConn is a connection under a watch: each byte moved pushes the deadline back.
// With firstByte, the first byte read ends the handshake (http, where reflect does not see
// the ref advertisement arrive on the connection).
type deadlineConn struct {
	net.Conn
	w         *watch
	firstByte bool

	mu     gosync.Mutex
	failed error // the first error other than io.EOF, explained
}

func watchConn(c net.Conn, w *watch, firstByte bool) *deadlineConn {
	w.add(c)
	w.onAbort(func() { c.Close() })
	return &deadlineConn{Conn: c, w: w, firstByte: firstByte}
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if c.firstByte {
			c.firstByte = false
			c.w.handshook()
		} else {
			c.w.touch()
		}
	}
	return n, c.fail(err)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.w.touch()
	}
	return n, c.fail(err)
}

func (c *deadlineConn) fail(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	err = c.w.explain(err)
	c.mu.Lock()
	if c.failed == nil {
		c.failed = err
	}
	c.mu.Unlock()
	return err
}

// failure is why the connection failed, nil while it has not. A protocol on top of it
// (ssh) reports a dead connection as the end of its channels; this says why it died.
func (c *deadlineConn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}
