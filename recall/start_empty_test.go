package recall

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// TestStartTopicsFindingNothing: a session start of several topics (branch, commit subjects,
// files) over a memory none of whose learnings holds any of their words recalls nothing, and
// does not fail: the first search's empty answer stands for every topic (it once answered for
// the first topic only, and the hook panicked on the second).
func TestStartTopicsFindingNothing(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, memory := range []string{"empty", "unrelated"} {
		t.Run(memory, func(t *testing.T) {
			r, _, err := gitstore.Init(ctx, filepath.Join(home, memory), gitstore.InitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if memory == "unrelated" {
				l := learnings.New("Terraform state locks live in DynamoDB", learnings.Global, time.Now())
				l.Body = "A stuck lock is released with terraform force-unlock."
				if _, err := learnings.Create(ctx, r, l, "learn"); err != nil {
					t.Fatal(err)
				}
			}
			ix := openIndex(t, r)
			ws := workspace.Workspace{Project: "github.com/acme/shop", Branch: "feat/refunds",
				Subjects: []string{"add refunded_at column", "backfill refunds from payments"},
				Files:    []string{"db/migrations/0042_refunds.sql", "internal/refunds/backfill.go"}}
			if n := len(StartTopics(ws)); n < 2 {
				t.Fatalf("the workspace makes %d topics; the test needs several", n)
			}
			res, err := Recall(ctx, r, ix, Request{Workspace: &ws, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Injected) != 0 || res.Text != "" {
				t.Fatalf("injected %v", res.IDs())
			}
		})
	}
}

// TestStartTopicsKept: the topics of a workspace are made once per process and kept by what
// they are made of; a workspace that differs in its branch, a subject, a file or where one
// list ends and the next begins gets its own.
func TestStartTopicsKept(t *testing.T) {
	base := workspace.Workspace{Branch: "feat/refunds", Subjects: []string{"add refunded_at column", "backfill refunds"},
		Files: []string{"db/migrations/0042_refunds.sql"}}
	first := StartTopics(base)
	if again := StartTopics(base); len(again) == 0 || &again[0] != &first[0] {
		t.Fatal("the same workspace's topics were made again")
	}
	others := []workspace.Workspace{
		{Branch: "feat/returns", Subjects: base.Subjects, Files: base.Files},
		{Branch: base.Branch, Subjects: []string{"add refunded_at column", "backfill payments"}, Files: base.Files},
		{Branch: base.Branch, Subjects: base.Subjects, Files: []string{"db/migrations/0043_refunds.sql"}},
		{Branch: base.Branch, Subjects: base.Subjects[:1], Files: []string{"backfill refunds", "db/migrations/0042_refunds.sql"}},
		{Branch: base.Branch, Subjects: []string{"add refunded_at column\x01backfill refunds"}, Files: base.Files},
		{Branch: base.Branch + "\x00" + base.Subjects[0], Subjects: base.Subjects[1:], Files: base.Files},
	}
	for _, w := range others {
		got, want := StartTopics(w), startTopicsOf(w)
		if !reflect.DeepEqual(got, want) || reflect.DeepEqual(got, first) {
			t.Errorf("%+v: topics %v, want %v", w, got, want)
		}
	}
}
