package sync

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestNewObjectsCoverGit checks the objects a push sends against git's own answer,
// `git rev-list --objects LOCAL --not REMOTE`: every object git would send is sent, even
// when commit dates run backwards (clock skew) and histories merge, and what is sent
// beyond that is only what the remote already has.
func TestNewObjectsCoverGit(t *testing.T) {
	cases := []struct {
		name string
		// dates of the shared, local-only and remote-only commits (seconds)
		shared, local, remote []int64
		mergeRemoteIntoLocal  bool
		bulk                  int // files in p0/ before the first commit: big trees, sent as deltas
	}{
		{name: "ahead", shared: []int64{100, 200}, local: []int64{300, 400, 500}},
		{name: "diverged", shared: []int64{100, 200}, local: []int64{300, 500}, remote: []int64{400, 600}},
		{name: "merged", shared: []int64{100}, local: []int64{300, 500}, remote: []int64{400}, mergeRemoteIntoLocal: true},
		{name: "local dated before the base", shared: []int64{1000, 2000}, local: []int64{10, 20, 30}, remote: []int64{3000}},
		{name: "remote dated in the future", shared: []int64{100}, local: []int64{200, 300}, remote: []int64{9e9}, mergeRemoteIntoLocal: true},
		{name: "empty remote", local: []int64{100, 200}},
		{name: "big trees", shared: []int64{100}, local: []int64{200, 300, 400, 500}, remote: []int64{150}, bulk: 60},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q", "-b", "main")
			n := 0
			commit := func(when int64, file string) {
				n++
				path := filepath.Join(dir, "learnings", file)
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(fmt.Sprintf("change %d\n", n)), 0o644)
				os.WriteFile(filepath.Join(dir, "shared.md"), []byte(fmt.Sprintf("revision %d\n", n)), 0o644)
				git(t, dir, "add", "-A")
				date := fmt.Sprintf("@%d +0000", when)
				c := exec.Command("git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", fmt.Sprint("c", n))
				c.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("git commit: %v\n%s", err, out)
				}
			}
			for i := 0; i < tc.bulk; i++ {
				path := filepath.Join(dir, "learnings", "p0", fmt.Sprintf("bulk-learning-%03d.md", i))
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(fmt.Sprintf("bulk %d\n", i)), 0o644)
			}
			for i, d := range tc.shared {
				commit(d, fmt.Sprintf("p%d/shared%d.md", i%2, i))
			}
			if len(tc.shared)+len(tc.remote) > 0 { // else the remote is empty
				git(t, dir, "checkout", "-q", "-b", "remote")
				for i, d := range tc.remote {
					commit(d, fmt.Sprintf("p%d/remote%d.md", i%2, i))
				}
				git(t, dir, "checkout", "-q", "main")
			}
			for i, d := range tc.local {
				commit(d, fmt.Sprintf("p%d/local%d.md", i%2, i))
			}
			if tc.mergeRemoteIntoLocal {
				git(t, dir, "-c", "user.name=t", "-c", "user.email=t@e", "merge", "-q", "--no-edit", "-X", "theirs", "remote")
			}
			local := plumbing.NewHash(git(t, dir, "rev-parse", "main"))
			var remote plumbing.Hash
			not := []string{}
			if out, err := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "remote").Output(); err == nil {
				remote = plumbing.NewHash(strings.TrimSpace(string(out)))
				not = append(not, "--not", remote.String())
			}
			want := map[string]bool{}
			for _, line := range strings.Split(git(t, dir, append([]string{"rev-list", "--objects", local.String()}, not...)...), "\n") {
				if f := strings.Fields(line); len(f) > 0 {
					want[f[0]] = true
				}
			}
			s := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
			got, bases, _, trees, err := newObjects(s, local, remote)
			if err != nil {
				t.Fatal(err)
			}
			// the pack these make is one git reads: every object resolves, deltas included
			var pack bytes.Buffer
			if err := writePack(&pack, s, got, bases, trees.raw); err != nil {
				t.Fatal(err)
			}
			packFile := filepath.Join(t.TempDir(), "push.pack")
			os.WriteFile(packFile, pack.Bytes(), 0o644)
			git(t, dir, "index-pack", "--strict", packFile)
			// and go-git's own server reads it too (the demo serves a remote in process)
			if err := packfile.UpdateObjectStorage(memory.NewStorage(), bytes.NewReader(pack.Bytes())); err != nil {
				t.Errorf("go-git cannot read the pack: %v", err)
			}
			verify := git(t, dir, "verify-pack", "-v", packFile)
			if tc.bulk > 0 && !strings.Contains(verify, "chain length = 1:") {
				t.Errorf("no tree was sent as a delta:\n%s", verify)
			}
			sent := map[string]bool{}
			for _, h := range got {
				sent[h.String()] = true
			}
			for h := range want {
				if !sent[h] {
					t.Errorf("git sends %s; the push does not", h)
				}
			}
			has := map[string]bool{} // what the remote has
			if !remote.IsZero() {
				for _, line := range strings.Split(git(t, dir, "rev-list", "--objects", remote.String()), "\n") {
					if f := strings.Fields(line); len(f) > 0 {
						has[f[0]] = true
					}
				}
			}
			for h := range sent {
				if !want[h] && !has[h] {
					t.Errorf("sent %s, which neither git sends nor the remote has", h)
				}
			}
			if len(sent) > 2*len(want)+4 {
				t.Errorf("sent %d objects where git sends %d", len(sent), len(want))
			}
		})
	}
}
