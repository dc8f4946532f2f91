package queue

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

// Retry moves failed entries back to the queue; an entry another author pushed moves in a
// commit authored by them (one per author), so that a clone that first sees it back in the
// queue does not take it for this user's capture.
func TestRetryKeepsWhoCaptured(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	authors := map[string]Author{}
	var ids []string
	for i, who := range []string{"", "unknown <(unknown)>", "Mallory <mallory@example.org>", "Eve <eve@example.org>", "Mallory <mallory@example.org>"} {
		e := &Entry{ID: NewID(now.Add(time.Duration(i) * time.Minute)), Harness: "claude-code", Session: "s" + string(rune('a'+i)),
			Trigger: "session-end", Project: "github.com/acme/widgets", Created: now, Updated: now, Messages: 2,
			Digest: Digest{Prompts: 1, Notes: []Note{{Kind: NotePrompt, Text: "fix the widget"}}}}
		if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
			return "queue: failed", FailTx(tx, e, "the extractor gave up", 3, now)
		}); err != nil {
			t.Fatal(err)
		}
		if name, email, ok := strings.Cut(who, " <"); ok {
			authors[e.ID] = Author{name, strings.TrimSuffix(email, ">")}
		}
		ids = append(ids, e.ID)
	}
	// as provenance.CapturedBy answers: this user's own entries, and one whose record does
	// not read, both named "unknown"; only the second is another author's
	by := func(id string) (Author, bool) {
		a, ok := authors[id]
		if !ok {
			return Author{"unknown", "(unknown)"}, false
		}
		return a, ok
	}
	log := func(n int) []string {
		out, err := exec.Command("git", "-C", r.Root(), "log", "-"+string(rune('0'+n)), "--format=%an <%ae> %cn|%s").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}

	moved, err := Retry(ctx, r, ids[3], false, now, by) // Eve's alone
	if err != nil || len(moved) != 1 || moved[0].ID != ids[3] {
		t.Fatalf("retry one: %v %v", moved, err)
	}
	if got := log(1)[0]; !strings.HasPrefix(got, "Eve <eve@example.org> ") || !strings.Contains(got, "|queue: retry "+ids[3]) {
		t.Errorf("retry of Eve's entry committed as %q", got)
	}
	moved, err = Retry(ctx, r, "", true, now, by)
	if err != nil || len(moved) != 4 {
		t.Fatalf("retry all: %d moved, %v", len(moved), err)
	}
	got := log(3)
	me := r.Identity()
	if !strings.HasPrefix(got[0], "Mallory <mallory@example.org> ") || !strings.Contains(got[0], "|queue: retry 2 failed entries") ||
		!strings.HasPrefix(got[1], "unknown <(unknown)> ") || !strings.Contains(got[1], "|queue: retry "+ids[1]) ||
		!strings.Contains(got[2], "<"+me+">") || !strings.Contains(got[2], "|queue: retry "+ids[0]) {
		t.Errorf("retry all committed %q; want this user's one, then the unknown author's, then Mallory's two", got)
	}
	items, _, err := List(r)
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, it := range items {
		if !it.Failed && it.Entry.Error == "" && it.Entry.Attempts == 0 {
			pending = append(pending, it.Entry.ID)
		}
	}
	slices.Sort(pending)
	if !slices.Equal(pending, ids) {
		t.Errorf("pending %v, want %v", pending, ids)
	}
	if _, err := Retry(ctx, r, "", true, now, by); err != nil || log(1)[0] != got[0] {
		t.Errorf("a retry with nothing failed committed, or failed: %v", err)
	}
}
