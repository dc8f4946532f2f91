package view

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/team"
)

// TestTeamPromote: a memory that reads team acme (a bare remote) promotes a learning from
// its page as reflect promote does — a branch reflect/promote/<id> pushed, gh (a stand-in
// recording its arguments) asked for the pull request — refuses a stale page and a learning
// holding a secret without pushing anything, and the list tells personal learnings from the
// ones a team's main holds.
func TestTeamPromote(t *testing.T) {
	testenv.SetHome(t)
	f := newFixture(t)
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "team.git")
	testenv.Git(t, ".", "init", "-q", "--bare", "-b", "main", remote)
	if _, _, err := team.Add(ctx, f.repo, "acme", remote); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	args := filepath.Join(bin, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + args + "\n[ \"$1\" = pr ] && echo https://github.com/acme/memory/pull/7\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.srv.o.GH = filepath.Join(bin, "gh")
	branches := func() string {
		out, _ := exec.Command("git", "-C", remote, "branch", "--list").CombinedOutput()
		return strings.TrimSpace(string(out))
	}

	id := f.ids["oauth"]
	start := branches()
	_, page := f.get("/learning/" + id)
	if !strings.Contains(page, `id="promote-form"`) || !strings.Contains(page, "<option>acme</option>") {
		t.Fatalf("no promote form:\n%s", page)
	}
	// a page loaded before the learning changed: refused, nothing pushed
	stale := f.base(id)
	old, raw, _ := learnings.Get(f.repo, id)
	if _, _, err := learnings.SaveEdit(ctx, f.repo, old, raw, []byte(strings.Replace(string(raw), "Register", "Always register", 1))); err != nil {
		t.Fatal(err)
	}
	if code, _, body := f.post("/learning/"+id+"/promote", url.Values{"base": {stale}, "team": {"acme"}}); code != http.StatusConflict || branches() != start {
		t.Errorf("a stale promote: %d, branches %q\n%.1500s", code, branches(), body)
	}
	if code, _, _ := f.post("/learning/"+id+"/promote", url.Values{"base": {f.base(id)}, "team": {"nope"}}); code != 404 {
		t.Errorf("promote to an unknown team: %d", code)
	}
	head := f.head()
	code, _, body := f.post("/learning/"+id+"/promote", url.Values{"base": {f.base(id)}, "team": {"acme"}})
	if code != 200 || !strings.Contains(body, "Promoted to team acme on branch "+team.BranchPrefix+id) || !strings.Contains(body, "https://github.com/acme/memory/pull/7") {
		t.Fatalf("promote: %d\n%.3000s", code, body)
	}
	if got := testenv.Git(t, ".", "-C", remote, "show", team.BranchPrefix+id+":"+old.RelPath()); !strings.Contains(got, "promoted_by: ") || !strings.Contains(got, "id: "+id) {
		t.Errorf("the branch's file:\n%s", got)
	}
	if out, _ := os.ReadFile(args); !strings.Contains(string(out), "pr\ncreate\n--head\n"+team.BranchPrefix+id) {
		t.Errorf("gh was called with\n%s", out)
	}
	if f.head() != head {
		t.Errorf("promote changed the personal memory: %s", f.subject())
	}

	// a learning holding a secret (written by hand, past redaction): refused, naming the line
	s := learnings.New("Deploy with the token", "github.com/acme/auth", time.Now())
	data, _ := s.Render()
	data = append(data, []byte("curl -H 'Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345'\n")...)
	if _, err := f.repo.Update(ctx, func(tx *gitstore.Tx) (string, error) { tx.Write(s.RelPath(), data); return "hand-written", nil }); err != nil {
		t.Fatal(err)
	}
	before := branches()
	code, _, body = f.post("/learning/"+s.ID+"/promote", url.Values{"base": {f.base(s.ID)}, "team": {"acme"}})
	if code != 400 || !strings.Contains(body, "promotion refused") || strings.Contains(body, "ghp_0123") || branches() != before {
		t.Errorf("a secret promoted: %d, branches %q\n%.1500s", code, branches(), body)
	}

	// the team's main comes to hold a learning (merged there): the list marks it team
	tr, err := team.Open(f.repo, "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, raw, _ = learnings.Get(f.repo, f.ids["dup"])
	dup, _ := learnings.Parse(learnings.PathFor("github.com/acme/auth", f.ids["dup"]), raw)
	if _, err := tr.Commit(ctx, "merge: promote", map[string][]byte{dup.RelPath(): raw}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	_, page = f.get("/?memory=team")
	if got := rowsOf(page); len(got) != 1 || got[0] != f.ids["dup"] || !strings.Contains(page, "team acme") {
		t.Errorf("memory=team lists %v", got)
	}
	_, page = f.get("/?memory=personal")
	for _, id := range rowsOf(page) {
		if id == f.ids["dup"] {
			t.Errorf("memory=personal lists the team's learning")
		}
	}
	if len(rowsOf(page)) != 4 {
		t.Errorf("memory=personal lists %d", len(rowsOf(page)))
	}
	if code, _ := f.get("/?memory=both"); code != 400 {
		t.Errorf("memory=both: %d", code)
	}
	f.clean()
}
