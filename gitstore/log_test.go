package gitstore

import (
	"context"
	"fmt"
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

func TestBehind(t *testing.T) {
	ctx := context.Background()
	r, _, err := Init(ctx, filepath.Join(t.TempDir(), "mem"), InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []plumbing.Hash
	for i := range 5 {
		id, err := r.Commit(ctx, fmt.Sprintf("c%d", i), map[string][]byte{"learnings/p/a.md": []byte(fmt.Sprintf("%d\n", i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, c := range []struct {
		name         string
		base, tip    plumbing.Hash
		limit, want  int
		wantComplete bool
	}{
		{"same commit", ids[4], ids[4], 100, 0, true},
		{"tip is older", ids[4], ids[1], 100, 0, true},
		{"two ahead", ids[2], ids[4], 100, 2, true},
		{"from nothing", plumbing.ZeroHash, ids[4], 100, 5 + 1, true}, // and init's commit
		{"no tip", ids[2], plumbing.ZeroHash, 100, 0, true},
		{"past the limit", ids[0], ids[4], 2, 2, false},
	} {
		n, complete, err := r.Behind(c.base, c.tip, c.limit)
		if err != nil || n != c.want || complete != c.wantComplete {
			t.Errorf("%s: Behind = %d, %v, %v; want %d, %v", c.name, n, complete, err, c.want, c.wantComplete)
		}
	}
}
