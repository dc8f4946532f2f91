package gitstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Origins names the commit that made each file's current version, and a walk over history
// keeps the decoded-tree cache within its bound (before the bound, a walk over a
// 100,000-learning folder held one decoded folder per commit: gigabytes).
func TestOriginsWithinTheTreeCacheBound(t *testing.T) {
	r := newRepo(t)
	old := maxCachedEntries
	maxCachedEntries = 40
	t.Cleanup(func() { maxCachedEntries = old })
	ctx := context.Background()
	want := map[string]plumbing.Hash{}
	made := map[string]plumbing.Hash{}
	for i := range 30 {
		p := fmt.Sprintf("learnings/a/%02d.md", i)
		h, err := r.Commit(ctx, "learn: "+p, map[string][]byte{p: []byte(p)})
		if err != nil {
			t.Fatal(err)
		}
		made[p] = h
		if r.treeSize > maxCachedEntries+30 { // one tree may be cached alone past the bound
			t.Fatalf("after commit %d the cache holds %d entries", i, r.treeSize)
		}
	}
	head, _ := r.Head()
	files, err := r.Walk("learnings")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		want[f.Path] = f.ID
	}
	got, err := r.Origins(head, want, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range made {
		if got[p].Commit != c {
			t.Errorf("%s: origin %s, want %s", p, got[p].Commit, c)
		}
	}
	if r.treeSize > maxCachedEntries+30 {
		t.Errorf("after the walk the cache holds %d entries", r.treeSize)
	}
}
