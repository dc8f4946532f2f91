package anchor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// git runs the real git in dir.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const makefile = "migrate:\n\tenv $$(cat .env) ./migrate --all --verbose\n\nbuild:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n"

// project makes a git repository with a remote, a Makefile and a README, and returns its
// directory and the first commit.
func project(t testing.TB) (string, string) {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "remote", "add", "origin", "https://github.com/acme/shop.git")
	write(t, dir, "Makefile", makefile)
	write(t, dir, "README.md", "shop\n")
	write(t, dir, "src/db.go", "package db\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir, git(t, dir, "rev-parse", "HEAD")
}

func open(t testing.TB, dir string) *Project {
	t.Helper()
	ws, err := workspace.Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// learned is a learning of the project anchored to paths as they are at HEAD in dir.
func learned(t testing.TB, dir string, paths ...string) *learnings.Learning {
	t.Helper()
	p := open(t, dir)
	as, missing := p.Resolve(paths)
	if len(missing) > 0 {
		t.Fatalf("resolve: %v", missing)
	}
	l := learnings.New("make migrate loads .env", "github.com/acme/shop", time.Now())
	l.SetAnchors(as)
	l.Source.Commit = p.ws.Head
	return l
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   State
		note   string
	}{
		{"unchanged", func(*testing.T, string) {}, Fresh, ""},
		{"another file changed", func(t *testing.T, dir string) {
			write(t, dir, "README.md", "shop, the shop\n")
			git(t, dir, "commit", "-q", "-am", "readme")
		}, Fresh, ""},
		{"committed change", func(t *testing.T, dir string) {
			write(t, dir, "Makefile", "migrate:\n\t./migrate\n")
			git(t, dir, "commit", "-q", "-am", "migrate without env")
		}, Drifted, "`Makefile` changed since this was learned — check before relying on it"},
		{"dirty work tree", func(t *testing.T, dir string) {
			write(t, dir, "Makefile", "migrate:\n\t./migrate\n")
		}, Drifted, "`Makefile` changed"},
		{"staged change", func(t *testing.T, dir string) {
			write(t, dir, "Makefile", "migrate:\n\t./migrate\n")
			git(t, dir, "add", "Makefile")
		}, Drifted, "`Makefile` changed"},
		{"dirty then put back", func(t *testing.T, dir string) {
			write(t, dir, "Makefile", "x\n")
			write(t, dir, "Makefile", makefile)
		}, Fresh, ""},
		{"deleted in the work tree", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "Makefile"))
		}, Orphaned, "`Makefile` is gone since this was learned"},
		{"deleted and committed", func(t *testing.T, dir string) {
			git(t, dir, "rm", "-q", "Makefile")
			git(t, dir, "commit", "-q", "-m", "no make")
		}, Orphaned, "`Makefile` is gone"},
		{"renamed", func(t *testing.T, dir string) {
			git(t, dir, "mv", "Makefile", "build.mk")
			git(t, dir, "commit", "-q", "-m", "rename")
		}, Orphaned, "`Makefile` (renamed to `build.mk`) is gone"},
		{"renamed and edited", func(t *testing.T, dir string) {
			git(t, dir, "mv", "Makefile", "build.mk")
			write(t, dir, "build.mk", makefile+"\nlint:\n\tgo vet ./...\n")
			git(t, dir, "commit", "-q", "-am", "rename and lint")
		}, Orphaned, "(renamed to `build.mk`)"},
		{"a directory now", func(t *testing.T, dir string) {
			git(t, dir, "rm", "-q", "Makefile")
			write(t, dir, "Makefile/x", "x\n")
			git(t, dir, "add", ".")
			git(t, dir, "commit", "-q", "-m", "dir")
		}, Orphaned, "is gone"},
		{"another branch", func(t *testing.T, dir string) {
			git(t, dir, "checkout", "-q", "-b", "old")
			write(t, dir, "Makefile", "old:\n")
			git(t, dir, "commit", "-q", "-am", "old make")
			git(t, dir, "checkout", "-q", "main")
		}, Fresh, ""},
		{"on another branch", func(t *testing.T, dir string) {
			git(t, dir, "checkout", "-q", "-b", "old")
			write(t, dir, "Makefile", "old:\n")
			git(t, dir, "commit", "-q", "-am", "old make")
		}, Drifted, "`Makefile` changed"},
		{"split index", func(t *testing.T, dir string) {
			git(t, dir, "update-index", "--split-index")
			write(t, dir, "Makefile", "migrate:\n\t./migrate\n")
			git(t, dir, "add", "Makefile")
		}, Drifted, "`Makefile` changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := project(t)
			l := learned(t, dir, "Makefile", "src/db.go")
			tt.change(t, dir)
			p := open(t, dir)
			f := p.Check(l)
			if f.State == Orphaned {
				p.Renames(context.Background(), l.Source.Commit, &f)
			}
			if f.State != tt.want {
				t.Fatalf("state %q, want %q (%+v)", f.State, tt.want, f.Anchors)
			}
			if n := f.Note(); tt.note == "" && n != "" || !strings.Contains(n, tt.note) {
				t.Fatalf("note %q, want %q", n, tt.note)
			}
			if tt.name == "renamed" && f.Anchors[0].RenamedTo != "build.mk" {
				t.Fatalf("renamed to %q", f.Anchors[0].RenamedTo)
			}
		})
	}
}

func TestUnchecked(t *testing.T) {
	dir, _ := project(t)
	l := learned(t, dir, "Makefile")
	p := open(t, dir)

	other := *l
	other.Project = "github.com/acme/other"
	global := *l
	global.Project = learnings.Global
	bare := *l
	bare.Anchors = nil
	for name, l := range map[string]*learnings.Learning{"another project": &other, "global": &global, "no anchors": &bare} {
		if f := p.Check(l); f.State != Unchecked || f.Note() != "" {
			t.Errorf("%s: %+v", name, f)
		}
	}

	if _, err := Open(workspace.Workspace{Dir: t.TempDir(), Project: learnings.Global}); err != ErrNoRepository {
		t.Fatalf("no git: %v", err)
	}
}

// Anchors arrive from remotes: a path that leaves the project is refused before any file is
// opened, and one that goes through a symlink out of the work tree reads nothing outside it.
func TestHostileAnchors(t *testing.T) {
	dir, _ := project(t)
	outside := t.TempDir()
	write(t, outside, "secret", "s3cret\n")
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	p := open(t, dir)
	for _, raw := range []string{"../x", "/etc/passwd", ".git/config", "a/../../x", "out/../../etc"} {
		if _, err := p.Rel(raw); err == nil {
			t.Errorf("Rel(%q) accepted", raw)
		}
	}
	blob, _, err := p.Current("out/secret")
	if err != nil || blob != "" {
		t.Fatalf("a file behind a symlink out of the tree: %q %v", blob, err)
	}
	l := learnings.New("x", "github.com/acme/shop", time.Now())
	l.Anchors = []string{"out/secret@" + strings.Repeat("a", 40)}
	if f := p.Check(l); f.State != Orphaned {
		t.Fatalf("%+v", f)
	}
}

func TestResolve(t *testing.T) {
	dir, first := project(t)
	write(t, dir, "Makefile", "changed:\n")
	git(t, dir, "commit", "-q", "-am", "change")
	write(t, dir, "untracked.txt", "x\n")
	p := open(t, dir)

	as, missing := p.Resolve([]string{"Makefile", "./src/db.go", filepath.Join(dir, "README.md"), "nope", "../etc/passwd", "untracked.txt"})
	if len(as) != 3 || len(missing) != 3 {
		t.Fatalf("anchors %v, missing %v", as, missing)
	}
	if want := git(t, dir, "rev-parse", "HEAD:Makefile"); as[0].Blob != want {
		t.Fatalf("Makefile anchored at %s, HEAD has %s", as[0].Blob, want)
	}
	if as[1].Path != "src/db.go" || as[2].Path != "README.md" {
		t.Fatalf("paths %v", as)
	}

	at, ok := p.ResolveAt(first, []string{"Makefile", "build.mk", "src/db.go"})
	if !ok || len(at) != 2 || at[0].Blob != git(t, dir, "rev-parse", first+":Makefile") {
		t.Fatalf("at the first commit: %v %v", at, ok)
	}
	if _, ok := p.ResolveAt(strings.Repeat("b", 40), []string{"Makefile"}); ok {
		t.Fatal("a commit the repository lacks resolved")
	}

	// from a subdirectory, a name relative to it
	sub := open(t, filepath.Join(dir, "src"))
	as, missing = sub.Resolve([]string{"db.go", "Makefile"})
	if len(missing) > 0 || as[0].Path != "src/db.go" || as[1].Path != "Makefile" {
		t.Fatalf("from src/: %v %v", as, missing)
	}
}

func TestChanges(t *testing.T) {
	dir, first := project(t)
	write(t, dir, "Makefile", "a:\n")
	git(t, dir, "commit", "-q", "-am", "make: a")
	write(t, dir, "README.md", "b\n")
	git(t, dir, "commit", "-q", "-am", "readme")
	write(t, dir, "Makefile", "c:\n")
	git(t, dir, "commit", "-q", "-am", "make: c")
	p := open(t, dir)
	got, more := p.Changes(first, "Makefile", 10)
	if more || len(got) != 2 || got[0].Subject != "make: c" || got[1].Subject != "make: a" {
		t.Fatalf("%+v %v", got, more)
	}
	if got, more := p.Changes(first, "Makefile", 1); len(got) != 1 || !more {
		t.Fatalf("limit: %+v %v", got, more)
	}
}

func TestMergeNote(t *testing.T) {
	f := Freshness{State: Orphaned, Anchors: []Check{
		{Path: "a", State: Orphaned}, {Path: "b", State: Orphaned, RenamedTo: "c"}, {Path: "d", State: Drifted}}}
	if got, want := f.Note(), "`a` and `b` (renamed to `c`) are gone since this was learned — it may no longer apply; `d` changed"; got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
}

// A learning from a remote may anchor the project's largest files: hashing stops at the
// budget and what is left is unchecked, never marked.
func TestHashBudget(t *testing.T) {
	dir, _ := project(t)
	big := strings.Repeat("x", 7<<20)
	var names []string
	for i := range 6 {
		name := fmt.Sprintf("big%d.bin", i)
		write(t, dir, name, big)
		names = append(names, name)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "big files")
	l := learnings.New("big", "github.com/acme/shop", time.Now())
	for _, n := range names {
		l.Anchors = append(l.Anchors, n+"@"+git(t, dir, "rev-parse", "HEAD:"+n))
	}
	for _, n := range names { // every one dirty: each must be hashed
		write(t, dir, n, big+"y")
	}
	p := open(t, dir)
	if f := p.Check(l); f.State != Unchecked {
		t.Fatalf("over the budget: %+v", f.State)
	}
	if p.hashed > maxHashTotal {
		t.Fatalf("hashed %d bytes", p.hashed)
	}
	// a FIFO where a file was is never opened
	os.Remove(filepath.Join(dir, "README.md"))
	if err := syscallMkfifo(filepath.Join(dir, "README.md")); err != nil {
		t.Skip(err)
	}
	l = learned(t, dir, "src/db.go")
	l.Anchors = append(l.Anchors, "README.md@"+strings.Repeat("a", 40))
	done := make(chan Freshness)
	go func() { done <- open(t, dir).Check(l) }()
	select {
	case f := <-done:
		if f.State != Drifted {
			t.Fatalf("fifo: %+v", f)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a FIFO blocked the check")
	}
}

// TestLatest: the work tree of the project seen last is the latest, read again: none before
// any is seen, each project's after it is seen (a project seen again after another, its
// checkout the same, included), and none once it is no longer that project.
func TestLatest(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ws, ok := Latest(r); ok {
		t.Fatalf("latest of none: %+v", ws)
	}
	shop, _ := project(t)
	other := t.TempDir()
	git(t, other, "init", "-q", "-b", "main")
	git(t, other, "remote", "add", "origin", "https://github.com/acme/other.git")
	for _, dir := range []string{shop, other, shop, other} {
		ws, err := workspace.Read(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := Remember(r, ws); err != nil {
			t.Fatal(err)
		}
		if got, ok := Latest(r); !ok || got.Root != ws.Root || got.Project != ws.Project {
			t.Fatalf("latest after %s: %+v, %v", ws.Project, got, ok)
		}
	}
	git(t, other, "remote", "set-url", "origin", "https://github.com/acme/moved.git")
	if ws, ok := Latest(r); ok {
		t.Fatalf("latest, its checkout now another project's: %+v", ws)
	}
}
