package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	var late []string
	for _, args := range started {
		if strings.Join(args[2:min(4, len(args))], " ") == "internal late-hook" {
			late = args
		}
	}
	if len(late) != 7 || late[1] != r.Root() || late[4] != "claude" || late[5] != "" || !strings.HasPrefix(late[6], LateDir+"/") {
		t.Fatalf("started %q; want one internal late-hook claude \"\" %s/…", started, LateDir)
	}
	saved, err := r.ReadState(late[6])
	if err != nil || !bytes.Equal(saved, payload) {
		t.Fatalf("saved payload %q (%v), want the hook's", saved, err)
	}
	last, _ := r.ReadState("last-event.json")
	if !strings.Contains(string(last), `"late":"handed to a background process"`) {
		t.Errorf("last-event.json %s does not say the capture was handed on", last)
	}

	// what it hands on is run by e2e's TestLateCaptureHandedOn, in processes of their own
}
