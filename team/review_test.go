package team

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

const project = "github.com/acme/web"

// setup makes a personal memory and a team "acme" cloned from a bare remote that Mallory
// (any teammate with push rights) can also push to.
func setup(t *testing.T) (personal *gitstore.Repo, remote string, m *testenv.Mallory) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the teammates push with the git CLI")
	}
	testenv.SetHome(t)
	dir := t.TempDir()
	remote = filepath.Join(dir, "team.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	ctx := context.Background()
	p, _, err := gitstore.Init(ctx, filepath.Join(dir, "me"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if _, _, err := Add(ctx, p, "acme", remote); err != nil {
		t.Fatal(err)
	}
	return p, remote, testenv.NewMallory(t, remote)
}

// learningFile is a valid learning, with a promoted_by line when by is set.
func learningFile(t *testing.T, title, by string) (id, path, text string) {
	t.Helper()
	l := learnings.New(title, project, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	l.Confidence = learnings.ConfidenceHigh
	data, err := l.Render()
	if err != nil {
		t.Fatal(err)
	}
	if by != "" {
		data = withPromotedBy(data, by)
	}
	return l.ID, l.RelPath(), string(data)
}

func TestReviewedFromHistory(t *testing.T) {
	p, _, m := setup(t)
	ctx := context.Background()

	// a teammate pushes straight to main: nobody reviewed it
	direct, directPath, directText := learningFile(t, "Direct push to main", "")
	m.Put("100644", directPath, directText)
	m.Push("add a learning")

	// a promotion branch by Ann, merged by Carol through a pull request
	merged, path, text := learningFile(t, "Merged through a pull request", "Ann <ann@example.org>")
	m.Put("100644", path, text)
	side := m.Commit("Ann", "ann@example.org", "promote "+merged, m.Tip())
	m.PushCommit(m.Commit("Carol", "carol@example.org", "Merge pull request #42 from acme/reflect/promote/"+merged, m.Tip(), side))

	// Ann merges her own branch (git merge --no-ff, pushed to main): no one else read it
	self, path, text := learningFile(t, "Merged by its own promoter", "Ann <ann@example.org>")
	m.Put("100644", path, text)
	side = m.Commit("Ann", "ann@example.org", "promote "+self, m.Tip())
	m.PushCommit(m.Commit("Ann", "ann@example.org", "Merge branch 'reflect/promote/"+self+"'", m.Tip(), side))

	// Mallory writes Carol's name into promoted_by and pushes straight to main: the file's
	// claim decides nothing, the commit is hers alone
	forged, path, text := learningFile(t, "Promoted by Carol, says the file", "Carol <carol@example.org>")
	m.Put("100644", path, text)
	m.Push("add a learning")

	// and the same through a merge of her own branch
	forgedMerge, path, text := learningFile(t, "Merged for Carol, says the file", "Carol <carol@example.org>")
	m.Put("100644", path, text)
	side = m.Commit("Mallory", "mallory@example.org", "promote "+forgedMerge, m.Tip())
	m.PushCommit(m.Commit("Mallory", "mallory@example.org", "Merge branch 'side'", m.Tip(), side))

	// Ann promotes, Carol adds a commit to the branch and merges it: Carol reviewed her own
	// words; Dave merging the same would have reviewed both
	amended, path, text := learningFile(t, "Amended on the branch by its merger", "Ann <ann@example.org>")
	m.Put("100644", path, text)
	side = m.Commit("Ann", "ann@example.org", "promote "+amended, m.Tip())
	m.Put("100644", path, strings.Replace(text, "Amended on the branch", "Amended on the branch, reworded", 1))
	side = m.Commit("Carol", "carol@example.org", "reword", side)
	m.PushCommit(m.Commit("Carol", "carol@example.org", "Merge pull request #7 from acme/reflect/promote/"+amended, m.Tip(), side))

	// Ann promotes, Carol merges and changes the text in the merge itself
	inMerge, path, text := learningFile(t, "Changed in the merge", "Ann <ann@example.org>")
	m.Put("100644", path, text)
	side = m.Commit("Ann", "ann@example.org", "promote "+inMerge, m.Tip())
	m.Put("100644", path, strings.Replace(text, "Changed in the merge", "Changed in the merge by its merger", 1))
	m.PushCommit(m.Commit("Carol", "carol@example.org", "Merge pull request #8 from acme/reflect/promote/"+inMerge, m.Tip(), side))

	// a laptop's sync merge pushed to the team's main reviews nothing it brings in
	synced, path, text := learningFile(t, "Brought in by a sync merge", "")
	m.Put("100644", path, text)
	side = m.Commit("Ann", "ann@example.org", "promote "+synced, m.Tip())
	m.PushCommit(m.Commit("Carol", "carol@example.org", gitstore.SyncMergeSubject+"1 changes from the remote (abc1234)", m.Tip(), side))

	// Dan promotes and pushes his own learning straight to main: not reviewed
	own, path, text := learningFile(t, "Pushed by its own promoter", "Dan <dan@example.org>")
	m.Put("100644", path, text)
	m.PushCommit(m.Commit("Dan", "DAN@example.org", "promote "+own, m.Tip()))

	// Dan's promotion, squashed onto main by Erin (a squash merge: one commit, Dan's,
	// committed by the reviewer): reviewed
	squashed, path, text := learningFile(t, "Squashed by a reviewer", "Dan <dan@example.org>")
	m.Put("100644", path, text)
	m.PushCommit(m.CommitBy("Dan <dan@example.org>", "Erin <erin@example.org>", "Squashed by a reviewer (#9)", m.Tip()))

	if _, err := Pull(ctx, p, "acme"); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(p, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	tests := []struct {
		name, id           string
		reviewed           bool
		author, by, pr, br string
	}{
		{"pushed to main by a teammate", direct, false, "mallory@example.org", "", "", ""},
		{"merged through a pull request", merged, true, "ann@example.org", "carol@example.org", "#42", "reflect/promote/" + merged},
		{"merged by its promoter", self, false, "ann@example.org", "", "", "reflect/promote/" + self},
		{"promoted_by forged on a direct push", forged, false, "mallory@example.org", "", "", ""},
		{"promoted_by forged on a self-merge", forgedMerge, false, "mallory@example.org", "", "", "side"},
		{"amended on the branch by its merger", amended, false, "ann@example.org", "", "#7", "reflect/promote/" + amended},
		{"changed in the merge", inMerge, false, "ann@example.org", "", "#8", "reflect/promote/" + inMerge},
		{"brought in by a sync merge", synced, false, "ann@example.org", "", "", ""},
		{"pushed by its promoter", own, false, "dan@example.org", "", "", ""},
		{"squashed by a reviewer", squashed, true, "dan@example.org", "erin@example.org", "#9", ""},
	}
	check := func(t *testing.T, tr *gitstore.Repo) {
		for _, tt := range tests {
			rv, ok := Of(tr, tt.id)
			if !ok {
				t.Errorf("%s: no review of %s", tt.name, tt.id)
				continue
			}
			if rv.Reviewed != tt.reviewed || rv.Author != tt.author || rv.By != tt.by || rv.PR != tt.pr || rv.Branch != tt.br {
				t.Errorf("%s: got reviewed=%v author=%q by=%q pr=%q branch=%q; want %v %q %q %q %q",
					tt.name, rv.Reviewed, rv.Author, rv.By, rv.PR, rv.Branch, tt.reviewed, tt.author, tt.by, tt.pr, tt.br)
			}
		}
	}
	check(t, tr)

	// Carol edits the direct push on main herself: her words, read by no one else. Then a
	// rewording of hers that Dave applies (a cherry-pick): reviewed by Dave. The cache
	// catches up from where it was, reading only the new commits.
	m.Put("100644", directPath, strings.Replace(directText, "Direct push to main", "Direct push to main, edited by Carol", 1))
	m.PushCommit(m.Commit("Carol", "carol@example.org", "fix wording", m.Tip()))
	if _, err := Pull(ctx, p, "acme"); err != nil {
		t.Fatal(err)
	}
	tr2, _ := Open(p, "acme")
	defer tr2.Close()
	if rv, _ := Of(tr2, direct); rv.Reviewed || rv.Author != "mallory@example.org" {
		t.Errorf("after Carol's own edit: %+v", rv)
	}
	m.Put("100644", directPath, strings.Replace(directText, "Direct push to main", "Direct push to main, reworded by Carol", 1))
	m.PushCommit(m.CommitBy("Carol <carol@example.org>", "Dave <dave@example.org>", "fix wording again", m.Tip()))
	if _, err := Pull(ctx, p, "acme"); err != nil {
		t.Fatal(err)
	}
	tr2.Close()
	tr2, _ = Open(p, "acme")
	defer tr2.Close()
	if rv, _ := Of(tr2, direct); !rv.Reviewed || rv.By != "dave@example.org" || rv.Author != "mallory@example.org" {
		t.Errorf("after Dave applied Carol's edit: %+v", rv)
	}
	tests[0].reviewed, tests[0].by = true, "dave@example.org"
	if res, err := Refresh(tr2, 0); err != nil || res.Commits != 0 {
		t.Errorf("a second refresh read %+v, %v; want nothing", res, err)
	}

	// the reviews survive a rename and come back the same from a fresh clone
	if err := Rename(p, "acme", "acme-web"); err != nil {
		t.Fatal(err)
	}
	tr3, err := Open(p, "acme-web")
	if err != nil {
		t.Fatal(err)
	}
	check(t, tr3)
	tr3.Close()
	url := tr2.Remote("origin")
	if err := Remove(p, "acme-web"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Add(ctx, p, "again", url); err != nil {
		t.Fatal(err)
	}
	tr4, _ := Open(p, "again")
	defer tr4.Close()
	check(t, tr4)

	// a hook's bounded refresh never recomputes from scratch: the learnings stay held back
	// until a command (team sync) does it
	os.RemoveAll(filepath.Join(tr4.StateDir(), reviewDir))
	if res, err := Refresh(tr4, 200); err != nil || !res.Full || res.Changed != 0 {
		t.Fatalf("bounded refresh: %+v, %v", res, err)
	}
	if _, ok := Of(tr4, merged); ok {
		t.Error("a bounded refresh computed the reviews from scratch")
	}
	if _, err := Refresh(tr4, 0); err != nil {
		t.Fatal(err)
	}
	check(t, tr4)

	// nor does it read a merge's side branch (up to sideLimit commits, in a prompt's hook):
	// a line that holds a merge waits for the team sync a session start sets going
	stale, _ := tr4.ReadState(tipFile)
	later, path, text := learningFile(t, "Merged after the cache", "Ann <ann@example.org>")
	m.Put("100644", path, text)
	side = m.Commit("Ann", "ann@example.org", "promote "+later, m.Tip())
	m.PushCommit(m.Commit("Carol", "carol@example.org", "Merge pull request #43", m.Tip(), side))
	if _, err := Pull(ctx, p, "again"); err != nil {
		t.Fatal(err)
	}
	tr5, _ := Open(p, "again")
	defer tr5.Close()
	if err := tr5.WriteState(tipFile, stale); err != nil { // as before the pull's refresh
		t.Fatal(err)
	}
	if res, err := Refresh(tr5, 200); err != nil || res.Changed != 0 {
		t.Fatalf("bounded refresh over a merge: %+v, %v", res, err)
	}
	if tip, _ := tr5.ReadState(tipFile); string(tip) != string(stale) {
		t.Error("a bounded refresh read a merge")
	}
	if _, err := Refresh(tr5, 0); err != nil {
		t.Fatal(err)
	}
	if rv, _ := Of(tr5, later); !rv.Reviewed || rv.By != "carol@example.org" {
		t.Errorf("after the team sync's refresh: %+v", rv)
	}
}
