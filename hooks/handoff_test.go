package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

// TestHandOff: the lean reflect hands the recall events to reflect-engine and prints what it
// printed only when that is one JSON object in time; a failure prints nothing and is in
// last-event.json; with no engine at all, what needs none (a prompt's remember:) is still done.
// Captures never go to the engine.
func TestHandOff(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	const answer = `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"X"}}`
	for _, tt := range []struct {
		name      string
		payload   map[string]any
		engine    func(ctx context.Context, payload []byte) ([]byte, error)
		handed    bool
		out       string
		errInLast string
		learned   bool
	}{
		{name: "prompt answered", payload: map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "how do we deploy"},
			engine: func(context.Context, []byte) ([]byte, error) { return []byte(answer + "\n"), nil }, handed: true, out: answer + "\n"},
		{name: "engine prints nothing", payload: map[string]any{"hook_event_name": "SessionStart", "session_id": "s2"},
			engine: func(context.Context, []byte) ([]byte, error) { return nil, nil }, handed: true},
		{name: "engine prints junk", payload: map[string]any{"hook_event_name": "SessionStart", "session_id": "s3"},
			engine: func(context.Context, []byte) ([]byte, error) { return []byte("panic: oops\n{"), nil }, handed: true, errInLast: "other than one JSON object"},
		{name: "engine crashes", payload: map[string]any{"hook_event_name": "SessionStart", "session_id": "s4"},
			engine: func(context.Context, []byte) ([]byte, error) { return []byte(answer), errors.New("exit status 2") }, handed: true, errInLast: "exit status 2"},
		{name: "engine late", payload: map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s5", "prompt": "why"},
			engine: func(ctx context.Context, _ []byte) ([]byte, error) {
				<-ctx.Done()
				return []byte(answer), nil
			}, handed: true, errInLast: "deadline"},
		{name: "no engine: remember is still committed", payload: map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s6", "prompt": "remember: the staging db is read-only on fridays"},
			engine: func(context.Context, []byte) ([]byte, error) {
				return nil, fmt.Errorf("%w: not installed", ErrNoEngine)
			}, handed: true, errInLast: "reflect-engine could not be started", learned: true},
		{name: "a capture stays here", payload: map[string]any{"hook_event_name": "PostToolUse", "session_id": "s7", "tool_name": "Bash", "tool_response": map[string]any{"exit_code": 1}},
			engine: func(context.Context, []byte) ([]byte, error) { return []byte(answer), nil }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := json.Marshal(tt.payload)
			var out bytes.Buffer
			handed := false
			start := time.Now()
			Run(ctx, Options{Harness: HostClaude, Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard,
				HandOff: func(ctx context.Context, h Handed) ([]byte, error) {
					handed = true
					if !bytes.Equal(h.Payload, p) {
						t.Errorf("the engine got %q; want the payload %q", h.Payload, p)
					}
					if h.StateDir != r.StateDir() || h.Resident != r.Config().Recall.Resident.Std() || time.Since(h.Began) > time.Second {
						t.Errorf("handed %+v; want the state directory %s, recall.resident and when the hook began", h, r.StateDir())
					}
					return tt.engine(ctx, h.Payload)
				}})
			if handed != tt.handed {
				t.Fatalf("handed to the engine: %v; want %v", handed, tt.handed)
			}
			if out.String() != tt.out {
				t.Fatalf("printed %q; want %q", out.String(), tt.out)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("the hook took %v", d)
			}
			last, _ := r.ReadState("last-event.json")
			if tt.errInLast != "" && !strings.Contains(string(last), tt.errInLast) {
				t.Fatalf("last-event.json %s; want an error with %q", last, tt.errInLast)
			}
			r2, err := gitstore.Open(r.Root()) // what the hook committed
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			ls, _, err := learnings.LoadAll(r2)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range ls {
				found = found || l.Source.Session == tt.payload["session_id"]
			}
			if found != tt.learned {
				t.Fatalf("a learning of this session: %v; want %v", found, tt.learned)
			}
		})
	}
}

// TestResidentWaitsForLateWork: in a resident engine (Options.Resident) a hook whose work passes
// its deadline prints nothing, as anywhere, but Run returns only once that work has ended: the
// engine's next hook changes the process's environment and directory. Elsewhere Run leaves at
// the deadline (the process exits, or is killed, under the work).
func TestResidentWaitsForLateWork(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	// the deadline: recall_timeout is a shared setting, at most 5 s; 100 ms here
	if err := os.WriteFile(filepath.Join(r.Root(), config.FileName), []byte("[hooks]\nrecall_timeout = \"100ms\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const late = 600 * time.Millisecond
	for _, resident := range []bool{false, true} {
		var ended atomic.Bool
		engine := &Engine{Recall: func(context.Context, RecallQuery) (string, int, error) {
			time.Sleep(late)
			ended.Store(true)
			return "too late", 1, nil
		}}
		p, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": fmt.Sprint("late-", resident), "prompt": "how do we deploy"})
		var out bytes.Buffer
		start := time.Now()
		Run(ctx, Options{Harness: HostClaude, Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: &out, Stderr: io.Discard, Engine: engine, Resident: resident})
		took := time.Since(start)
		if out.Len() != 0 {
			t.Errorf("resident %v: printed %q past the deadline", resident, out.String())
		}
		if resident && (!ended.Load() || took < late) {
			t.Errorf("resident: Run returned after %v, before its late work ended", took)
		}
		if !resident && took >= late {
			t.Errorf("not resident: Run waited %v for work past its deadline", took)
		}
		time.Sleep(late) // the abandoned work of the first run ends before the next
	}
}
