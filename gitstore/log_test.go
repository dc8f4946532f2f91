package gitstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestFileLog(t *testing.T) {
	ctx := context.Background()
	r, _, err := Init(ctx, filepath.Join(t.TempDir(), "mem"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string, files map[string][]byte) {
		t.Helper()
		if _, err := r.Commit(ctx, msg, files); err != nil {
			t.Fatal(err)
		}
	}
	commit("add a\n\nwith a body", map[string][]byte{"learnings/p/a.md": []byte("one\n")})
	commit("add b", map[string][]byte{"learnings/p/b.md": []byte("b\n")})
	commit("change a", map[string][]byte{"learnings/p/a.md": []byte("two\n")})
	commit("touch b", map[string][]byte{"learnings/p/b.md": []byte("b2\n")})
	if _, err := r.Update(ctx, func(tx *Tx) (string, error) {
		tx.Delete("learnings/p/a.md")
		return "remove a", nil
	}); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head()
	blob := func(s string) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, []byte(s)) }
	for _, c := range []struct {
		limit int
		want  []string // subjects, newest first
	}{{100, []string{"remove a", "change a", "add a"}}, {3, []string{"remove a", "change a"}}, {1, []string{"remove a"}}} {
		revs, err := r.FileLog(head, "learnings/p/a.md", c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rv := range revs {
			got = append(got, rv.Subject)
		}
		if len(got) != len(c.want) {
			t.Fatalf("limit %d: %q, want %q", c.limit, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("limit %d: %q, want %q", c.limit, got, c.want)
			}
		}
	}
	revs, _ := r.FileLog(head, "learnings/p/a.md", 100)
	if !revs[0].After.IsZero() || revs[0].Before != blob("two\n") || revs[1].Before != blob("one\n") || revs[1].After != blob("two\n") ||
		!revs[2].Before.IsZero() || revs[2].Body != "with a body" {
		t.Errorf("revisions: %+v", revs)
	}
	if revs, _ := r.FileLog(head, "learnings/p", 100); len(revs) != 0 {
		t.Errorf("a directory has a file log: %+v", revs)
	}
	all, err := r.Log(head, 100)
	if err != nil || len(all) != 6 || all[0].Subject != "remove a" || all[0].ID != head {
		t.Errorf("log: %d commits, %v", len(all), err)
	}
	if some, _ := r.Log(head, 2); len(some) != 2 {
		t.Errorf("log limited to 2: %d", len(some))
	}
	if none, err := r.Log(plumbing.ZeroHash, 10); err != nil || len(none) != 0 {
		t.Errorf("log of no commit: %v %v", none, err)
	}
}
