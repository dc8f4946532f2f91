package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestDiffTreesMatchesGit checks DiffTrees against `git diff --name-status` over a history
// that adds, changes, deletes, turns a file into a directory, and is written partly by the
// git CLI (as a sync or a hand edit would be).
func TestDiffTreesMatchesGit(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	commit := func(files map[string]string) plumbing.Hash {
		t.Helper()
		m := map[string][]byte{}
		for p, c := range files {
			if c == "" {
				m[p] = nil
			} else {
				m[p] = []byte(c)
			}
		}
		h, err := r.Commit(ctx, "t", m)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	var heads []plumbing.Hash
	heads = append(heads, commit(map[string]string{"learnings/a/1.md": "one", "learnings/a/2.md": "two", "learnings/b.md": "b", "queue/q.json": "{}"}))
	heads = append(heads, commit(map[string]string{"queue/q2.json": "{}"}))
	heads = append(heads, commit(map[string]string{"learnings/a/1.md": "one!", "learnings/c/3.md": "three", "learnings/a/2.md": ""}))
	heads = append(heads, commit(map[string]string{"learnings/b.md": "", "learnings/b/x.md": "x", "learnings/a.b.md": "ab"}))
	// the git CLI adds a hundred files in one commit
	for i := 0; i < 100; i++ {
		p := filepath.Join(r.Root(), "learnings", "d", fmt.Sprintf("%03d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, r.Root(), "add", "-A")
	git(t, r.Root(), "commit", "-qm", "cli")
	h, _ := r.Head()
	heads = append(heads, h)

	for i := range heads {
		for j := range heads {
			from, err := r.TreeOf(heads[i], "learnings")
			if err != nil {
				t.Fatal(err)
			}
			to, err := r.TreeOf(heads[j], "learnings")
			if err != nil {
				t.Fatal(err)
			}
			changes, err := r.DiffTrees(from, to, "learnings")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				st := "M"
				switch {
				case c.From.IsZero():
					st = "A"
				case c.To.IsZero():
					st = "D"
				}
				got = append(got, st+"\t"+c.Path)
			}
			sort.Strings(got)
			want := git(t, r.Root(), "diff", "--no-renames", "--name-status", heads[i].String(), heads[j].String(), "--", "learnings")
			var w []string
			if want != "" {
				w = strings.Split(want, "\n")
			}
			sort.Strings(w)
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("diff %d..%d:\n got %q\nwant %q", i, j, got, w)
			}
		}
	}
	if z, err := r.TreeOf(plumbing.ZeroHash, "learnings"); err != nil || !z.IsZero() {
		t.Errorf("TreeOf(zero) = %v, %v", z, err)
	}
	if z, err := r.TreeOf(heads[0], "nothing/here"); err != nil || !z.IsZero() {
		t.Errorf("TreeOf(missing dir) = %v, %v", z, err)
	}
}
