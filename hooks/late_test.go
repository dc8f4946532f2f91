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
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// claudeTranscript copies the Claude Code transcript fixture to a file named name.
func claudeTranscript(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lateStarted is the file of the one `internal late-hook FILE` started, failing the test unless
// exactly one was.
func lateStarted(t *testing.T, started [][]string) string {
	t.Helper()
	var files []string
	for _, args := range started {
		if len(args) == 5 && args[0] == "--home" && args[2] == "internal" && args[3] == "late-hook" && strings.HasPrefix(args[4], LateDir+"/") {
			files = append(files, args[4])
		}
	}
	if len(files) != 1 {
		t.Fatalf("started %q; want one internal late-hook %s/…", started, LateDir)
	}
	return files[0]
}

// A capture its hook gives up on at the deadline is not lost, nor left for the session's next
// capture to give up on the same way: the hook saves its payload and hands it to a detached
// `reflect internal late-hook` (which captures with LateDeadline and prints nothing).
func TestCaptureHandedOnAtTheDeadline(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	transcript := claudeTranscript(t, "5b0c2f7e.jsonl")
	if _, err := r.SetSetting(ctx, "hooks.capture_timeout", "50ms"); err != nil {
		t.Fatal(err)
	}
	held := flock.New(filepath.Join(r.StateDir(), "locks", "repo")) // another write, through the deadline
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	payload, _ := json.Marshal(map[string]any{"session_id": "5b0c2f7e", "hook_event_name": "PreCompact", "transcript_path": transcript, "cwd": t.TempDir(), "trigger": "auto"})
	var started [][]string
	var out bytes.Buffer
	Run(ctx, Options{Harness: "claude", Home: r.Root(), Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: io.Discard,
		Background: func(args ...string) { started = append(started, args) }})
	if out.Len() != 0 {
		t.Fatalf("the hook printed %q", out.String())
	}
	late := lateStarted(t, started)
	l, err := readLate(r, strings.TrimPrefix(late, LateDir+"/"))
	if err != nil || !bytes.Equal(l.Payload, payload) || l.Harness != "claude" || l.Event != "" {
		t.Fatalf("saved %+v (%v), want the hook's payload for claude", l, err)
	}
	last, _ := r.ReadState("last-event.json")
	if !strings.Contains(string(last), `"late":"handed to a background process"`) {
		t.Errorf("last-event.json %s does not say the capture was handed on", last)
	}

	// what it hands on is run by e2e's TestLateCaptureHandedOn, in processes of their own
}

// opencode's captures read its database in reflect-engine, which gives up at the moment the
// lean reflect kills it: the lean reflect hands such a capture on itself.
func TestEngineCaptureHandedOnAtTheDeadline(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	if _, err := r.SetSetting(ctx, "hooks.capture_timeout", "50ms"); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "ses_1", "cwd": t.TempDir()})
	var started [][]string
	var out bytes.Buffer
	Run(ctx, Options{Harness: HostOpencode, Event: "SessionEnd", Home: r.Root(), Stdin: bytes.NewReader(payload), Stdout: &out, Stderr: io.Discard,
		Background: func(args ...string) { started = append(started, args) },
		HandOff: func(ctx context.Context, h Handed) ([]byte, error) {
			<-ctx.Done() // killed at the deadline, before its own hand-off
			return nil, ctx.Err()
		}})
	if out.Len() != 0 {
		t.Fatalf("the hook printed %q", out.String())
	}
	l, err := readLate(r, strings.TrimPrefix(lateStarted(t, started), LateDir+"/"))
	if err != nil || !bytes.Equal(l.Payload, payload) || l.Harness != HostOpencode || l.Event != "SessionEnd" {
		t.Fatalf("saved %+v (%v), want the hook's payload for opencode SessionEnd", l, err)
	}
}

// RunLate removes a capture once it is done; one that does not complete is kept for the drain
// until LateKept has passed, then dropped with an error; a file that is no capture is dropped;
// one already gone is no error. AbandonedLate lists, oldest first, those left unchanged for
// LateAbandoned.
func TestRunLate(t *testing.T) {
	testenv.SetHome(t)
	r := newMemory(t)
	dir := filepath.Join(r.StateDir(), filepath.FromSlash(LateDir))
	save := func(name string, l Late, age time.Duration) {
		t.Helper()
		data, _ := json.Marshal(l)
		if l.Harness == "" {
			data = []byte("{not json")
		}
		if err := r.WriteState(LateDir+"/"+name, data); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	capture := func(saved time.Duration) Late {
		return Late{Harness: HostClaude, Saved: time.Now().Add(-saved), Payload: []byte(`{"session_id":"s"}`)}
	}
	for _, tt := range []struct {
		name    string
		late    Late
		done    bool
		ran     bool
		kept    bool
		wantErr string
	}{
		{name: "done", late: capture(time.Minute), done: true, ran: true},
		{name: "gave up again", late: capture(time.Hour), ran: true, kept: true},
		{name: "gave up for a day", late: capture(LateKept + time.Minute), ran: true, wantErr: "did not complete within"},
		{name: "no capture", late: Late{}, wantErr: "not a capture handed on"},
		{name: "unknown harness", late: Late{Harness: "vim", Payload: []byte("{}")}, wantErr: "not a capture handed on"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := "c-" + strings.ReplaceAll(tt.name, " ", "-") + ".json"
			save(name, tt.late, 3*time.Minute)
			ran := false
			err := RunLate(r, name, func(l Late) Outcome {
				ran = true
				if !bytes.Equal(l.Payload, tt.late.Payload) {
					t.Errorf("ran %q", l.Payload)
				}
				return Outcome{Done: tt.done}
			})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want %q", err, tt.wantErr)
			}
			if ran != tt.ran {
				t.Errorf("ran %v, want %v", ran, tt.ran)
			}
			_, statErr := os.Stat(filepath.Join(dir, name))
			if kept := statErr == nil; kept != tt.kept {
				t.Errorf("kept %v, want %v", kept, tt.kept)
			}
			if tt.kept {
				if old, _ := AbandonedLate(r, time.Now()); slices.Contains(old, name) {
					t.Errorf("a capture just run again is listed as abandoned: %v", old)
				}
				os.Remove(filepath.Join(dir, name))
			}
		})
	}
	if err := RunLate(r, "gone.json", func(Late) Outcome { t.Error("ran a capture that is gone"); return Outcome{} }); err != nil {
		t.Errorf("a capture already gone: %v", err)
	}

	// one process at a time runs a capture: another that takes it up meanwhile leaves it
	save("busy.json", capture(time.Minute), 3*time.Minute)
	held := flock.New(filepath.Join(r.StateDir(), "locks", "late", "busy.json"))
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatal(err)
	}
	if err := RunLate(r, "busy.json", func(Late) Outcome { t.Error("ran a capture another process runs"); return Outcome{} }); err != nil {
		t.Errorf("a capture another process runs: %v", err)
	}
	held.Unlock()
	if err := RunLate(r, "busy.json", func(Late) Outcome { return Outcome{Done: true} }); err != nil || LateSaved(r) != 0 {
		t.Errorf("once free, run: %v, %d left", err, LateSaved(r))
	}
	if _, err := os.Stat(filepath.Join(r.StateDir(), "locks", "late", "busy.json")); err == nil {
		t.Error("the run's lock file stays")
	}

	save("new.json", capture(0), time.Second)
	save("older.json", capture(0), 10*time.Minute)
	save("old.json", capture(0), 5*time.Minute)
	old, err := AbandonedLate(r, time.Now())
	if err != nil || !slices.Equal(old, []string{"older.json", "old.json"}) {
		t.Errorf("abandoned %q (%v), want older.json, old.json", old, err)
	}
	if n := LateSaved(r); n != 3 {
		t.Errorf("LateSaved %d, want 3", n)
	}
}
