package sync

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshServer is a real ssh server on loopback serving one bare repository with the real
// git binary: an exec of `git-upload-pack '<repo>'` or `git-receive-pack '<repo>'` runs
// `git upload-pack <repo>` / `git receive-pack <repo>` on the channel; anything else is
// refused. Only user git with the one client key gets in.
type sshServer struct {
	addr  string       // 127.0.0.1:port
	auths atomic.Int32 // public-key authentication requests seen
	execs atomic.Int32 // git commands run
	// stall makes a command list the refs, as git does, and then send nothing more
	stall atomic.Bool
}

func newSSHServer(t *testing.T, repo string, client ssh.PublicKey, hostKeys ...ssh.Signer) *sshServer {
	t.Helper()
	s := &sshServer{}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(c ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			s.auths.Add(1)
			if c.User() == "git" && bytes.Equal(key.Marshal(), client.Marshal()) {
				return &ssh.Permissions{}, nil
			}
			return nil, fmt.Errorf("key %s of %q is not authorised", ssh.FingerprintSHA256(key), c.User())
		},
	}
	for _, k := range hostKeys {
		cfg.AddHostKey(k)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	serveConns(t, ln, func(nc net.Conn, wg *gosync.WaitGroup) {
		sc, chans, reqs, err := ssh.NewServerConn(nc, cfg)
		if err != nil {
			return // the client gave up on the host key, or was refused
		}
		defer sc.Close()
		go ssh.DiscardRequests(reqs)
		for nch := range chans {
			if nch.ChannelType() != "session" {
				nch.Reject(ssh.UnknownChannelType, "sessions only")
				continue
			}
			ch, creqs, err := nch.Accept()
			if err != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.session(ch, creqs, repo)
			}()
		}
	})
	return s
}

// session runs the one git command a session may ask for, then reports its exit status.
func (s *sshServer) session(ch ssh.Channel, reqs <-chan *ssh.Request, repo string) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" { // env, pty-req, shell, subsystem: no
			req.Reply(false, nil)
			continue
		}
		var p struct{ Command string }
		verb, path, ok := "", "", ssh.Unmarshal(req.Payload, &p) == nil
		if ok {
			verb, path, ok = gitCommand(p.Command)
		}
		if !ok || path != repo {
			req.Reply(false, nil)
			fmt.Fprintf(ch.Stderr(), "refused: %q\n", p.Command)
			exitStatus(ch, 128)
			return
		}
		req.Reply(true, nil)
		s.execs.Add(1)
		if s.stall.Load() {
			refs, _ := exec.Command("git", verb, "--advertise-refs", path).Output()
			ch.Write(refs)
			go io.Copy(io.Discard, ch)
			ssh.DiscardRequests(reqs) // until the client hangs up
			return
		}
		go ssh.DiscardRequests(reqs)
		cmd := exec.Command("git", verb, path)
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		in, err := cmd.StdinPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			fmt.Fprintln(ch.Stderr(), err)
			exitStatus(ch, 127)
			return
		}
		go func() { io.Copy(in, ch); in.Close() }() // ends when the channel closes
		code := 0
		if err := cmd.Wait(); err != nil {
			code = 1
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				code = ee.ExitCode()
			}
		}
		exitStatus(ch, code)
		return
	}
}

func exitStatus(ch ssh.Channel, code int) {
	ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
}

// gitCommand parses what a git client execs over ssh: `git-upload-pack '<path>'` or
// `git-receive-pack '<path>'`, the path quoted as git's sq_quote does.
func gitCommand(line string) (verb, path string, ok bool) {
	prog, arg, _ := strings.Cut(line, " ")
	switch prog {
	case "git-upload-pack", "git-receive-pack":
		verb = strings.TrimPrefix(prog, "git-")
	default:
		return "", "", false
	}
	var b strings.Builder
	for arg != "" {
		if arg[0] != '\'' {
			return "", "", false
		}
		end := strings.IndexByte(arg[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		b.WriteString(arg[1 : 1+end])
		arg = arg[2+end:]
		if arg == "" {
			return verb, b.String(), true
		}
		if len(arg) < 2 || arg[0] != '\\' || (arg[1] != '\'' && arg[1] != '!') {
			return "", "", false
		}
		b.WriteByte(arg[1])
		arg = arg[2:]
	}
	return "", "", false
}

// sshAgent serves an in-process ssh agent holding keys on a unix socket in a temporary
// directory and returns the socket's path, for SSH_AUTH_SOCK.
func sshAgent(t *testing.T, keys ...any) string {
	t.Helper()
	kr := agent.NewKeyring()
	for _, k := range keys {
		if err := kr.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	// go-git keeps its agent connection open: serveConns closes it at the end
	serveConns(t, ln, func(c net.Conn, _ *gosync.WaitGroup) { agent.ServeAgent(kr, c) })
	return sock
}

// serveConns accepts connections on ln until the test ends, each handled by handle in its
// own goroutine (wg counts handle's own goroutines too); at the end it closes the listener
// and every connection, and waits for all of them, so no git process outlives the test.
func serveConns(t *testing.T, ln net.Listener, handle func(c net.Conn, wg *gosync.WaitGroup)) {
	var (
		wg     gosync.WaitGroup
		mu     gosync.Mutex
		closed bool
		conns  = map[net.Conn]bool{}
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				c.Close()
			} else {
				conns[c] = true
			}
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c, &wg)
			}()
		}
	}()
}

func newEd25519(t *testing.T) (ed25519.PrivateKey, ssh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return priv, s
}

// knownHosts writes a known_hosts file with lines and returns its path.
func knownHosts(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSSHRemote syncs two clones through a real ssh server running the real git, with the
// client key in an ssh agent and the server's host key checked against known_hosts.
func TestSSHRemote(t *testing.T) {
	setHome(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git:", err)
	}
	ctx := context.Background()
	repo := bare(t)

	// the server offers an ed25519 and an ecdsa host key, as sshd (and GitHub) do; the
	// user's known_hosts holds only the ed25519 one
	_, hostKey := newEd25519(t)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostKeyEC, err := ssh.NewSignerFromKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	clientKey, clientSigner := newEd25519(t)
	otherKey, _ := newEd25519(t)
	srv := newSSHServer(t, repo, clientSigner.PublicKey(), hostKey, hostKeyEC)
	remote := "ssh://git@" + srv.addr + repo

	kh := filepath.Join(os.Getenv("HOME"), ".ssh", "known_hosts")
	os.MkdirAll(filepath.Dir(kh), 0o700)
	line := knownhosts.Line([]string{srv.addr}, hostKey.PublicKey()) // [127.0.0.1]:port ssh-ed25519 …
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_KNOWN_HOSTS", kh)
	t.Setenv("SSH_AUTH_SOCK", sshAgent(t, clientKey))

	ls := laptops(t, remote, 2)
	a, b := ls[0], ls[1]
	if git(t, a.dir, "rev-parse", "HEAD") != git(t, b.dir, "rev-parse", "HEAD") {
		t.Fatal("the second clone does not start where the first one is")
	}
	la := a.add("Pushed over ssh")
	if res := a.sync(); res.Action != "push" || res.Out != 1 {
		t.Errorf("a: %+v", res)
	}
	lb := b.add("Merged over ssh")
	if res := b.sync(); res.Action != "merge" || !res.Pushed {
		t.Errorf("b: %+v", res)
	}
	if res := a.sync(); res.Action != "fast-forward" {
		t.Errorf("a again: %+v", res)
	}
	for _, l := range ls {
		for _, id := range []string{la.ID, lb.ID} {
			if _, err := os.Stat(filepath.Join(l.dir, "learnings", "github.com", "acme", "shop", id+".md")); err != nil {
				t.Errorf("%s lacks %s", l.name, id)
			}
		}
	}
	// the git CLI, reading the bare repository directly, agrees
	head := converged(t, repo, ls)
	cli := filepath.Join(t.TempDir(), "cli")
	if out, err := exec.Command("git", "clone", "-q", repo, cli).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if git(t, cli, "rev-parse", "HEAD") != head {
		t.Error("the git CLI's clone has another HEAD")
	}
	if srv.execs.Load() == 0 {
		t.Fatal("nothing went through the ssh server")
	}

	// keeps checks that a failed sync left a's new commit and learning where they were
	keeps := func(t *testing.T, before string, id string) {
		t.Helper()
		if git(t, a.dir, "rev-parse", "HEAD") != before {
			t.Error("a failed sync moved HEAD")
		}
		if _, err := os.Stat(filepath.Join(a.dir, "learnings", "github.com", "acme", "shop", id+".md")); err != nil {
			t.Error("the local learning is gone")
		}
		a.healthy()
	}

	t.Run("host key checked", func(t *testing.T) {
		_, impostor := newEd25519(t)
		for _, tc := range []struct {
			name, knownHosts, want string
		}{
			{"changed", knownhosts.Line([]string{srv.addr}, impostor.PublicKey()), "does not match"},
			{"unknown", knownhosts.Line([]string{"127.0.0.1:1"}, hostKey.PublicKey()), "not in known_hosts"},
			{"uncheckable", "", "no known_hosts file"}, // no known_hosts at all
		} {
			kh := filepath.Join(t.TempDir(), "missing")
			if tc.knownHosts != "" {
				kh = knownHosts(t, tc.knownHosts)
			}
			t.Setenv("SSH_KNOWN_HOSTS", kh)
			c := a.add("Kept although the host key is " + tc.name)
			before := git(t, a.dir, "rev-parse", "HEAD")
			auths, execs := srv.auths.Load(), srv.execs.Load()
			_, err := Sync(ctx, a.repo(), Options{})
			t.Logf("%s host key: %v", tc.name, err)
			if err == nil || !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s host key: %v", tc.name, err)
			}
			if srv.auths.Load() != auths || srv.execs.Load() != execs {
				t.Errorf("%s host key: the client offered its key or ran git anyway", tc.name)
			}
			keeps(t, before, c.ID)
		}
	})

	t.Run("wrong client key", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", sshAgent(t, otherKey))
		c := a.add("Kept although the server refuses the key")
		before := git(t, a.dir, "rev-parse", "HEAD")
		execs := srv.execs.Load()
		_, err := Sync(ctx, a.repo(), Options{})
		t.Logf("wrong key: %v", err)
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "ssh-agent") {
			t.Errorf("wrong key: %v", err)
		}
		if srv.execs.Load() != execs {
			t.Error("git ran for a refused key")
		}
		keeps(t, before, c.ID)

		// a clone with the wrong key leaves nothing behind
		dir := filepath.Join(t.TempDir(), "mem")
		if _, _, err := Clone(ctx, dir, remote, Options{}); !errors.Is(err, ErrAuth) {
			t.Errorf("clone with the wrong key: %v", err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Error("a failed clone left a directory behind")
		}
	})

	t.Run("no agent", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "")
		c := a.add("Kept although no agent runs")
		before := git(t, a.dir, "rev-parse", "HEAD")
		_, err := Sync(ctx, a.repo(), Options{})
		t.Logf("no agent: %v", err)
		if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "ssh-agent") || !strings.Contains(err.Error(), "SSH_AUTH_SOCK") {
			t.Errorf("no agent: %v", err)
		}
		keeps(t, before, c.ID)
	})

	t.Run("stalls after the refs", func(t *testing.T) {
		// the handshake is done and the refs came; the answer to the fetch never does
		b.add("Makes a fetch want something")
		b.sync()
		srv.stall.Store(true)
		defer srv.stall.Store(false)
		c := a.add("Kept although the server stalls")
		before := git(t, a.dir, "rev-parse", "HEAD")
		start := time.Now()
		_, err := Sync(ctx, a.repo(), Options{Timeouts: Timeouts{Idle: time.Second}})
		took := time.Since(start)
		t.Logf("stalled: %v after %v", err, took.Round(time.Millisecond))
		if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "nothing received or sent for 1s") {
			t.Errorf("stalled: %v", err)
		}
		if took > 4*time.Second {
			t.Errorf("gave up after %v; the bound is 1s", took)
		}
		keeps(t, before, c.ID)
	})

	// with the right key and host key again, everything kept goes out: six commits and the
	// merge with b's
	if res := a.sync(); !res.Pushed || res.Out != 7 || res.Action != "merge" {
		t.Errorf("a after the failures: %+v", res)
	}
	if res := b.sync(); res.Action != "fast-forward" {
		t.Errorf("b after the failures: %+v", res)
	}
	if git(t, a.dir, "rev-parse", "HEAD") != git(t, b.dir, "rev-parse", "HEAD") {
		t.Error("not converged after the failures")
	}
	git(t, repo, "fsck", "--strict", "--no-progress")
}

// TestSSHGitCommand: the server's parsing of what a git client execs.
func TestSSHGitCommand(t *testing.T) {
	for _, tc := range []struct{ line, verb, path string }{
		{"git-upload-pack '/tmp/r.git'", "upload-pack", "/tmp/r.git"},
		{"git-receive-pack '/tmp/it'\\''s.git'", "receive-pack", "/tmp/it's.git"},
		{"git-upload-pack '/a'\\!'b'", "upload-pack", "/a!b"},
		{"sh -c 'id'", "", ""},
		{"git-upload-pack /tmp/r.git", "", ""},
		{"git-upload-pack '/tmp/r.git'; id", "", ""},
	} {
		verb, path, ok := gitCommand(tc.line)
		if ok != (tc.verb != "") || verb != tc.verb || path != tc.path {
			t.Errorf("%q: %q %q %v", tc.line, verb, path, ok)
		}
	}
}
