//go:build unix

package resident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/internal/lockfile"
)

// The tests run the resident engine as a process of its own (this test binary, told so by
// RESIDENT_SERVE), since Serve makes each hook's environment and directory the process's.
func TestMain(m *testing.M) {
	if os.Getenv("RESIDENT_SERVE") == "" {
		os.Exit(m.Run())
	}
	idle, _ := time.ParseDuration(os.Getenv("RESIDENT_IDLE"))
	state, engine := os.Getenv("RESIDENT_STATE"), os.Getenv("RESIDENT_ENGINE")
	served, err := Serve(context.Background(), state, engine, func() time.Duration { return idle }, slog.New(slog.DiscardHandler), nil, echo)
	fmt.Printf("served=%v err=%v\n", served, err)
	os.Exit(0)
}

// echo is the test engine's hook: it says what it ran in, or never returns ("hang").
func echo(ctx context.Context, req Request, payload []byte, out io.Writer) func() {
	switch string(payload) {
	case "hang":
		select {}
	case "slow":
		time.Sleep(400 * time.Millisecond)
	}
	wd, _ := os.Getwd()
	_, hasDeadline := ctx.Deadline()
	json.NewEncoder(out).Encode(map[string]any{"payload": string(payload), "event": req.Event, "x": os.Getenv("RESIDENT_X"),
		"cwd": wd, "umask": Umask(), "deadline": hasDeadline, "pid": os.Getpid()})
	return nil
}

// memory is a state directory and an engine file (any file: its identity names the socket),
// under /tmp: macOS's temporary directory is too deep for a socket's path.
func memory(t *testing.T) (state, engine string) {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "resident-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	state, engine = filepath.Join(dir, ".git", "reflect"), filepath.Join(dir, "engine")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(engine, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	return state, engine
}

// serve starts a resident engine for the memory and waits until it listens; done yields what
// it printed as it left.
func serve(t *testing.T, state, engine string, idle time.Duration) (done <-chan string, p *os.Process) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "RESIDENT_SERVE=1", "RESIDENT_IDLE="+idle.String(), "RESIDENT_STATE="+state, "RESIDENT_ENGINE="+engine)
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(out)
		c.Wait()
		ch <- strings.TrimSpace(string(b))
	}()
	t.Cleanup(func() { c.Process.Kill() })
	sock, _, _ := Socket(state, engine)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return ch, c.Process
		}
	}
	t.Fatal("the resident engine never listened")
	return nil, nil
}

func ask(t *testing.T, state, engine string, req Request, payload string) (map[string]any, error) {
	t.Helper()
	sock, _, ok := Socket(state, engine)
	if !ok {
		t.Fatal("no socket")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := Ask(ctx, sock, req, []byte(payload))
	if err != nil {
		return nil, err
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	return got, nil
}

// TestAsk: each hook runs in its own directory, environment and umask, with its payload and
// a deadline, in the one engine that stays.
func TestAsk(t *testing.T) {
	state, engine := memory(t)
	serve(t, state, engine, time.Minute)
	var pid any
	for i, tt := range []struct {
		cwd, x string
		umask  int
	}{{t.TempDir(), "first", 0o022}, {t.TempDir(), "second", 0o077}, {"/", "", 0o002}} {
		env := []string{"PATH=" + os.Getenv("PATH")}
		if tt.x != "" {
			env = append(env, "RESIDENT_X="+tt.x)
		}
		got, err := ask(t, state, engine, Request{Harness: "claude", Event: "UserPromptSubmit", Cwd: tt.cwd, Env: env, Umask: tt.umask}, fmt.Sprint("payload ", i))
		if err != nil {
			t.Fatal(err)
		}
		cwd, _ := filepath.EvalSymlinks(tt.cwd) // macOS: /var is /private/var
		if got["cwd"] != tt.cwd {
			got["cwd"], _ = filepath.EvalSymlinks(fmt.Sprint(got["cwd"]))
		}
		want := map[string]any{"payload": fmt.Sprint("payload ", i), "event": "UserPromptSubmit", "x": tt.x, "cwd": cwd,
			"umask": float64(tt.umask), "deadline": true}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("hook %d: %s = %v; want %v", i, k, got[k], v)
			}
		}
		if pid != nil && got["pid"] != pid {
			t.Errorf("hook %d answered by process %v; the first by %v", i, got["pid"], pid)
		}
		pid = got["pid"]
	}
}

// TestAbsent: with no engine, or a killed engine's socket left behind, Ask says ErrAbsent
// (nothing was run), and a new engine takes the killed one's place.
func TestAbsent(t *testing.T) {
	state, engine := memory(t)
	if _, err := ask(t, state, engine, Request{}, "x"); !errors.Is(err, ErrAbsent) {
		t.Fatalf("no engine: %v; want ErrAbsent", err)
	}
	_, p := serve(t, state, engine, time.Minute)
	p.Signal(syscall.SIGKILL)
	p.Wait()
	sock, _, _ := Socket(state, engine)
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("a killed engine's socket: %v", err)
	}
	if _, err := ask(t, state, engine, Request{}, "x"); !errors.Is(err, ErrAbsent) {
		t.Fatalf("a killed engine's socket: %v; want ErrAbsent", err)
	}
	serve(t, state, engine, time.Minute)
	if _, err := ask(t, state, engine, Request{}, "x"); err != nil {
		t.Fatalf("the engine after a killed one: %v", err)
	}
}

// TestOneServes: a second engine for the same memory and executable does nothing.
func TestOneServes(t *testing.T) {
	state, engine := memory(t)
	serve(t, state, engine, time.Minute)
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "RESIDENT_SERVE=1", "RESIDENT_IDLE=1m", "RESIDENT_STATE="+state, "RESIDENT_ENGINE="+engine)
	out, err := c.Output()
	if err != nil || strings.TrimSpace(string(out)) != "served=false err=<nil>" {
		t.Fatalf("a second engine: %q, %v; want served=false", out, err)
	}
}

// TestLeaves: the engine leaves after its idle time, when asked (Leave), when its memory is
// removed, and when its executable is replaced; and one started while Leave stands leaves
// at once.
func TestLeaves(t *testing.T) {
	for _, tt := range []struct {
		name string
		idle time.Duration
		do   func(t *testing.T, state, engine string)
	}{
		{"idle", 300 * time.Millisecond, func(*testing.T, string, string) {}},
		{"asked", time.Hour, func(t *testing.T, state, _ string) {
			stay, err := Leave(state)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stay)
		}},
		{"memory removed", time.Hour, func(t *testing.T, state, _ string) { os.RemoveAll(filepath.Dir(state)) }},
		{"reinstalled", time.Hour, func(t *testing.T, _, engine string) {
			tmp := engine + ".new"
			os.WriteFile(tmp, []byte("v2"), 0o755)
			if err := os.Rename(tmp, engine); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			state, engine := memory(t)
			done, _ := serve(t, state, engine, tt.idle)
			start := time.Now()
			tt.do(t, state, engine)
			select {
			case out := <-done:
				if out != "served=true err=<nil>" {
					t.Fatalf("it left saying %q", out)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the engine did not leave")
			}
			if d := time.Since(start); d > tt.idle+3*time.Second {
				t.Errorf("it left after %v", d)
			}
			sock, _, _ := Socket(state, engine)
			if _, err := os.Stat(sock); err == nil {
				t.Errorf("its socket is left behind")
			}
		})
	}
	// a memory removed and made again at its path: the old engine leaves, and leaves the new
	// one's socket alone
	state, engine := memory(t)
	done, _ := serve(t, state, engine, time.Hour)
	os.RemoveAll(state)
	os.MkdirAll(state, 0o755)
	serve(t, state, engine, time.Hour)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the engine of a memory made again stayed")
	}
	if _, err := ask(t, state, engine, Request{}, "x"); err != nil {
		t.Fatalf("the new memory's engine, after the old one left: %v", err)
	}

	state, engine = memory(t)
	stay, _ := Leave(state)
	defer stay()
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "RESIDENT_SERVE=1", "RESIDENT_IDLE=1h", "RESIDENT_STATE="+state, "RESIDENT_ENGINE="+engine)
	if out, err := c.Output(); err != nil || strings.TrimSpace(string(out)) != "served=false err=<nil>" {
		t.Fatalf("an engine started while Leave stands: %q, %v; want served=false", out, err)
	}
}

// TestHostilePeers: connections that send nothing, garbage, a header claiming a huge payload
// or a payload shorter than its header says neither stop the engine nor hold up a hook.
func TestHostilePeers(t *testing.T) {
	state, engine := memory(t)
	serve(t, state, engine, time.Minute)
	sock, _, _ := Socket(state, engine)
	for _, send := range []string{"", "not json\n", `{"size": 99999999999}` + "\n", `{"size": 10}` + "\nshort", strings.Repeat("x", 2<<20)} {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(send))
	}
	start := time.Now()
	if _, err := ask(t, state, engine, Request{Harness: "claude"}, "after them"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a hook behind hostile peers took %v", d)
	}
}

// TestBusy: a hook that comes while another runs longer than busyWait is handed back unrun
// (ErrBusy, which is ErrAbsent), at once, not after the other; the other is answered.
func TestBusy(t *testing.T) {
	state, engine := memory(t)
	serve(t, state, engine, time.Minute)
	slow := make(chan error, 1)
	go func() {
		_, err := ask(t, state, engine, Request{Harness: "claude"}, "slow")
		slow <- err
	}()
	time.Sleep(50 * time.Millisecond) // the slow one runs
	start := time.Now()
	if _, err := ask(t, state, engine, Request{Harness: "claude"}, "meanwhile"); !errors.Is(err, ErrBusy) || !errors.Is(err, ErrAbsent) {
		t.Fatalf("a hook while another runs: %v; want ErrBusy", err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("handed back after %v", d)
	}
	if err := <-slow; err != nil {
		t.Fatalf("the slow hook: %v", err)
	}
	if _, err := ask(t, state, engine, Request{Harness: "claude"}, "after"); err != nil {
		t.Fatalf("a hook after: %v", err)
	}
}

// TestHungHook: a hook that never returns makes the engine give itself up after its deadline
// (the asking hook printed nothing by then); the next hook finds none (ErrAbsent), so its
// process answers it.
func TestHungHook(t *testing.T) {
	state, engine := memory(t)
	done, _ := serve(t, state, engine, time.Minute)
	sock, _, _ := Socket(state, engine)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Ask(ctx, sock, Request{}, []byte("hang")); err == nil || errors.Is(err, ErrAbsent) {
		t.Fatalf("a hung hook: %v; want a deadline error that is not ErrAbsent", err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine of a hung hook stayed")
	}
	if _, err := ask(t, state, engine, Request{}, "x"); !errors.Is(err, ErrAbsent) {
		t.Fatalf("after a hung hook: %v; want ErrAbsent", err)
	}
}

// TestSocketName: the socket's name changes with the executable's identity and TZ, and there
// is none for a memory too deep for a socket's path.
func TestSocketName(t *testing.T) {
	state, engine := memory(t)
	a, _, ok := Socket(state, engine)
	if !ok || filepath.Dir(a) != Dir(state) {
		t.Fatalf("Socket = %q, %v", a, ok)
	}
	t.Setenv("TZ", "Asia/Tokyo")
	if b, _, _ := Socket(state, engine); b == a {
		t.Error("another TZ, the same socket")
	}
	deep := filepath.Join(state, strings.Repeat("d", 90))
	if _, _, ok := Socket(deep, engine); ok {
		t.Error("a socket path over the bound")
	}
	if _, _, ok := Socket(state, engine+".missing"); ok {
		t.Error("a socket for a missing executable")
	}
}

// TestPrune: an engine that starts removes the lock files (and sockets) of other engine
// executables that nobody holds and nobody touched for a week; a held one, a recent one and
// its own stay.
func TestPrune(t *testing.T) {
	state, engine := memory(t)
	dir := Dir(state)
	os.MkdirAll(dir, 0o700)
	old := time.Now().Add(-8 * 24 * time.Hour)
	touch := func(name string, at time.Time) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o600)
		os.Chtimes(p, at, at)
		return p
	}
	gone := []string{touch("aaaa.lock", old), touch("aaaa.sock", old)}
	recent := touch("bbbb.lock", time.Now())
	held := touch("cccc.lock", old)
	unlock, err := lockfile.Take(context.Background(), held, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	serve(t, state, engine, time.Minute)
	for _, p := range gone {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was kept", filepath.Base(p))
		}
	}
	for _, p := range []string{recent, held} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}
