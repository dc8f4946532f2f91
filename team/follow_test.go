package team

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// A team reflect.toml that does not load is taken as it is and not used: the clone commits
// nothing of its own (a merge of the reader's on main would read as the reader's review of
// every learning pushed after it), and what a teammate pushes straight to main stays
// unreviewed, sync after sync.
func TestBrokenTeamSettingsReviewNothing(t *testing.T) {
	p, remote, m := setup(t)
	ctx := context.Background()
	m.Put("100644", "reflect.toml", "[hooks]\nrecall_timeout = \"10m\"\n")
	m.Push("settings: slow hooks")
	res, err := Pull(ctx, p, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "fast-forward" || !strings.Contains(strings.Join(res.Notes, "\n"), "not used here") {
		t.Errorf("sync of a reflect.toml that does not load: %+v", res)
	}
	var ids []string
	for _, title := range []string{"Pushed after the settings", "Pushed again after the settings"} {
		id, path, text := learningFile(t, title, "")
		ids = append(ids, id)
		m.Put("100644", path, text)
		m.Push("add " + id)
		if _, err := Pull(ctx, p, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := Open(p, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.SettingsError() == nil {
		t.Error("the team's reflect.toml loaded")
	}
	for _, id := range ids {
		if rv, _ := Of(tr, id); rv.Reviewed {
			t.Errorf("%s pushed straight to main reads as reviewed: %+v", id, rv)
		}
	}
	head, _ := tr.Head()
	if want := strings.TrimSpace(gitOut(t, remote, "rev-parse", "main")); head.String() != want {
		t.Errorf("the team clone is at %s, the remote's main at %s", head, want)
	}
	if merges := gitOut(t, tr.Root(), "log", "--merges", "--oneline"); merges != "" {
		t.Errorf("the team clone made merges:\n%s", merges)
	}
}

// A team added while its reflect.toml does not load starts at the remote's main too, with no
// commit of the reader's on top.
func TestAddBrokenTeamSettings(t *testing.T) {
	p, remote, m := setup(t)
	m.Put("100644", "reflect.toml", "[hooks]\nrecall_timeout = \"10m\"\n")
	m.Push("settings: slow hooks")
	if _, _, err := Add(context.Background(), p, "again", remote); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(p, "again")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	head, _ := tr.Head()
	if want := strings.TrimSpace(gitOut(t, remote, "rev-parse", "main")); head.String() != want {
		t.Errorf("the team clone is at %s, the remote's main at %s", head, want)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A merge made in the team clone's folder (by hand: reflect never commits there) is no
// review: the remote's main does not hold it.
func TestLocalMergeReviewsNothing(t *testing.T) {
	p, _, m := setup(t)
	id, path, text := learningFile(t, "On a branch of Mallory's", "")
	m.Git("", "branch", "side", "main")
	m.Branch = "side"
	m.Put("100644", path, text)
	m.Push("promote " + id)
	tr, err := Open(p, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	gitOut(t, tr.Root(), "fetch", "-q", "origin", "side")
	gitOut(t, tr.Root(), "-c", "user.name=Me", "-c", "user.email=me@example.org", "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "FETCH_HEAD")
	tr2, err := Open(p, "acme") // the merge's objects are seen by a fresh open
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if _, err := Refresh(tr2, 0); err != nil {
		t.Fatal(err)
	}
	if rv, ok := Of(tr2, id); !ok || rv.Reviewed {
		t.Errorf("a merge in the clone reviewed %s: %+v (found %v)", id, rv, ok)
	}
}
