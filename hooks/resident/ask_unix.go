//go:build unix

package resident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// identity names the file at path as it is now: a replaced file is another name.
func identity(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("%s: no stat data", path)
	}
	return fmt.Sprintf("%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano()), nil
}

// Ask hands the hook req (its payload after it) to the engine listening on sock and returns
// what the hook printed. ErrAbsent when no engine took it (nothing was run; ErrBusy, which is
// ErrAbsent too, when one listens but was busy with another hook); any other error
// is a hook that was taken and failed or passed ctx's deadline.
func Ask(ctx context.Context, sock string, req Request, payload []byte) ([]byte, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	defer conn.Close()
	req.Deadline = time.Now().Add(time.Minute).UnixNano()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
		req.Deadline = dl.UnixNano()
	}
	req.Size = len(payload)
	head, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, 0, len(head)+1+len(payload))
	msg = append(append(append(msg, head...), '\n'), payload...)
	if _, err := conn.Write(msg); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAbsent, err)
	}
	var ack [1]byte
	_, err = io.ReadFull(conn, ack[:])
	if err == nil && ack[0] == busyByte {
		return nil, ErrBusy
	}
	if err != nil || ack[0] != ackByte {
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(time.Unix(0, req.Deadline)) {
			// the engine did not answer in time, and may have begun: it must not run again
			return nil, fmt.Errorf("the resident reflect-engine took no hook before the deadline: %v", err)
		}
		return nil, fmt.Errorf("%w: it left before it read the hook (%v)", ErrAbsent, err)
	}
	out, err := io.ReadAll(io.LimitReader(conn, MaxOutput+1))
	if err != nil {
		return nil, fmt.Errorf("the resident reflect-engine: %w", err)
	}
	if len(out) > MaxOutput {
		return nil, fmt.Errorf("the resident reflect-engine printed over %d bytes", MaxOutput)
	}
	return out, nil
}

// ackByte is the engine's acknowledgement: it read the whole hook and begins it. busyByte
// hands it back unrun: another hook holds the engine.
const (
	ackByte  = 'A'
	busyByte = 'B'
)

// Umask is this process's umask (read by setting it, and putting it back).
func Umask() int {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return m
}

// supported: every unix system has a resident engine.
const supported = true

// Listening says whether a resident engine listens for the memory at stateDir (any engine
// executable's): a connection that sends nothing, which the engine does not take for a hook.
func Listening(stateDir string) bool {
	socks, _ := filepath.Glob(filepath.Join(Dir(stateDir), "*.sock"))
	for _, sock := range socks {
		if strings.HasSuffix(sock, ".w.sock") {
			continue // one warming, not listening yet
		}
		if c, err := net.DialTimeout("unix", sock, 100*time.Millisecond); err == nil {
			c.Close()
			return true
		}
	}
	return false
}
