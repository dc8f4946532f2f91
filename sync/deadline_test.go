package sync

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lockfile"
)

// stalled is a loopback server that accepts connections and answers them with answer
// (nothing at all when nil), then reads until the client hangs up. hungUp receives the
// time each connection was closed by the client.
type stalled struct {
	addr   string
	hungUp chan time.Time
}

func newStalled(t *testing.T, answer func(c net.Conn)) *stalled {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stalled{addr: ln.Addr().String(), hungUp: make(chan time.Time, 16)}
	serveConns(t, ln, func(c net.Conn, _ *gosync.WaitGroup) {
		if answer != nil {
			answer(c)
		}
		io.Copy(io.Discard, c)
		s.hungUp <- time.Now()
	})
	return s
}

// trickle writes data one byte every gap until the client hangs up.
func trickle(c net.Conn, data string, gap time.Duration) {
	for i := 0; ; i++ {
		if _, err := c.Write([]byte{data[i%len(data)]}); err != nil {
			return
		}
		time.Sleep(gap)
	}
}

// readRequest reads an HTTP request's head.
func readRequest(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil || line == "\r\n" {
			return
		}
	}
}

const advertHead = "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nContent-Length: 100000\r\n\r\n"

// TestStalledRemote: whatever way a remote stops answering, a sync gives up at the bound
// that applies, says which remote timed out, hangs up (the server sees the connection
// closed, the child is gone), keeps the local commit and frees the sync lock.
func TestStalledRemote(t *testing.T) {
	setHome(t)
	short := Timeouts{Dial: time.Second, Handshake: time.Second, Idle: time.Second, Overall: 30 * time.Second}
	const handshake, idle = "no answer within 1s of connecting", "nothing received or sent for 1s"

	// a memory the laptop does not have, for the cases where the remote stalls mid-pack
	full := bare(t)
	seed := laptops(t, full, 1)[0]
	seed.add("Something to fetch")
	seed.sync()

	for _, tc := range []struct {
		name   string
		remote func(t *testing.T) (url string, hungUp <-chan time.Time)
		t      Timeouts
		want   string
		bound  time.Duration
	}{
		{"http silent", func(t *testing.T) (string, <-chan time.Time) {
			s := newStalled(t, nil)
			return "http://" + s.addr + "/mem.git", s.hungUp
		}, short, handshake, time.Second},
		{"http partial refs", func(t *testing.T) (string, <-chan time.Time) {
			s := newStalled(t, func(c net.Conn) {
				readRequest(c)
				c.Write([]byte(advertHead + "001e# service=git-upload-pack\n0000"))
			})
			return "http://" + s.addr + "/mem.git", s.hungUp
		}, Timeouts{Dial: time.Second, Handshake: time.Second, Idle: 5 * time.Second, Overall: 30 * time.Second}, handshake, time.Second},
		{"http stalls mid-pack", func(t *testing.T) (string, <-chan time.Time) {
			return stallingPackServer(t, full)
		}, short, idle, time.Second},
		{"http trickles", func(t *testing.T) (string, <-chan time.Time) {
			s := newStalled(t, func(c net.Conn) {
				readRequest(c)
				c.Write([]byte(advertHead))
				trickle(c, "fff0# service=git-upload-pack", 200*time.Millisecond)
			})
			return "http://" + s.addr + "/mem.git", s.hungUp
		}, Timeouts{Handshake: time.Minute, Idle: time.Second, Overall: 2 * time.Second}, "the time allowed ran out (2s for one sync)", 2 * time.Second},
		{"git silent", func(t *testing.T) (string, <-chan time.Time) {
			s := newStalled(t, nil)
			return "git://" + s.addr + "/mem.git", s.hungUp
		}, short, handshake, time.Second},
		{"git trickles", func(t *testing.T) (string, <-chan time.Time) {
			s := newStalled(t, func(c net.Conn) { trickle(c, "fff0 refs", 200*time.Millisecond) })
			return "git://" + s.addr + "/mem.git", s.hungUp
		}, Timeouts{Handshake: time.Minute, Idle: time.Second, Overall: 2 * time.Second}, "the time allowed ran out (2s for one sync)", 2 * time.Second},
		{"ssh silent", func(t *testing.T) (string, <-chan time.Time) {
			t.Setenv("SSH_AUTH_SOCK", sshAgent(t)) // no key: the server never gets that far
			t.Setenv("SSH_KNOWN_HOSTS", knownHosts(t, "[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"))
			s := newStalled(t, nil)
			return "ssh://git@" + s.addr + "/mem.git", s.hungUp
		}, short, handshake, time.Second},
		{"ssh banner only", func(t *testing.T) (string, <-chan time.Time) {
			t.Setenv("SSH_AUTH_SOCK", sshAgent(t))
			t.Setenv("SSH_KNOWN_HOSTS", knownHosts(t, "[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"))
			s := newStalled(t, func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n")) })
			return "ssh://git@" + s.addr + "/mem.git", s.hungUp
		}, short, handshake, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, hungUp := tc.remote(t)
			l := stranded(t, url)
			before := git(t, l.dir, "rev-parse", "HEAD")
			start := time.Now()
			_, err := Sync(context.Background(), l.repo(), Options{Timeouts: tc.t})
			took := time.Since(start)
			t.Logf("%s after %v", err, took.Round(time.Millisecond))
			if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), "remote origin") ||
				!strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want a time-out of origin (%s), got %v", tc.want, err)
			}
			if took < tc.bound*9/10 || took > tc.bound+3*time.Second {
				t.Errorf("gave up after %v; the bound is %v", took, tc.bound)
			}
			select {
			case at := <-hungUp:
				if at.Sub(start) > took+time.Second {
					t.Errorf("the connection was closed %v after the sync returned", at.Sub(start)-took)
				}
			case <-time.After(2 * time.Second):
				t.Error("the connection is still open")
			}
			if git(t, l.dir, "rev-parse", "HEAD") != before {
				t.Error("a failed sync moved HEAD")
			}
			l.healthy()
			unlock, err := lockfile.Take(context.Background(), filepath.Join(l.dir, ".git", "reflect", "locks", "sync"), 0)
			if err != nil {
				t.Fatalf("the sync lock is still held: %v", err)
			}
			unlock()
		})
	}
}

// stranded is a memory with a commit of its own whose remote is url.
func stranded(t *testing.T, url string) *laptop {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mem")
	if _, _, err := gitstore.Init(context.Background(), dir, gitstore.InitOptions{Remote: url}); err != nil {
		t.Fatal(err)
	}
	l := &laptop{t: t, name: "stranded", dir: dir}
	l.add("Kept whatever the remote does")
	return l
}

// stallingPackServer serves the bare repository dir over smart HTTP with git's own
// http-backend, except that a fetch's pack never comes: the answer starts and stops.
func stallingPackServer(t *testing.T, dir string) (string, <-chan time.Time) {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git --exec-path:", err)
	}
	backend := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1"}}
	hungUp := make(chan time.Time, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			backend.ServeHTTP(w, req)
			return
		}
		io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("0008NAK\n0009\x01PACK"))
		w.(http.Flusher).Flush()
		<-req.Context().Done() // the client hung up
		hungUp <- time.Now()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(dir), hungUp
}
