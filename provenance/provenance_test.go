package provenance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

func TestSaveOfMarkReviewed(t *testing.T) {
	testenv.SetHome(t)
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const a, b = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C", "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B7C" // one bucket
	if err := Save(r, map[string]Record{a: {Email: "m@example.org"}, b: {}}); err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := Of(r, a); !ok || err != nil || rec.Email != "m@example.org" {
		t.Fatalf("Of(a) = %+v, %v, %v", rec, ok, err)
	}
	if _, ok, _ := Of(r, "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D"); ok {
		t.Error("a learning never recorded has a record")
	}
	if err := MarkReviewed(r, b, "you"); err != nil {
		t.Fatal(err)
	}
	if rec, _, _ := Of(r, b); rec.Reviewed != "you" {
		t.Errorf("reviewed = %q", rec.Reviewed)
	}
	if got := Authors(r); len(got) != 2 || got[0] != UnknownAuthor || got[1] != "m@example.org" {
		t.Errorf("authors = %v", got)
	}
}

// A clone made before the records were kept rebuilds them from history: what another author
// committed arrived; what this machine's author committed reads as written here.
func TestEnsureRebuildsFromHistory(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mine := learnings.New("mine", learnings.Global, time.Now())
	if _, err := learnings.Create(ctx, r, mine, "learn: mine"); err != nil {
		t.Fatal(err)
	}
	theirs := learnings.New("theirs", learnings.Global, time.Now())
	data, _ := theirs.Render()
	os.WriteFile(filepath.Join(r.Root(), filepath.FromSlash(theirs.RelPath())), data, 0o644)
	cmd := exec.Command("git", "-C", r.Root(), "add", "-A")
	cmd.Run()
	cmd = exec.Command("git", "-C", r.Root(), "commit", "-qm", "learn: theirs")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Bob", "GIT_AUTHOR_EMAIL=bob@example.org")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if Built(r) {
		t.Fatal("built before Ensure")
	}
	if err := Ensure(r, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !Built(r) {
		t.Fatal("not built after Ensure")
	}
	if _, ok, _ := Of(r, mine.ID); ok {
		t.Error("this author's learning recorded as arrived")
	}
	if rec, ok, _ := Of(r, theirs.ID); !ok || rec.Email != "bob@example.org" {
		t.Errorf("theirs: %+v, %v", rec, ok)
	}
}

// One process rebuilds: another that asks meanwhile goes on at once, the records still
// unbuilt (recall says so), and a later ask builds them.
func TestEnsureSkipsWhileAnotherRebuilds(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := learnings.Create(ctx, r, learnings.New("a note", learnings.Global, time.Now()), "learn: a note"); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockfile.Take(ctx, filepath.Join(r.StateDir(), "locks", "provenance"), 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := Ensure(r, time.Now()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Ensure waited %v for the other rebuild", d)
	}
	if Built(r) {
		t.Fatal("built while another process held the rebuild")
	}
	unlock()
	if err := Ensure(r, time.Now()); err != nil || !Built(r) {
		t.Fatalf("after the other let go: built %v, %v", Built(r), err)
	}
}

// Unreviewed is what an implicit writer asks before it rewrites a learning: another author's,
// not reviewed, or a record that does not read.
func TestUnreviewed(t *testing.T) {
	testenv.SetHome(t)
	r, _, err := gitstore.Init(context.Background(), filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const (
		theirs   = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B1A"
		reviewed = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B2A"
		mine     = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B3A"
		unknown  = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B4A" // the walk did not reach its commit
		here     = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B5A" // no record: written here
		torn     = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6Z"
	)
	if err := Save(r, map[string]Record{
		theirs:   {Email: "mallory@example.org"},
		reviewed: {Email: "mallory@example.org", Reviewed: "bob@example.org"},
		mine:     {Email: r.Identity()},
		unknown:  {},
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteState(bucket(torn), []byte("{torn")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{theirs: true, reviewed: false, mine: false, unknown: true, here: false, torn: true} {
		if got := Unreviewed(r, id); got != want {
			t.Errorf("Unreviewed(%s) = %v, want %v", id, got, want)
		}
	}
}
