package drain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/workspace"
)

func TestAnchorProposals(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string { return testenv.Git(t, dir, args...) }
	run("init", "-q", "-b", "main")
	run("remote", "add", "origin", "https://github.com/acme/shop.git")
	for name, body := range map[string]string{"Makefile": "migrate:\n", "src/db.go": "package db\n",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt": "x\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	run("add", ".")
	run("commit", "-q", "-m", "first")
	head := run("rev-parse", "HEAD")
	ws, _ := workspace.Read(dir, 0)
	p, err := anchor.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	e := &queue.Entry{Project: "github.com/acme/shop", Commit: head}
	props := []Proposal{
		{Title: "make", Tags: []string{"make"}, Files: []string{"src/db.go", "gone.go", "../../etc/passwd"}},
		{Title: "global", Global: true, Files: []string{"src/db.go"}},
		{Title: "secret", Files: []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789.txt"}},
	}
	anchorProposals(p, e, props)
	got := anchorStrings(props[0].anchors)
	if len(got) != 2 || !strings.HasPrefix(got[0], "src/db.go@") || !strings.HasPrefix(got[1], "Makefile@"+run("rev-parse", "HEAD:Makefile")) {
		t.Fatalf("anchors %v", got)
	}
	if len(props[1].anchors) != 0 || len(props[2].anchors) != 0 {
		t.Fatalf("global %v, secret %v", props[1].anchors, props[2].anchors)
	}

	// a commit the project does not have anchors nothing
	props = []Proposal{{Title: "x", Files: []string{"src/db.go"}}}
	anchorProposals(p, &queue.Entry{Project: e.Project, Commit: strings.Repeat("1", 40)}, props)
	if len(props[0].anchors) != 0 {
		t.Fatalf("unknown commit: %v", props[0].anchors)
	}
	anchorProposals(nil, e, props) // no project on this machine
}

func TestPromptShowsStaleCandidates(t *testing.T) {
	fresh := BuildPrompt(Input{Entry: &queue.Entry{}, Existing: []Existing{{ID: "lrn-1", Title: "make migrate", Kind: "fix"}}})
	if strings.Contains(fresh, "files changed since") {
		t.Fatal("a prompt without stale candidates mentions them")
	}
	stale := BuildPrompt(Input{Entry: &queue.Entry{}, Existing: []Existing{{ID: "lrn-1", Title: "make migrate", Kind: "fix",
		Stale: "drifted: `Makefile` changed since this was learned — check before relying on it; 2422787 make: db-migrate (Makefile)"}}})
	for _, want := range []string{"A candidate whose files changed since it was learned says so", "its files changed since it was learned — drifted: `Makefile` changed", "2422787 make: db-migrate (Makefile)"} {
		if !strings.Contains(stale, want) {
			t.Errorf("no %q in the prompt", want)
		}
	}
}

// A learning anchored to the Makefile, which changed since, is shown to the extractor when
// a session ran make, even though the session's words did not bring it up.
func TestTouched(t *testing.T) {
	ctx := context.Background()
	setHome(t)
	home := os.Getenv("HOME")
	r, _, err := gitstore.Init(ctx, filepath.Join(home, "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := "github.com/acme/shop"
	proj, err := fixtures.BuildAnchoredProject(ctx, filepath.Join(home, "proj"), key)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(title string, anchors ...string) string {
		l := learnings.New(title, key, time.Now())
		l.Anchors = anchors
		if _, err := learnings.Create(ctx, r, l, "learn"); err != nil {
			t.Fatal(err)
		}
		return l.ID
	}
	drifted := mk("the seed needs the new columns", proj.Old)
	mk("fresh about the Makefile", proj.Fresh[0])
	mk("about db.go only", strings.Replace(proj.Old, "Makefile", "src/db.go", 1))
	ws, _ := workspace.Read(proj.Dir, 0)
	p, err := anchor.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e := &queue.Entry{Project: key, Digest: queue.Digest{Notes: []queue.Note{
		{Kind: queue.NoteFailure, Tool: "Bash", Input: "make migrate", Text: "make: *** [migrate] Error 1"}}}}
	paths := map[string]string{}
	got := touched(r, p, e, nil, paths)
	if len(got) != 1 || got[0].ID != drifted || paths[drifted] == "" {
		t.Fatalf("candidates %+v", got)
	}
	markStale(r, p, got, paths)
	if !strings.Contains(got[0].Stale, "drifted: `Makefile` changed") || !strings.Contains(got[0].Stale, "make: an explicit env file (Makefile)") {
		t.Fatalf("stale %q", got[0].Stale)
	}
}
