package handoff

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/transcript"
)

func TestSummaryCheck(t *testing.T) {
	long := strings.Repeat("x", MaxSummaryLine+1)
	tests := []struct {
		name string
		in   Summary
		want Summary
		err  string // a part of the error; "" for none
	}{
		{"plain", Summary{Task: "Add refunded_at to orders", Direction: "", Concluded: "Backfill test fails on orphaned refunds"},
			Summary{Task: "Add refunded_at to orders", Concluded: "Backfill test fails on orphaned refunds"}, ""},
		{"lines squeezed to one", Summary{Task: "  add\n the  column\t"}, Summary{Task: "add the column"}, ""},
		{"control characters dropped", Summary{Task: "add \x1b[31mit"}, Summary{Task: "add [31mit"}, ""},
		{"secret redacted", Summary{Task: "push with ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}, Summary{}, "REDACTED"},
		{"at the bound", Summary{Task: strings.Repeat("é", MaxSummaryLine)}, Summary{Task: strings.Repeat("é", MaxSummaryLine)}, ""},
		{"no task", Summary{Concluded: "done"}, Summary{}, "no task"},
		{"blank task", Summary{Task: " \n\t"}, Summary{}, "no task"},
		{"task too long", Summary{Task: long}, Summary{}, "task is 301 characters long, the limit is 300"},
		{"direction too long", Summary{Task: "a", Direction: long}, Summary{}, "direction is 301"},
		{"conclusion too long", Summary{Task: "a", Concluded: long}, Summary{}, "concluded is 301"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Check()
			if tt.err == "REDACTED" {
				if err != nil || !strings.Contains(got.Task, "[REDACTED") || strings.Contains(got.Task, "ghp_u8jz") {
					t.Fatalf("got %+v, %v", got, err)
				}
				return
			}
			if tt.err != "" {
				if !errors.Is(err, ErrSummary) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestRewrite: the summary lines of the handoff an entry's capture wrote are replaced, its
// facts never; another session's, a later capture's, a missing handoff or an unusable
// summary leave the file as it was.
func TestRewrite(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	s1 := meta
	later := meta
	later.Session, later.Now = "s2", meta.Now.Add(time.Hour)
	msgs := []transcript.Message{
		user("add a refunded_at column to orders and backfill it"),
		call("1", "TodoWrite", `{"todos":[{"content":"Backfill","status":"in_progress"}]}`),
		call("2", "Edit", `{"file_path":"/home/ada/src/shop/db/orders.go"}`),
		call("3", "Bash", `{"command":"go test ./db/..."}`),
		result("3", "Exit code 1\nFAIL", true),
		said("The backfill test still fails."),
	}
	good := Summary{Task: "Add refunded_at to orders and backfill it", Direction: "Fixing the backfill test", Concluded: "Orphaned refunds break the backfill"}
	cap1 := Capture{Project: s1.Project, Branch: s1.Branch, Harness: s1.Harness, Session: s1.Session, Updated: s1.Now}
	tests := []struct {
		name    string
		written []Meta // the captures that wrote the handoff, in order
		c       Capture
		s       Summary
		skipped string // "" when it is rewritten
	}{
		{"the capture's own handoff", []Meta{s1}, cap1, good, ""},
		{"no handoff", nil, cap1, good, "no handoff"},
		{"a newer session's", []Meta{s1, later}, cap1, good, "session s2 wrote the handoff since"},
		{"a later capture of the session", []Meta{s1}, func() Capture { c := cap1; c.Updated = c.Updated.Add(-time.Minute); return c }(), good, "a later capture"},
		{"another harness's session of that id", []Meta{s1}, func() Capture { c := cap1; c.Harness = "codex"; return c }(), good, "wrote the handoff since"},
		{"another branch", []Meta{s1}, func() Capture { c := cap1; c.Branch = "main"; return c }(), good, "no handoff"},
		{"no task", []Meta{s1}, cap1, Summary{Concluded: "x"}, "no task"},
		{"oversized", []Meta{s1}, cap1, Summary{Task: strings.Repeat("y", 2000)}, "limit is 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tt.written {
				if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
					_, err := Stage(tx, msgs, m)
					return "capture", err
				}); err != nil {
					t.Fatal(err)
				}
			}
			before, _, _ := Read(r, meta.Project, meta.Branch)
			var w Written
			if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
				var err error
				w, err = Rewrite(tx, tt.c, tt.s, "claude")
				return "drain", err
			}); err != nil {
				t.Fatal(err)
			}
			after, blob, err := Read(r, meta.Project, meta.Branch)
			if err != nil {
				t.Fatal(err)
			}
			if tt.skipped != "" {
				if w.Path != "" || !strings.Contains(w.Skipped, tt.skipped) {
					t.Fatalf("got %+v, want skipped %q", w, tt.skipped)
				}
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("the handoff changed:\n%+v\n%+v", before, after)
				}
				return
			}
			if w.Path != Path(meta.Project, meta.Branch) || w.Blob != blob {
				t.Fatalf("written %+v, blob in HEAD %s", w, blob)
			}
			if after.Task != good.Task || after.Direction != good.Direction || after.Concluded != good.Concluded || after.SummaryBy != "claude" {
				t.Errorf("summary %+v", after)
			}
			// the facts are the capture's, to the byte
			facts := func(h *Handoff) Handoff {
				f := *h
				f.Task, f.Direction, f.Concluded, f.SummaryBy = "", "", "", ""
				return f
			}
			if !reflect.DeepEqual(facts(before), facts(after)) {
				t.Errorf("facts changed:\n%+v\n%+v", facts(before), facts(after))
			}
			if len(after.Todos) != 1 || len(after.Files) != 1 || len(after.Failed) != 1 || after.Failed[0].Error != "FAIL" {
				t.Errorf("facts %+v", after)
			}
		})
	}
}

// TestRewriteThenFold: a later capture of the session folds into the rewritten
// handoff; the task stays the model's and says so.
func TestRewriteThenFold(t *testing.T) {
	prev := &Handoff{Harness: meta.Harness, Session: meta.Session, Task: "Add refunded_at", SummaryBy: "codex", Updated: meta.Now}
	m := meta
	m.Now = meta.Now.Add(time.Minute)
	h := Build([]transcript.Message{said("Done: the column is added.")}, m, prev)
	if h.Task != "Add refunded_at" || h.SummaryBy != "codex" || h.Concluded != "Done: the column is added." {
		t.Fatalf("%+v", h)
	}
}

func TestNewerPrefersTheRewrite(t *testing.T) {
	base := Handoff{Harness: "claude-code", Session: "s1", Project: "github.com/acme/shop", Branch: "main", Task: "zzz the capture's words", Updated: t0}
	rewritten := base
	rewritten.Task, rewritten.SummaryBy = "a", "claude"
	a, _ := base.Render()
	b, _ := rewritten.Render()
	if got := Newer(a, b); string(got) != string(b) {
		t.Error("a merge of the same capture kept the offline summary over the rewritten one")
	}
	if got := Newer(b, a); string(got) != string(b) {
		t.Error("Newer is not symmetric")
	}
}
