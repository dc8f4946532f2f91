package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/net/proxy"

	"github.com/reflect-memory/reflect/internal/procgroup"
)

// stream is one remote git program (git-upload-pack or git-receive-pack) as a session
// talks to it: its output to read, its input to write. Every byte goes through the
// exchange's watch.
type stream interface {
	io.Reader
	io.Writer
	// closeWrite ends the program's input.
	closeWrite() error
	// stderr is what the program printed on its error output (the first 4 KB), once that
	// ended or the watch's deadline passed.
	stderr() string
	// close ends the exchange: abort kills the program or drops the connection at once;
	// otherwise the program gets Idle to finish on its own before it is killed.
	close(abort bool) error
}

// openStream starts service at ep under w.
func openStream(ctx context.Context, service string, ep *transport.Endpoint, auth transport.AuthMethod, w *watch) (stream, error) {
	switch ep.Protocol {
	case "file":
		return startLocal(service, ep, w)
	case "git":
		return dialGit(ctx, service, ep, w)
	case "ssh":
		return dialSSH(ctx, service, ep, auth, w)
	}
	return nil, fmt.Errorf("unsupported scheme %q", ep.Protocol)
}

// errTail keeps the start of a program's error output.
type errTail struct {
	mu   gosync.Mutex
	buf  []byte
	done chan struct{}
}

func readTail(r io.Reader) *errTail {
	t := &errTail{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		p := make([]byte, 1024)
		for {
			n, err := r.Read(p)
			t.mu.Lock()
			if room := 4096 - len(t.buf); room > 0 {
				t.buf = append(t.buf, p[:min(n, room)]...)
			}
			t.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return t
}

func (t *errTail) text() string {
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// localStream is git-upload-pack or git-receive-pack run on a repository at a path. Its
// pipes are the ones os.Pipe makes, which take deadlines; it leads its own process group,
// so a kill also takes the git-pack-objects and git-index-pack it starts. go-git's own
// file transport waits for the child with no bound once the caller stops reading: with a
// full disk the fetch failed, the child blocked on a full pipe, and the sync hung until it
// was killed at 644 s.
type localStream struct {
	w      *watch
	cmd    *exec.Cmd
	out    *os.File // the child's stdout
	in     *os.File // the child's stdin
	errOut *os.File
	tail   *errTail
	once   gosync.Once
	reaped atomic.Bool // Wait returned: the group's id may belong to another process now
	err    error
}

func startLocal(service string, ep *transport.Endpoint, w *watch) (*localStream, error) {
	path := ep.Path
	if runtime.GOOS == "windows" && len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = path[1:] // file:///C:/x
	}
	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fail := func(err error) (*localStream, error) {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command("git", strings.TrimPrefix(service, "git-"), path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	procgroup.Set(cmd)
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("run git %s: %w", strings.TrimPrefix(service, "git-"), err))
	}
	inR.Close()
	outW.Close()
	errW.Close()
	s := &localStream{w: w, cmd: cmd, out: outR, in: inW, errOut: errR}
	for _, f := range []*os.File{outR, inW, errR} {
		w.add(f)
	}
	w.onAbort(s.kill)
	s.tail = readTail(errR)
	return s, nil
}

func (s *localStream) Read(p []byte) (int, error) {
	n, err := s.out.Read(p)
	if n > 0 {
		s.w.touch()
	}
	return n, err
}

func (s *localStream) Write(p []byte) (int, error) {
	n, err := s.in.Write(p)
	if n > 0 {
		s.w.touch()
	}
	return n, err
}

// kill kills the child's process group, unless the child was reaped already.
func (s *localStream) kill() {
	if !s.reaped.Load() {
		procgroup.Kill(s.cmd)
	}
}

func (s *localStream) closeWrite() error { return s.in.Close() }
func (s *localStream) stderr() string    { return s.tail.text() }

func (s *localStream) close(abort bool) error {
	s.once.Do(func() {
		if abort {
			s.kill()
		}
		s.in.Close()
		// A program that ended its answer exits at once; one that does not within Idle is
		// killed (a receive-pack whose post-receive hook hangs, say).
		t := time.AfterFunc(s.w.t.Idle, s.kill)
		err := s.cmd.Wait()
		s.reaped.Store(true)
		t.Stop()
		s.out.Close()
		<-s.tail.done // the group is gone, or the deadline ends the read
		s.errOut.Close()
		var ee *exec.ExitError
		if !abort && err != nil && !errors.As(err, &ee) {
			s.err = err
		}
	})
	return s.err
}

// dial connects to addr within the Dial bound; with allProxy, through ALL_PROXY when it is
// set, as go-git's ssh transport does.
func dial(ctx context.Context, addr string, w *watch, allProxy bool) (net.Conn, error) {
	d := &net.Dialer{Timeout: w.t.Dial}
	var c net.Conn
	var err error
	if pd, ok := proxy.FromEnvironmentUsing(d).(proxy.ContextDialer); ok && allProxy {
		c, err = pd.DialContext(ctx, "tcp", addr)
	} else {
		c, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			return nil, &timeoutError{fmt.Sprintf("no connection to %s within %s", addr, w.t.Dial)}
		}
		return nil, err
	}
	return c, nil
}

// connStream is git:// : the program's input and output are the connection.
type connStream struct {
	*deadlineConn
	once gosync.Once
}

func dialGit(ctx context.Context, service string, ep *transport.Endpoint, w *watch) (*connStream, error) {
	port := ep.Port
	if port <= 0 {
		port = 9418
	}
	c, err := dial(ctx, net.JoinHostPort(ep.Host, strconv.Itoa(port)), w, false)
	if err != nil {
		return nil, err
	}
	s := &connStream{deadlineConn: watchConn(c, w, false)}
	host := ep.Host
	if port != 9418 {
		host = net.JoinHostPort(ep.Host, strconv.Itoa(port))
	}
	req := packp.GitProtoRequest{RequestCommand: service, Pathname: ep.Path, Host: host}
	if err := req.Encode(s); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// closeWrite does nothing: git's daemon reads its requests to their end, and a half-closed
// connection is not part of the git protocol.
func (s *connStream) closeWrite() error { return nil }
func (s *connStream) stderr() string    { return "" }
func (s *connStream) close(bool) error {
	s.once.Do(func() { s.Conn.Close() })
	return nil
}

// sshStream is the program run over ssh. reflect makes the connection itself rather than
// through go-git's ssh transport, which dials without a bound on the handshake and offers
// no hook onto its connection.
type sshStream struct {
	conn   *deadlineConn
	client *ssh.Client
	sess   *ssh.Session
	in     io.WriteCloser
	out    io.Reader
	tail   *errTail
	once   gosync.Once
}

func dialSSH(ctx context.Context, service string, ep *transport.Endpoint, auth transport.AuthMethod, w *watch) (*sshStream, error) {
	a, ok := auth.(gitssh.AuthMethod)
	if !ok {
		return nil, transport.ErrInvalidAuthMethod
	}
	cfg, err := a.ClientConfig()
	if err != nil {
		return nil, err
	}
	addr := sshAddr(ep)
	if cfg.HostKeyCallback == nil {
		db, err := gitssh.NewKnownHostsDb()
		if err != nil {
			return nil, err
		}
		cfg.HostKeyCallback = db.HostKeyCallback()
		cfg.HostKeyAlgorithms = db.HostKeyAlgorithms(addr)
	}
	c, err := dial(ctx, addr, w, true)
	if err != nil {
		return nil, err
	}
	s := &sshStream{conn: watchConn(c, w, false)}
	cc, chans, reqs, err := ssh.NewClientConn(s.conn, addr, cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	s.client = ssh.NewClient(cc, chans, reqs)
	fail := func(err error) (*sshStream, error) {
		s.client.Close()
		return nil, err
	}
	if s.sess, err = s.client.NewSession(); err != nil {
		return fail(err)
	}
	if s.in, err = s.sess.StdinPipe(); err != nil {
		return fail(err)
	}
	if s.out, err = s.sess.StdoutPipe(); err != nil {
		return fail(err)
	}
	e, err := s.sess.StderrPipe()
	if err != nil {
		return fail(err)
	}
	s.tail = readTail(e) // read, or the server stops sending when the channel's window fills
	if err := s.sess.Start(service + " " + shellQuote(ep.Path)); err != nil {
		return fail(err)
	}
	return s, nil
}

// Read and Write report a dead connection's cause: ssh shows it as the channel's end.
func (s *sshStream) Read(p []byte) (int, error) {
	n, err := s.out.Read(p)
	return n, s.fail(err)
}

func (s *sshStream) Write(p []byte) (int, error) {
	n, err := s.in.Write(p)
	return n, s.fail(err)
}

func (s *sshStream) fail(err error) error {
	if err == nil {
		return nil
	}
	if ce := s.conn.failure(); ce != nil {
		return ce
	}
	return s.conn.w.explain(err)
}

func (s *sshStream) closeWrite() error { return s.in.Close() }
func (s *sshStream) stderr() string    { return s.tail.text() }

func (s *sshStream) close(bool) error {
	s.once.Do(func() {
		s.sess.Close()
		s.client.Close()
	})
	return nil
}

// shellQuote quotes a path for the remote shell as git's sq_quote_buf does: inside single
// quotes, with ' and ! closed, escaped and reopened.
func shellQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\'' || c == '!' {
			b.WriteString(`'\`)
			b.WriteByte(c)
			b.WriteByte('\'')
			continue
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}
