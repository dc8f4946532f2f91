package view

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// teamOnlyRows are the ids of the rows a list page shows from team memories.
func teamOnlyRows(page string) []string {
	var ids []string
	for _, part := range strings.Split(page, `<a class="title team-title" href="/team/`)[1:] {
		_, rest, _ := strings.Cut(part, "/learning/")
		id, _, _ := strings.Cut(rest, `"`)
		ids = append(ids, id)
	}
	return ids
}

// addTeamOnly gives team acme (cloned from an empty bare remote) two learnings the personal
// memory does not hold: one committed straight to its main (not reviewed), one merged from
// a branch with a merge commit (reviewed), one with hostile markup. It returns their ids.
func addTeamOnly(t *testing.T, f *fixture) (direct, merged string) {
	t.Helper()
	ctx := context.Background()
	remote := filepath.Join(t.TempDir(), "team.git")
	testenv.Git(t, ".", "init", "-q", "--bare", "-b", "main", remote)
	if _, _, err := team.Add(ctx, f.repo, "acme", remote); err != nil {
		t.Fatal(err)
	}
	tr, err := team.Open(f.repo, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	d := learnings.New(`<img src=x onerror=alert(1)> Staging deploys need the VPN wombat`, "github.com/acme/infra", now)
	d.Body, d.Tags = "Connect the wombat VPN before `make deploy-staging`.\n\n<script>alert('team')</script>\n", []string{"deploy"}
	data, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Commit(ctx, "learn: staging", map[string][]byte{d.RelPath(): data}); err != nil {
		t.Fatal(err)
	}
	m := learnings.New("Rotate the numbat signing key yearly", "github.com/acme/infra", now.Add(time.Minute))
	m.Body = "The numbat key expires each January.\n"
	data, err = m.Render()
	if err != nil {
		t.Fatal(err)
	}
	dir := tr.Root()
	testenv.Git(t, dir, "checkout", "-q", "-b", "reflect/promote/"+m.ID)
	write := filepath.Join(dir, filepath.FromSlash(m.RelPath()))
	os.MkdirAll(filepath.Dir(write), 0o755)
	if err := os.WriteFile(write, data, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "add", m.RelPath())
	gitAs(t, dir, "Ann", "ann@example.com", "commit", "-q", "-m", "promote: numbat")
	testenv.Git(t, dir, "checkout", "-q", "main")
	gitAs(t, dir, "Carol", "carol@example.com", "merge", "-q", "--no-ff", "-m", "Merge pull request #42 from acme/reflect/promote/"+m.ID, "reflect/promote/"+m.ID)
	// on the remote's main, as a forge's merge leaves it: a commit only this clone holds
	// reviews nothing
	testenv.Git(t, dir, "push", "-q", "origin", "main")
	return d.ID, m.ID
}

// gitAs runs git in dir as name <email>, author and committer.
func gitAs(t *testing.T, dir, name, email string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email,
		"GIT_COMMITTER_NAME="+name, "GIT_COMMITTER_EMAIL="+email, "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestTeamOnlyLearnings: the learnings only a team memory holds are listed, marked with
// their team and whether it reviewed them, found by a search and by the team filter, left
// out by the personal one, and open read-only, their markup escaped.
func TestTeamOnlyLearnings(t *testing.T) {
	testenv.SetHome(t)
	f := newFixture(t)
	direct, merged := addTeamOnly(t, f)
	head := f.head()

	_, page := f.get("/")
	got := teamOnlyRows(page)
	if len(got) != 2 || !slices.Contains(got, direct) || !slices.Contains(got, merged) || len(rowsOf(page)) != 4 {
		t.Fatalf("the list: team rows %v, personal rows %v", got, rowsOf(page))
	}
	if !strings.Contains(page, "team acme (not reviewed)") || !strings.Contains(page, "team acme (reviewed)") {
		t.Errorf("the list does not mark the team's learnings:\n%s", page)
	}
	if strings.Contains(page, "<img src=x") {
		t.Errorf("a team learning's title is not escaped")
	}
	if !strings.Contains(page, `<option value="github.com/acme/infra">github.com/acme/infra (2)</option>`) {
		t.Errorf("the project filter does not offer the team's project")
	}
	for _, tt := range []struct {
		query      string
		team, mine []string
	}{
		{"/?memory=team", []string{direct, merged}, nil},
		{"/?memory=personal", nil, []string{f.ids["xss"], f.ids["oauth"], f.ids["dup"], f.ids["go"]}},
		{"/?q=wombat", []string{direct}, nil},
		{"/?q=wombat&memory=team", []string{direct}, nil},
		{"/?q=wombat&memory=personal", nil, nil},
		{"/?project=github.com/acme/infra&tag=deploy", []string{direct}, nil},
		{"/?q=numbat+OR+callback", []string{merged}, []string{f.ids["oauth"], f.ids["dup"]}},
	} {
		code, page := f.get(tt.query)
		gotTeam, gotMine := teamOnlyRows(page), rowsOf(page)
		slices.Sort(gotTeam)
		slices.Sort(gotMine)
		slices.Sort(tt.team)
		slices.Sort(tt.mine)
		if code != 200 || !slices.Equal(gotTeam, tt.team) || !slices.Equal(gotMine, tt.mine) {
			t.Errorf("%s: %d, team rows %v, want %v; personal rows %v, want %v", tt.query, code, gotTeam, tt.team, gotMine, tt.mine)
		}
	}
	if _, page := f.get("/?q=wombat"); !strings.Contains(page, "<mark>") {
		t.Errorf("a team hit has no snippet")
	}

	code, page := f.get("/team/acme/learning/" + direct)
	if code != 200 || !strings.Contains(page, "team acme (not reviewed)") || !strings.Contains(page, "Read-only here") || !strings.Contains(page, "wombat VPN") {
		t.Fatalf("the team learning's page: %d\n%s", code, page)
	}
	for _, form := range []string{"archive-form", "supersede-form", "promote-form", `id="edit"`, `method="post"`, "<script>alert", "<img src=x"} {
		if strings.Contains(page, form) {
			t.Errorf("the read-only page holds %q", form)
		}
	}
	if _, page := f.get("/team/acme/learning/" + merged); !strings.Contains(page, "team acme (reviewed)") || !strings.Contains(page, "Reviewed by ") {
		t.Errorf("the merged learning's page:\n%s", page)
	}
	for _, tt := range []struct {
		path string
		code int
	}{
		{"/team/nope/learning/" + direct, 404},
		{"/team/acme/learning/lrn-00000000000000000000000000", 404},
		{"/team/..%2f..%2fetc/learning/" + direct, 400},
		{"/team/acme/learning/" + f.ids["oauth"], 404}, // a personal learning the team does not hold
	} {
		if code, _ := f.get(tt.path); code != tt.code {
			t.Errorf("%s: %d, want %d", tt.path, code, tt.code)
		}
	}
	if f.head() != head {
		t.Errorf("browsing the team's learnings changed the personal memory: %s", f.subject())
	}
	f.clean()
}
