package team

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRemoveWhileRead: a team removed or renamed while a recall reads it (here: a writer of
// its state at the old path, before, during and after) is removed, or renamed, all the same;
// the folder of state alone such a write leaves is no team (not listed, not opened) and does
// not keep the name from being added again; doctor names it.
func TestRemoveWhileRead(t *testing.T) {
	p, remote, _ := setup(t)
	ctx := context.Background()
	// a reader of team "acme" writing its state as Refresh does, through gitstore, which makes
	// the state file's folders
	write := func(name string) {
		dir := filepath.Join(Dir(p, name), ".git", "reflect", "team-review")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "tip"), []byte("0000\n"), 0o644)
	}
	for _, step := range []struct {
		name string
		act  func() error
	}{
		{"remove", func() error { return Remove(p, "acme") }},
		{"rename", func() error { return Rename(p, "acme", "acme-web") }},
	} {
		t.Run(step.name, func(t *testing.T) {
			if !slices.Contains(Names(p), "acme") {
				if _, _, err := Add(ctx, p, "acme", remote); err != nil {
					t.Fatal(err)
				}
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				for !stop.Load() {
					write("acme")
				}
			})
			err := step.act()
			stop.Store(true)
			wg.Wait()
			write("acme") // and once after: what a recall that read the team before does last
			if err != nil {
				t.Fatalf("%s while the team is read: %v", step.name, err)
			}
			if names := Names(p); slices.Contains(names, "acme") {
				t.Errorf("a folder of state alone is listed as a team: %v", names)
			}
			if _, err := Open(p, "acme"); err == nil {
				t.Error("a folder of state alone opens as a team")
			}
			if list, err := List(p); err != nil || slices.ContainsFunc(list, func(tm Team) bool { return tm.Name == "acme" }) {
				t.Errorf("list: %+v, %v", list, err)
			}
			if h := Check(p, "acme"); !slices.Contains(Folders(p), "acme") || !strings.Contains(h.Problem, "no .git/HEAD") {
				t.Errorf("doctor's look at the folder left: %v, %+v", Folders(p), h)
			}
			if _, _, err := Add(ctx, p, "acme", remote); err != nil {
				t.Errorf("adding the name again: %v", err)
			}
			if !slices.Contains(Names(p), "acme") {
				t.Errorf("the team added again is not listed: %v", Names(p))
			}
			if step.name == "rename" && !slices.Contains(Names(p), "acme-web") {
				t.Errorf("the renamed team is not listed: %v", Names(p))
			}
		})
	}
	// the folders moved aside by a removal are gone, or are no team
	entries, _ := os.ReadDir(Root(p))
	for _, e := range entries {
		if CheckName(e.Name()) != nil && isClone(filepath.Join(Root(p), e.Name())) {
			t.Errorf("a removed clone stays: %s", e.Name())
		}
	}
}

// TestLeftovers: a clone a removal moved aside and left is a leftover, and the next removal
// deletes it; one moved aside a moment ago is a removal under way, neither named nor deleted.
func TestLeftovers(t *testing.T) {
	p, _, _ := setup(t)
	old := filepath.Join(Root(p), ".removed-old-1700000000")
	now := filepath.Join(Root(p), fmt.Sprintf(".removed-busy-%d", time.Now().UnixNano()))
	for _, dir := range []string{old, now} {
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := Leftovers(p); !slices.Equal(got, []string{old}) {
		t.Errorf("leftovers %v, want %v", got, []string{old})
	}
	if err := Remove(p, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the leftover stays after a removal: %v", err)
	}
	if _, err := os.Stat(now); err != nil {
		t.Errorf("a removal under way lost its clone to another: %v", err)
	}
}
