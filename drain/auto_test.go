package drain

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAutoChoosesTheHostsCLI(t *testing.T) {
	for _, tt := range []struct {
		onPath       []string
		claude, codx string // what auto runs for a Claude Code and a Codex capture
	}{
		{[]string{"claude", "codex"}, "claude", "codex"},
		{[]string{"claude"}, "claude", "claude"},
		{[]string{"codex"}, "codex", "codex"},
		{nil, "heuristic", "heuristic"},
	} {
		a := Auto(LLMOptions{}).(*auto)
		a.lookPath = func(name string) (string, error) {
			for _, p := range tt.onPath {
				if p == name {
					return "/usr/bin/" + name, nil
				}
			}
			return "", errors.New("not found")
		}
		if got := a.For("claude-code").Name(); got != tt.claude {
			t.Errorf("%v: a Claude Code capture → %s, want %s", tt.onPath, got, tt.claude)
		}
		if got := a.For("codex").Name(); got != tt.codx {
			t.Errorf("%v: a Codex capture → %s, want %s", tt.onPath, got, tt.codx)
		}
	}
}

// auto asks the model of the capture's host while it may; at a daily cap it drains with the
// heuristic instead of leaving the queue for tomorrow (an extractor the user chose waits).
func TestAutoFallsBackAtTheCap(t *testing.T) {
	r := newRepo(t, "[drain]\nmax_calls_per_day = 2\n")
	ids := enqueue(t, r, 4, "github.com/acme/widgets")
	llm := &fake{name: "claude", llm: true, answer: oneLesson}
	a := &auto{claude: llm, codex: &fake{name: "codex", llm: true, answer: oneLesson},
		lookPath: func(name string) (string, error) { return "/usr/bin/" + name, nil }}
	rep, err := Run(context.Background(), r, Options{Extractor: a, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drained != 4 || rep.Remaining != 0 || rep.Stopped != "" || llm.calls != 2 {
		t.Fatalf("report %+v, the model was asked %d times", rep, llm.calls)
	}
	for i, e := range rep.Entries {
		want := "claude"
		if i >= 2 {
			want = "heuristic"
		}
		if e.ID != ids[i] || e.Extractor != want {
			t.Errorf("entry %d: %s by %s, want %s", i, e.ID, e.Extractor, want)
		}
	}
	healthy(t, r)
}
