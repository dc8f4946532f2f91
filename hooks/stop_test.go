package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	historywatch "github.com/reflect-memory/reflect/history/watch"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/team"
)

// TestStopArchivesTranscript: a Stop hook hands the transcript to a detached
// `reflect history import --watch` and otherwise behaves as before (no output, the capture);
// while that importer watches the session, a Stop pokes it and starts nothing; with
// history.watch 0 every Stop starts a plain import; a Stop without a transcript (Codex may
// send null) starts no import.
func TestStopArchivesTranscript(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	transcript := claudeTranscript(t, "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93.jsonl")
	stop := map[string]any{"session_id": "5b0c2f7e", "hook_event_name": "Stop", "transcript_path": transcript, "cwd": t.TempDir(), "stop_hook_active": false}
	plain := []string{"--home", r.Root(), "history", "import", "--transcript", transcript}
	var pokes atomic.Int32
	for _, tt := range []struct {
		name, harness string
		payload       map[string]any
		want          []string // the history import started, nil for none
		before        func(t *testing.T) func()
	}{
		{"claude", "claude", stop, append(slices.Clone(plain), "--watch", "5m0s"), nil},
		{"claude, the importer watching", "claude", stop, nil, func(t *testing.T) func() {
			ctx, cancel := context.WithCancel(ctx)
			watching := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				historywatch.Watch(ctx, r.StateDir(), transcript, time.Minute, func() error {
					if pokes.Add(1) == 1 {
						close(watching)
					}
					return nil
				}, func(error) {})
			}()
			<-watching
			return func() {
				for end := time.Now().Add(5 * time.Second); pokes.Load() < 2 && time.Now().Before(end); {
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
				<-done
				if pokes.Load() != 2 {
					t.Errorf("the watching importer imported %d times; want 2 (at start, then for the poke)", pokes.Load())
				}
			}
		}},
		{"claude, history.watch 0", "claude", stop, plain, func(t *testing.T) func() {
			if _, err := r.SetSetting(ctx, "history.watch", "0s"); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
		{"codex without a transcript", "codex", map[string]any{"session_id": "019cb7e4", "hook_event_name": "Stop", "transcript_path": nil, "cwd": t.TempDir(), "turn_id": "t1"}, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			after := func() {}
			if tt.before != nil {
				after = tt.before(t)
			}
			defer after()
			var started [][]string
			p, _ := json.Marshal(tt.payload)
			var out bytes.Buffer
			Run(ctx, Options{Harness: tt.harness, Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard,
				Background: func(args ...string) { started = append(started, args) }})
			if out.Len() != 0 {
				t.Errorf("Stop printed %q; it must print nothing", out.String())
			}
			var imports [][]string
			for _, args := range started {
				if slices.Contains(args, "history") {
					imports = append(imports, args)
				}
			}
			switch {
			case tt.want == nil && len(imports) > 0:
				t.Errorf("started %v; want no history import", imports)
			case tt.want != nil && (len(imports) != 1 || !slices.Equal(imports[0], tt.want)):
				t.Errorf("started %v; want one %v", started, tt.want)
			}
		})
	}
}

// TestSessionStartStartsImporter: a session's start starts its history importer (it costs a
// Stop hook a seventh of its time, a session start a fortieth), so that the Stops poke it;
// with one watching already, or history.watch 0, it starts none.
func TestSessionStartStartsImporter(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	transcript := filepath.Join(t.TempDir(), "9d0e1f2a-3b4c-4d5e-8f6a-7b8c9d0e1f2a.jsonl") // not written yet
	start := map[string]any{"session_id": "9d0e1f2a", "hook_event_name": "SessionStart", "source": "startup", "transcript_path": transcript, "cwd": t.TempDir()}
	imports := func() [][]string {
		var started [][]string
		p, _ := json.Marshal(start)
		Run(ctx, Options{Harness: "claude", Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: io.Discard, Stderr: io.Discard,
			Background: func(args ...string) { started = append(started, args) }})
		var out [][]string
		for _, args := range started {
			if slices.Contains(args, "history") {
				out = append(out, args)
			}
		}
		return out
	}
	want := []string{"--home", r.Root(), "history", "import", "--transcript", transcript, "--watch", "5m0s"}
	if got := imports(); len(got) != 1 || !slices.Equal(got[0], want) {
		t.Fatalf("started %v; want %v", got, want)
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		historywatch.Watch(wctx, r.StateDir(), transcript, time.Minute, func() error { return nil }, func(error) {})
		close(done)
	}()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if watched, _ := historywatch.Poke(r.StateDir(), transcript); watched {
			break
		}
	}
	if got := imports(); len(got) != 0 {
		t.Errorf("with an importer watching, started %v", got)
	}
	cancel()
	<-done
	if _, err := r.SetSetting(ctx, "history.watch", "0s"); err != nil {
		t.Fatal(err)
	}
	if got := imports(); len(got) != 0 {
		t.Errorf("with history.watch 0, started %v", got)
	}
}

// TestSessionStartStartsBesides: a session's start starts a sync when sync.auto is on and the
// remote is set, a team sync when a team is added, a drain when captures wait, each once and
// only then (worked out while its recall runs).
func TestSessionStartStartsBesides(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	started := func() []string {
		var out []string
		p, _ := json.Marshal(map[string]any{"session_id": "5e6f", "hook_event_name": "SessionStart", "source": "startup", "cwd": t.TempDir()})
		Run(ctx, Options{Harness: "claude", Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: io.Discard, Stderr: io.Discard,
			Background: func(args ...string) { out = append(out, strings.Join(args[2:], " ")) }})
		return out
	}
	if got := started(); len(got) != 0 {
		t.Fatalf("a bare memory's session start started %q", got)
	}
	if err := r.SetRemote("origin", filepath.Join(t.TempDir(), "remote.git")); err != nil {
		t.Fatal(err)
	}
	if got := started(); len(got) != 0 {
		t.Fatalf("with a remote and sync.auto off, started %q", got)
	}
	if _, err := r.SetSetting(ctx, "sync.auto", "true"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(team.Dir(r, "acme"), ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(team.Dir(r, "acme"), ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(r.Root(), queue.Dir), 0o755)
	if err := os.WriteFile(filepath.Join(r.Root(), queue.Dir, "q-1.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"sync --quiet --remote origin", "team sync --quiet", "drain"}
	if got := started(); !slices.Equal(got, want) {
		t.Fatalf("started %q; want %q", got, want)
	}
}
