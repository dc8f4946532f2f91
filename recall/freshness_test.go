package recall

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// TestFreshness: in the project's workspace a drifted learning keeps its rank and says which
// file changed, an orphaned one comes after every other and says its file is gone, a fresh
// one and an unanchored one are left as they are; outside the project's work tree nothing
// is checked.
func TestFreshness(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r, _, err := gitstore.Init(ctx, filepath.Join(home, "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := "github.com/acme/shop"
	proj, err := fixtures.BuildAnchoredProject(ctx, filepath.Join(home, "proj"), key)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	add := func(title string, anchors ...string) string {
		l := learnings.New(title, key, now)
		l.Body = "Run make migrate with the env file; the postgres migration lock retries on deadlock."
		l.Anchors = anchors
		if _, err := learnings.Create(ctx, r, l, "learn"); err != nil {
			t.Fatal(err)
		}
		return l.ID
	}
	gone := add("make migrate postgres deadlock env file retry lock", "gone.sql@"+strings.Repeat("0", 40))
	drifted := add("make migrate postgres deadlock env file retry", proj.Old)
	fresh := add("make migrate postgres deadlock env file", proj.Fresh[0])
	plain := add("make migrate postgres deadlock")
	// other lessons of the memory: a word every learning holds is no evidence at all
	for i, topic := range []string{"terraform state lock dynamodb", "kubernetes ingress timeout annotation",
		"pnpm workspace hoisting", "airflow sensor reschedule mode", "rust borrow checker clone in loop",
		"github actions cache key", "docker buildkit secret mount", "vite env prefix", "redis eviction policy",
		"python venv activation in cron", "go module replace directive", "jest fake timers"} {
		l := learnings.New(topic, learnings.Global, now)
		l.Body = fmt.Sprintf("Lesson %d about %s.", i, topic)
		if _, err := learnings.Create(ctx, r, l, "learn"); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t, r)

	ws, err := workspace.Read(proj.Dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Recall(ctx, r, ix, Request{Prompt: "make migrate postgres deadlock env file retry lock", Workspace: &ws, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]anchor.State{}
	var order []string
	for _, c := range res.Candidates {
		state[c.ID] = c.Freshness.State
		order = append(order, c.ID)
	}
	want := map[string]anchor.State{gone: anchor.Orphaned, drifted: anchor.Drifted, fresh: anchor.Fresh, plain: anchor.Unchecked}
	for id, s := range want {
		if state[id] != s {
			t.Errorf("%s: %q, want %q", id, state[id], s)
		}
	}
	if order[len(order)-1] != gone {
		t.Errorf("the orphaned learning is not last: %v", order)
	}
	for _, c := range res.Injected {
		switch c.ID {
		case drifted:
			if !strings.Contains(res.Text, "⚠ `Makefile` changed since this was learned") {
				t.Errorf("no drift note:\n%s", res.Text)
			}
		case gone:
			if !strings.Contains(res.Text, "⚠ `gone.sql` is gone since this was learned") {
				t.Errorf("no orphan note:\n%s", res.Text)
			}
		}
	}
	if data, _ := r.ReadState("state/roots.json"); !strings.Contains(string(data), proj.Dir) {
		t.Errorf("the project's work tree is not recorded: %s", data)
	}

	// the same project key without a work tree (a directory outside git): nothing checked
	bare := ws
	bare.Root, bare.GitDir = "", ""
	res, err = Recall(ctx, r, ix, Request{Prompt: "make migrate postgres deadlock env file retry lock", Workspace: &bare, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Freshness.State != anchor.Unchecked {
			t.Errorf("%s checked without a work tree: %q", c.ID, c.Freshness.State)
		}
	}

	// another project's workspace: its learnings are not this tree's
	other := filepath.Join(home, "other")
	for _, args := range [][]string{{"init", "-q", other}, {"-C", other, "remote", "add", "origin", "https://github.com/acme/other.git"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatal(string(out))
		}
	}
	ows, _ := workspace.Read(other, 0)
	res, _ = Recall(ctx, r, ix, Request{Prompt: "make migrate postgres deadlock env file retry lock", Workspace: &ows, DryRun: true})
	for _, c := range res.Candidates {
		if c.Freshness.State != anchor.Unchecked {
			t.Errorf("%s checked in another project: %q", c.ID, c.Freshness.State)
		}
	}
}
