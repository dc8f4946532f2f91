package workspace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/learnings"
)

// git runs the git CLI in dir with a private HOME and no system config.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(parts...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestProjectKey(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	if key, err := ProjectKey(root); err != nil || key != learnings.Global {
		t.Skipf("the temporary directory is inside a git repository (%q, %v)", key, err)
	}

	withOrigin := mkdir(t, root, "auth")
	git(t, withOrigin, "init", "-q")
	git(t, withOrigin, "remote", "add", "upstream", "https://github.com/other/fork.git")
	git(t, withOrigin, "remote", "add", "origin", "git@github.com:acme/auth.git")
	git(t, withOrigin, "commit", "-q", "--allow-empty", "-m", "init")
	git(t, withOrigin, "worktree", "add", "-q", filepath.Join(root, "auth-wt"))
	deep := mkdir(t, withOrigin, "internal", "auth")

	noOrigin := mkdir(t, root, "multi")
	git(t, noOrigin, "init", "-q")
	git(t, noOrigin, "remote", "add", "zeta", "https://github.com/z/z")
	git(t, noOrigin, "remote", "add", "alpha", "https://gitlab.com/a/b/c.git")

	noRemote := mkdir(t, root, "My Notes")
	git(t, noRemote, "init", "-q")
	git(t, noRemote, "commit", "-q", "--allow-empty", "-m", "init")
	git(t, noRemote, "worktree", "add", "-q", filepath.Join(root, "notes-feature"))

	bare := filepath.Join(root, "lib.git")
	git(t, root, "init", "-q", "--bare", bare)
	clone := filepath.Join(withOrigin, "vendor", "lib")
	git(t, root, "clone", "-q", bare, clone)
	git(t, clone, "commit", "-q", "--allow-empty", "-m", "init")
	git(t, clone, "push", "-q", "origin", "HEAD")
	git(t, withOrigin, "-c", "protocol.file.allow=always", "submodule", "add", "-q", bare, "sub")

	cyrillic := mkdir(t, root, "auth-cyrillic")
	git(t, cyrillic, "init", "-q")
	git(t, cyrillic, "remote", "add", "origin", "git@github.com:аcme/auth.git") // Cyrillic а
	device := mkdir(t, root, "CON")
	git(t, device, "init", "-q")

	badGit := mkdir(t, root, "bad")
	if err := os.WriteFile(filepath.Join(badGit, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noGit := mkdir(t, root, "plain", "dir")

	for _, tc := range []struct{ dir, want string }{
		{withOrigin, "github.com/acme/auth"},
		{deep, "github.com/acme/auth"},
		{filepath.Join(root, "auth-wt"), "github.com/acme/auth"},
		{noOrigin, "gitlab.com/a/b/c"},
		{noRemote, "local/my-notes"},
		{filepath.Join(root, "notes-feature"), "local/my-notes"},
		{clone, "local/lib"},
		{filepath.Join(withOrigin, "sub"), "local/lib"},
		{noGit, learnings.Global},
		{cyrillic, "github.com/%D0%B0cme/auth"},
		{device, "local/co%6E"},
		{filepath.Join(withOrigin, ".git", "HEAD"), "github.com/acme/auth"}, // a file: its directory's key

	} {
		got, err := ProjectKey(tc.dir)
		if err != nil || got != tc.want {
			t.Errorf("ProjectKey(%s) = %q, %v; want %q", strings.TrimPrefix(tc.dir, root), got, err, tc.want)
		}
	}
	for _, dir := range []string{badGit, filepath.Join(root, "missing")} {
		if got, err := ProjectKey(dir); err == nil {
			t.Errorf("ProjectKey(%s) = %q, want an error", dir, got)
		}
	}
}

func BenchmarkProjectKey(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/auth.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644); err != nil {
		b.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b", "c")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if key, err := ProjectKey(sub); err != nil || key != "github.com/acme/auth" {
			b.Fatal(key, err)
		}
	}
}

// TestRecentCommits: Read gives the subjects of the latest commits (merges left out) and the
// files they touched, newest first, each once; a first commit (an import) and a commit that
// touches more than maxCommitFiles files give none.
func TestRecentCommits(t *testing.T) {
	dir := newRepo(t)
	n := 0
	write := func(path string) {
		t.Helper()
		n++
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%s %d\n", path, n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string, paths ...string) {
		t.Helper()
		for _, p := range paths {
			write(p)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	}
	commit("import", "README.md", "go.mod")
	var many []string
	for i := 0; i <= maxCommitFiles; i++ {
		many = append(many, "vendor/x/f"+strings.Repeat("a", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))+".go")
	}
	commit("vendor: add x", many...)
	commit("ratelimit: key on ip and username", "internal/ratelimit/limiter.go", "internal/ratelimit/limiter_test.go")
	git(t, dir, "checkout", "-q", "-b", "side")
	commit("docs: side", "docs/side.md")
	git(t, dir, "checkout", "-q", "main")
	commit("deps: bump go-redis", "go.mod", "go.sum")
	git(t, dir, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")

	w, err := Read(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(w.Subjects, " | "), "deps: bump go-redis | ratelimit: key on ip and username | vendor: add x | import"; got != want {
		t.Errorf("subjects: %q, want %q", got, want)
	}
	if got, want := strings.Join(w.Files, " "), "go.mod go.sum internal/ratelimit/limiter.go internal/ratelimit/limiter_test.go"; got != want {
		t.Errorf("files: %q, want %q", got, want)
	}
	if w, _ := Read(dir, 0); len(w.Subjects)+len(w.Files) != 0 {
		t.Errorf("asked for none: %v %v", w.Subjects, w.Files)
	}
	// read again, from what the first read kept of each commit: the same
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD^1").Output()
	if err != nil {
		t.Fatal(err)
	}
	if cr, ok := readCommits.Get(plumbing.NewHash(strings.TrimSpace(string(out)))); !ok || strings.Join(cr.files, " ") != "go.mod go.sum" {
		t.Errorf("the go-redis commit kept: %v %+v", ok, cr)
	}
	again, _ := Read(dir, 5)
	if !slices.Equal(again.Subjects, w.Subjects) || !slices.Equal(again.Files, w.Files) {
		t.Errorf("read again: %v %v, want %v %v", again.Subjects, again.Files, w.Subjects, w.Files)
	}
}

// A commit whose trees could not all be read is not kept: the next read, once the object is
// there, lists its files.
func TestUnreadTreeNotKept(t *testing.T) {
	dir := newRepo(t)
	mkdir(t, dir, "internal", "auth")
	for i, name := range []string{"README.md", "internal/auth/login.go"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(fmt.Sprintln(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "commit "+name)
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD:internal").Output()
	if err != nil {
		t.Fatal(err)
	}
	tree := strings.TrimSpace(string(out))
	obj := filepath.Join(dir, ".git", "objects", tree[:2], tree[2:])
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	w, _ := Read(dir, 5)
	if _, ok := readCommits.Get(plumbing.NewHash(w.Head)); ok {
		t.Errorf("kept a commit whose tree could not be read (files %v)", w.Files)
	}
	if err := os.WriteFile(obj, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if w, _ := Read(dir, 5); strings.Join(w.Files, " ") != "internal/auth/login.go" {
		t.Errorf("files once the tree is back: %v", w.Files)
	}
}

// newRepo is an empty repository on branch main, read with nothing kept of earlier reads.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	forgetCommits(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// forgetCommits empties what earlier reads kept of commits, before and after the test: a
// commit made again in the same second by another run is the same commit.
func forgetCommits(t *testing.T) {
	readCommits.Reset()
	t.Cleanup(readCommits.Reset)
}

// A branch whose first parents are all merges gives no subject, and is not read back further
// than maxWalk commits.
func TestMergesOnly(t *testing.T) {
	dir := newRepo(t)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "import")
	for i := range maxWalk + 5 {
		git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("Merge pull request #%d from acme/feature", i))
	}
	w, err := Read(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Subjects) != 0 {
		t.Errorf("subjects %q: the first commit is %d merges back", w.Subjects, maxWalk+5)
	}
	if n := readCommits.Size(); n > maxWalk {
		t.Errorf("read %d commits, more than %d", n, maxWalk)
	}
}

// BenchmarkReadCold is a session start's read of a project none of whose commits a read
// before kept (a resident engine's first session start in it): an import of 400 files in 20
// directories, then five commits touching three files each, all loose objects, as bench
// -recall's project.
func BenchmarkReadCold(b *testing.B) {
	dir := b.TempDir()
	run := func(args ...string) { git(b, dir, args...) }
	write := func(path, text string) {
		p := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run("init", "-q", "-b", "fix/webhook-retry-deadlock")
	run("remote", "add", "origin", "https://github.com/acme/bench.git")
	for i := range 400 {
		write(fmt.Sprintf("internal/pkg%02d/file%02d.go", i%20, i/20), fmt.Sprintf("package pkg%02d // %d\n", i%20, i))
	}
	run("add", "-A")
	run("commit", "-q", "-m", "import")
	for i := range 5 {
		var paths []string
		for k := range 3 {
			p := fmt.Sprintf("internal/pkg%02d/file%02d.go", (i*3+k)%20, k)
			write(p, fmt.Sprintf("package pkg%02d // changed by %d\n", (i*3+k)%20, i))
			paths = append(paths, p)
		}
		run(append([]string{"add", "--"}, paths...)...)
		run("commit", "-q", "-m", fmt.Sprintf("change %d", i))
	}
	for b.Loop() {
		readCommits.Reset()
		w, err := Read(dir, 5)
		if err != nil || len(w.Subjects) != 5 || len(w.Files) != 15 {
			b.Fatal(err, w.Subjects, w.Files)
		}
	}
}
