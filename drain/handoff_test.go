package drain

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
)

// replying is an LLM stand-in whose answer carries a handoff summary for every entry,
// asked or not; it records which entries it was asked about.
type replying struct {
	mu     sync.Mutex
	asked  map[string]*handoff.Summary // session → the summary in its input
	answer func(in Input) Reply
}

func (f *replying) Name() string { return "stand-in" }
func (f *replying) LLM() bool    { return true }
func (f *replying) Extract(ctx context.Context, in Input) ([]Proposal, Usage, error) {
	r, u, err := f.Reply(ctx, in)
	return r.Learnings, u, err
}
func (f *replying) Reply(_ context.Context, in Input) (Reply, Usage, error) {
	f.mu.Lock()
	f.asked[in.Entry.Session] = in.Handoff
	f.mu.Unlock()
	return f.answer(in), Usage{Calls: 1, InputTokens: 100}, nil
}

// writeHandoff commits the handoff session wrote at its capture at time at.
func writeHandoff(t *testing.T, r *gitstore.Repo, project, session string, at time.Time) *handoff.Handoff {
	t.Helper()
	exit := 1
	h := &handoff.Handoff{Harness: "claude-code", Session: session, Machine: "laptop-a", Project: project,
		Commit: "0123456789abcdef0123456789abcdef01234567", Started: at.Add(-time.Hour), Updated: at, Messages: 12, Prompts: 2,
		Task: "add a widget cache and then please also make sure the old tests still pass because they were flaky", Concluded: "The cache_test.go run still fails.",
		Todos:  []handoff.Todo{{Text: "Invalidate on write", Status: handoff.StatusPending}},
		Files:  []string{"cache/widget.go"},
		Failed: []handoff.Failure{{Tool: "Bash", Command: "go test ./cache/...", ExitCode: &exit, Error: "FAIL"}}}
	data, err := h.Render()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(context.Background(), "capture", map[string][]byte{handoff.Path(project, ""): data}); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestDrainRewritesTheHandoffSummary(t *testing.T) {
	const project = "github.com/acme/widgets"
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	good := handoff.Summary{Task: "Add a widget cache without breaking the flaky tests", Concluded: "Stopped with the cache test failing"}
	cases := []struct {
		name    string
		writer  string // the session whose capture wrote the handoff; enqueue names them sess-0000…
		at      time.Time
		answer  Reply
		rewrite bool
		note    string // what the last entry's result says about the handoff
	}{
		{"the last entry's session wrote it", "sess-0002", base.Add(2 * time.Second), Reply{Handoff: &good}, true, handoff.Path(project, "")},
		{"a newer session wrote it", "sess-0009", base.Add(time.Hour), Reply{Handoff: &good}, false, ""},
		{"a later capture of the session wrote it", "sess-0002", base.Add(time.Minute), Reply{Handoff: &good}, false, ""},
		{"the answer's summary was unusable", "sess-0002", base.Add(2 * time.Second), Reply{HandoffNote: "the handoff in the answer is not an object"}, false, "kept the capture's summary: the handoff in the answer is not an object"},
		{"the answer had none", "sess-0002", base.Add(2 * time.Second), Reply{}, false, "kept the capture's summary: the answer has none"},
		{"the answer's summary names what the session does not show", "sess-0002", base.Add(2 * time.Second),
			Reply{Handoff: &handoff.Summary{Task: "Fix the frobnicate_cache panic in cache/frob.go"}}, false,
			"kept the capture's summary: the model's names what the session does not show (frobnicate_cache, cache/frob.go)"},
		{"a term the capture's lines hold is grounded", "sess-0002", base.Add(2 * time.Second),
			Reply{Handoff: &handoff.Summary{Task: "Add a widget cache", Concluded: "Stopped with cache_test.go failing"}}, true, handoff.Path(project, "")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t, "")
			before := writeHandoff(t, r, project, c.writer, c.at)
			enqueue(t, r, 3, project)
			ext := &replying{asked: map[string]*handoff.Summary{}, answer: func(in Input) Reply {
				a := c.answer
				a.Learnings = []Proposal{{Title: "Learned: " + in.Entry.Digest.Notes[0].Text, Body: "body", Kind: "fix", Confidence: "high"}}
				return a
			}}
			rep := run(t, r, ext)
			if rep.Drained != 3 || rep.Learned != 3 {
				t.Fatalf("report %+v", rep)
			}
			for s, h := range ext.asked {
				if want := s == c.writer && c.at.Equal(base.Add(2*time.Second)); (h != nil) != want {
					t.Errorf("entry of %s asked for a summary: %v, want %v", s, h != nil, want)
				}
			}
			if h := ext.asked[c.writer]; h != nil && (h.Task != before.Task || h.Concluded != before.Concluded) {
				t.Errorf("asked with %+v", h)
			}
			for _, e := range rep.Entries[:2] {
				if e.Handoff != "" {
					t.Errorf("entry of %s: handoff %q", e.Session, e.Handoff)
				}
			}
			if got := rep.Entries[2].Handoff; got != c.note {
				t.Errorf("handoff note %q, want %q", got, c.note)
			}
			after, _, err := handoff.Read(r, project, "")
			if err != nil {
				t.Fatal(err)
			}
			facts := func(h *handoff.Handoff) handoff.Handoff {
				f := *h
				f.Task, f.Direction, f.Concluded, f.SummaryBy = "", "", "", ""
				return f
			}
			if !reflect.DeepEqual(facts(before), facts(after)) {
				t.Errorf("facts changed:\n%+v\n%+v", facts(before), facts(after))
			}
			stat := git(t, r.Root(), "show", "--name-status", "--format=%B", "HEAD")
			if !c.rewrite {
				if after.Task != before.Task || after.SummaryBy != "" || strings.Contains(stat, "handoffs/") {
					t.Errorf("the handoff was rewritten: %+v\n%s", after, stat)
				}
				healthy(t, r)
				return
			}
			if want := c.answer.Handoff; after.Task != want.Task || after.Concluded != want.Concluded || after.Direction != before.Direction || after.SummaryBy != "stand-in" {
				t.Errorf("summary not rewritten: %+v", after)
			}
			// in the drain commit of the entry, with its learning and its removal
			for _, want := range []string{"M\t" + handoff.Path(project, ""), "D\tqueue/", "A\t" + learnings.Dir + "/" + project + "/",
				"handoff: the summary of " + handoff.Path(project, "") + " rewritten by stand-in"} {
				if !strings.Contains(stat, want) {
					t.Errorf("the drain commit lacks %q:\n%s", want, stat)
				}
			}
			if n := git(t, r.Root(), "log", "--format=%s", "--", handoff.Path(project, "")); strings.Count(n, "\n")+1 != 2 {
				t.Errorf("handoff history:\n%s", n)
			}
			healthy(t, r)
		})
	}
}

// The heuristic is never asked for a summary, and a paused LLM's entries fall back to it.
func TestHeuristicLeavesTheHandoff(t *testing.T) {
	const project = "github.com/acme/widgets"
	r := newRepo(t, "")
	before := writeHandoff(t, r, project, "sess-0000", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	enqueue(t, r, 1, project)
	rep := run(t, r, Heuristic())
	if rep.Drained != 1 || rep.Entries[0].Handoff != "" {
		t.Fatalf("report %+v", rep)
	}
	after, _, _ := handoff.Read(r, project, "")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("the heuristic changed the handoff: %s", fmt.Sprint(after))
	}
}
