package drain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/workspace"
)

func TestAnchorProposals(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
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
