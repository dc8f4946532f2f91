package sync

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteWithoutMain: reflect syncs main. A remote that has refs but no main is refused
// with its branches named, by a sync and by a clone, and nothing is fetched, written or
// pushed; an empty remote still gets a fresh memory.
func TestRemoteWithoutMain(t *testing.T) {
	setHome(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, has string
		fill      func(t *testing.T, work string)
	}{
		{"master only", "branches master", func(t *testing.T, work string) {
			git(t, work, "push", "-q", "origin", "HEAD:refs/heads/master")
		}},
		{"two branches", "branches dev, master", func(t *testing.T, work string) {
			git(t, work, "push", "-q", "origin", "HEAD:refs/heads/master", "HEAD:refs/heads/dev")
		}},
		{"tags only", "only refs/tags/v1", func(t *testing.T, work string) {
			git(t, work, "tag", "v1")
			git(t, work, "push", "-q", "origin", "refs/tags/v1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remote := filepath.Join(t.TempDir(), "remote.git")
			git(t, t.TempDir(), "init", "-q", "--bare", "-b", "master", remote)
			work := filepath.Join(t.TempDir(), "work")
			git(t, t.TempDir(), "clone", "-q", remote, work)
			os.WriteFile(filepath.Join(work, "README.md"), []byte("a project, not a memory\n"), 0o644)
			git(t, work, "add", "README.md")
			git(t, work, "commit", "-qm", "start")
			tc.fill(t, work)
			refs := git(t, remote, "for-each-ref")

			check := func(err error) {
				t.Helper()
				t.Log(err)
				if !errors.Is(err, ErrNoMain) || !strings.Contains(err.Error(), tc.has+" but no main") ||
					!strings.Contains(err.Error(), "nothing was fetched or pushed") {
					t.Errorf("want the remote's branches and no main, got %v", err)
				}
				if got := git(t, remote, "for-each-ref"); got != refs {
					t.Errorf("the remote's refs changed:\n%s\nwas\n%s", got, refs)
				}
			}

			// a memory whose remote is that one
			l := stranded(t, remote)
			before := git(t, l.dir, "rev-parse", "HEAD")
			_, err := Sync(ctx, l.repo(), Options{})
			check(err)
			if git(t, l.dir, "rev-parse", "HEAD") != before {
				t.Error("the refused sync moved HEAD")
			}
			if out, _ := exec.Command("git", "-C", l.dir, "for-each-ref", "refs/remotes").Output(); len(out) > 0 {
				t.Errorf("the refused sync recorded remote refs: %s", out)
			}
			l.healthy()

			// joining it (reflect init --from) leaves nothing behind
			dir := filepath.Join(t.TempDir(), "joined")
			_, _, err = Clone(ctx, dir, remote, Options{})
			check(err)
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Error("the refused clone left a directory behind")
			}
		})
	}

	t.Run("empty", func(t *testing.T) {
		remote := bare(t)
		_, res, err := Clone(ctx, filepath.Join(t.TempDir(), "joined"), remote, Options{})
		if err != nil || res.Action != "first push" {
			t.Fatalf("an empty remote: %+v, %v", res, err)
		}
		git(t, remote, "rev-parse", "refs/heads/main")
	})
}
