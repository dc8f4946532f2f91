package learnings

import (
	"strings"
	"testing"
	"time"
)

// Learnings made in the same second share the first 14 characters of their ids; the end is
// what tells them apart, and what Resolve takes.
func TestShortIDs(t *testing.T) {
	now := time.Now()
	var ids []string
	for range 500 {
		ids = append(ids, NewID(now))
	}
	short := ShortIDs(ids)
	var refs []Ref
	for _, id := range ids {
		refs = append(refs, Ref{ID: id, Path: PathFor(Global, id)})
	}
	seen := map[string]bool{}
	for _, id := range ids {
		s := short[id]
		if !strings.HasPrefix(s, "lrn-") || len(s) < len("lrn-")+MinShortID || !strings.HasSuffix(id, strings.TrimPrefix(s, "lrn-")) || seen[s] {
			t.Fatalf("short id of %s is %s", id, s)
		}
		seen[s] = true
		if r, err := Resolve(refs, s); err != nil || r.ID != id {
			t.Fatalf("Resolve(%s) = %v, %v; want %s", s, r.ID, err, id)
		}
	}
	// the shared time part is no id of its own
	if _, err := Resolve(refs, ids[0][:14]); err == nil {
		t.Error("a part every id holds resolved")
	}
}
