package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/internal/testenv"
)

// git runs the git CLI in dir and returns its trimmed output; a failure fails the test.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func setHome(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

func newRepo(t testing.TB) *Repo {
	t.Helper()
	setHome(t)
	r, created, err := Init(context.Background(), filepath.Join(t.TempDir(), "mem"), InitOptions{})
	if err != nil || !created {
		t.Fatalf("Init: %v (created %v)", err, created)
	}
	return r
}

// assertClean checks what every reflect write promises: git status clean, fsck clean.
func assertClean(t testing.TB, r *Repo) {
	t.Helper()
	if st := git(t, r.Root(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("git status is not clean:\n%s", st)
	}
	git(t, r.Root(), "fsck", "--strict", "--no-progress")
	if diff := git(t, r.Root(), "diff-index", "--cached", "HEAD"); diff != "" {
		t.Fatalf("index differs from HEAD:\n%s", diff)
	}
}

func TestInitAndCommit(t *testing.T) {
	r := newRepo(t)
	assertClean(t, r)
	if got := git(t, r.Root(), "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Fatalf("HEAD = %s", got)
	}
	ctx := context.Background()
	files := map[string][]byte{
		"learnings/github.com/acme/auth/lrn-1.md": []byte("one\n"),
		"learnings/_global/lrn-2.md":              []byte("two\n"),
		"queue/q1.json":                           []byte("{}\n"),
	}
	if _, err := r.Commit(ctx, "add three", files); err != nil {
		t.Fatal(err)
	}
	assertClean(t, r)
	if got := git(t, r.Root(), "show", "HEAD:learnings/_global/lrn-2.md"); got != "two" {
		t.Fatalf("HEAD file = %q", got)
	}
	if _, err := r.Commit(ctx, "drain q1", map[string][]byte{"queue/q1.json": nil, "learnings/_global/lrn-2.md": []byte("2\n")}); err != nil {
		t.Fatal(err)
	}
	assertClean(t, r)
	if _, err := os.Stat(filepath.Join(r.Root(), "queue")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("empty queue dir left behind: %v", err)
	}
	if n := git(t, r.Root(), "rev-list", "--count", "HEAD"); n != "3" {
		t.Fatalf("commits = %s", n)
	}
	data, err := r.ReadFile("learnings/_global/lrn-2.md")
	if err != nil || string(data) != "2\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if _, err := r.ReadFile("queue/q1.json"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ReadFile(deleted) err = %v", err)
	}
	fs, err := r.Walk("learnings")
	if err != nil || len(fs) != 2 || fs[0].Path != "learnings/_global/lrn-2.md" {
		t.Fatalf("Walk = %v, %v", fs, err)
	}
}

func TestSplitIndexStaysCleanForGit(t *testing.T) {
	r := newRepo(t)
	r.reshareAt = 8
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		p := fmt.Sprintf("learnings/p%d/lrn-%03d.md", i%3, i)
		files := map[string][]byte{p: []byte(fmt.Sprintf("v%d\n", i))}
		if i%5 == 4 { // modify an older one and delete another: replace and delete bits
			files[fmt.Sprintf("learnings/p%d/lrn-%03d.md", (i-3)%3, i-3)] = []byte("edited\n")
			files[fmt.Sprintf("learnings/p%d/lrn-%03d.md", (i-4)%3, i-4)] = nil
		}
		if _, err := r.Commit(ctx, fmt.Sprintf("c%d", i), files); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		assertClean(t, r)
	}
	if m, _ := filepath.Glob(filepath.Join(r.GitDir(), "sharedindex.*")); len(m) == 0 {
		t.Fatal("no shared index was written")
	}
	// git itself writes the split index now; reflect must keep reading it
	git(t, r.Root(), "update-index", "--split-index")
	os.WriteFile(filepath.Join(r.Root(), "by-git.md"), []byte("git\n"), 0o644)
	git(t, r.Root(), "add", "by-git.md")
	git(t, r.Root(), "commit", "-qm", "by git")
	if _, err := r.Commit(ctx, "after git", map[string][]byte{"by-git.md": []byte("reflect\n"), "learnings/p0/lrn-000.md": nil}); err != nil {
		t.Fatal(err)
	}
	assertClean(t, r)
}

// TestRecoveryAfterDeathAtEveryPhase stops a write dead after each of its phases (as a
// SIGKILL would) and checks that the next writer leaves the repository whole: the learning
// is committed exactly when the ref moved, and git sees a clean, consistent repository.
func TestRecoveryAfterDeathAtEveryPhase(t *testing.T) {
	phases := []struct {
		phase     string
		committed bool
	}{
		{"journal", false}, {"index-lock", false}, {"work-tree", false},
		{"index-written", false}, {"ref", true}, {"index", true},
	}
	for _, split := range []bool{false, true} {
		for _, ph := range phases {
			t.Run(fmt.Sprintf("%s/split=%v", ph.phase, split), func(t *testing.T) {
				r := newRepo(t)
				if split {
					r.reshareAt = 2
				}
				ctx := context.Background()
				for i := 0; i < 4; i++ {
					if _, err := r.Commit(ctx, "seed", map[string][]byte{fmt.Sprintf("learnings/p/seed%d.md", i): []byte("seed\n")}); err != nil {
						t.Fatal(err)
					}
				}
				r.failpoint = func(p string) bool { return p == ph.phase }
				_, err := r.Commit(ctx, "doomed", map[string][]byte{
					"learnings/p/new.md":   []byte("new\n"),
					"learnings/p/seed1.md": []byte("edited\n"),
					"learnings/p/seed2.md": nil,
				})
				if !errors.Is(err, errDied) {
					t.Fatalf("write did not die at %s: %v", ph.phase, err)
				}
				git(t, r.Root(), "fsck", "--strict", "--no-progress")

				next, err := Open(r.Root()) // a new process
				if err != nil {
					t.Fatal(err)
				}
				if _, err := next.Commit(ctx, "next", map[string][]byte{"learnings/p/after.md": []byte("after\n")}); err != nil {
					t.Fatalf("next write after death at %s: %v", ph.phase, err)
				}
				assertClean(t, next)
				_, err = next.ReadFile("learnings/p/new.md")
				if got := err == nil; got != ph.committed {
					t.Fatalf("after death at %s: new.md committed = %v, want %v", ph.phase, got, ph.committed)
				}
				seed1, _ := next.ReadFile("learnings/p/seed1.md")
				if want := map[bool]string{true: "edited\n", false: "seed\n"}[ph.committed]; string(seed1) != want {
					t.Fatalf("seed1 = %q, want %q", seed1, want)
				}
				if leftovers, _ := filepath.Glob(filepath.Join(next.StateDir(), "tmp", "*")); len(leftovers) != 0 {
					t.Fatalf("temporary files left: %v", leftovers)
				}
			})
		}
	}
}

// TestFullDiskDuringJournal: a journal that the disk could hold only part of must not lock
// every later write out (a torn journal cannot be read back, and recovery refuses to guess).
// The write fails with a *WriteError, nothing changes, and once space is freed the next
// writer commits. The journal of 300 paths is three pages; every object the write needs is
// already there but its commit, so two free pages give the journal one.
func TestFullDiskDuringJournal(t *testing.T) {
	mnt := testenv.MountTmpfs(t, "4m")
	setHome(t)
	ctx := context.Background()
	r, _, err := Init(ctx, filepath.Join(mnt, "mem"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files, gone := map[string][]byte{}, map[string][]byte{}
	for i := 0; i < 300; i++ {
		p := fmt.Sprintf("learnings/github.com/acme/widgets/lrn-%026d.md", i)
		files[p], gone[p] = []byte(fmt.Sprintf("lesson %d\n", i)), nil
	}
	if _, err := r.Commit(ctx, "add", files); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "remove", gone); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head()
	disk := testenv.FillDisk(t, mnt)
	disk.Leave(t, 8<<10)
	_, err = r.Commit(ctx, "add again", files)
	var we *WriteError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "journal") {
		t.Fatalf("err = %v; want a WriteError about the journal", err)
	}
	if now, _ := r.Head(); now != head {
		t.Fatal("HEAD moved")
	}
	disk.Free()
	next, err := Open(r.Root())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := next.Commit(ctx, "add again", files); err != nil {
		t.Fatalf("the next write after a journal the disk could not hold: %v", err)
	}
	assertClean(t, next)
}

// TestInterruptedWriteAndRecover: a write stopped dead at each phase is reported by
// InterruptedWrite with the paths it was changing from its journal on (before, nothing had
// changed), not while a writer holds the lock, and Recover completes or undoes it as the
// next write would.
func TestInterruptedWriteAndRecover(t *testing.T) {
	doomed := map[string][]byte{"learnings/p/new.md": []byte("new\n"), "learnings/p/seed.md": nil}
	for _, tt := range []struct {
		phase       string
		interrupted bool
		committed   bool
	}{
		{"index-lock", false, false}, {"journal", true, false}, {"work-tree", true, false},
		{"index-written", true, false}, {"ref", true, true}, {"index", true, true},
	} {
		t.Run(tt.phase, func(t *testing.T) {
			r := newRepo(t)
			ctx := context.Background()
			if _, err := r.Commit(ctx, "seed", map[string][]byte{"learnings/p/seed.md": []byte("seed\n")}); err != nil {
				t.Fatal(err)
			}
			r.failpoint = func(p string) bool { return p == tt.phase }
			if _, err := r.Commit(ctx, "doomed", doomed); !errors.Is(err, errDied) {
				t.Fatalf("write did not die at %s: %v", tt.phase, err)
			}
			next, err := Open(r.Root()) // another process: doctor, or the next command
			if err != nil {
				t.Fatal(err)
			}
			held := next.repoLock()
			if err := held.Lock(); err != nil {
				t.Fatal(err)
			}
			if paths, err := next.InterruptedWrite(); err != nil || paths != nil {
				t.Fatalf("with a writer holding the lock: %v, %v; want nothing (it may be under way)", paths, err)
			}
			held.Unlock()
			paths, err := next.InterruptedWrite()
			if err != nil {
				t.Fatal(err)
			}
			want := []string(nil)
			if tt.interrupted {
				want = []string{"learnings/p/new.md", "learnings/p/seed.md"}
			}
			if fmt.Sprint(paths) != fmt.Sprint(want) {
				t.Fatalf("InterruptedWrite = %v, want %v", paths, want)
			}
			got, err := next.Recover(ctx)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("Recover = %v, %v; want %v", got, err, want)
			}
			if paths, err := next.InterruptedWrite(); err != nil || paths != nil {
				t.Fatalf("after Recover: %v, %v", paths, err)
			}
			assertClean(t, next)
			if _, err := next.ReadFile("learnings/p/new.md"); (err == nil) != tt.committed {
				t.Fatalf("new.md committed = %v, want %v", err == nil, tt.committed)
			}
		})
	}
}

// TestCommitMessagesAreRedacted: a secret a caller left in a commit message (a subject made
// of a model's words, a reason quoted) never reaches the commit object; the rest of the
// message stays as written.
func TestCommitMessagesAreRedacted(t *testing.T) {
	const token = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
	r := newRepo(t)
	ctx := context.Background()
	msgs := map[string]string{
		"learn: log in with docker login --token " + token: "learn: log in with docker login --token [REDACTED:github-token]",
		"drain: 1 new\n\n- dropped: " + token + " (x)":     "drain: 1 new\n\n- dropped: [REDACTED:github-token] (x)",
		"add: run go test ./... before a push":             "add: run go test ./... before a push",
	}
	n := 0
	for msg, want := range msgs {
		n++
		if _, err := r.Update(ctx, func(tx *Tx) (string, error) {
			tx.Write("learnings/_global/lrn-1.md", []byte(fmt.Sprintf("version %d\n", n)))
			return msg, nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := git(t, r.Root(), "log", "-1", "--format=%B"); got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	}
	if log := git(t, r.Root(), "log", "--all", "--format=%B"); strings.Contains(log, token) {
		t.Errorf("the token was committed:\n%s", log)
	}
	assertClean(t, r)
}
