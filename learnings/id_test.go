package learnings

import (
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func TestNewID(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 14, 2, 345e6, time.UTC)
	seen := map[string]bool{}
	for range 1000 {
		id := NewID(at)
		if !ValidID(id) || seen[id] {
			t.Fatalf("NewID = %q: invalid or repeated", id)
		}
		seen[id] = true
		if got := ulid.MustParse(id[4:]).Timestamp(); !got.Equal(at) {
			t.Fatalf("NewID time = %v, want %v", got, at)
		}
	}
	for _, edge := range []time.Time{{}, time.Unix(-5, 0), time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if id := NewID(edge); !ValidID(id) {
			t.Errorf("NewID(%v) = %q", edge, id)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C":  true,
		"lrn-7ZZZZZZZZZZZZZZZZZZZZZZZZZ":  true,
		"lrn-01jd8z6q4v0r5t2w9k3m7n1b6c":  false, // one spelling per id
		"LRN-01JD8Z6Q4V0R5T2W9K3M7N1B6C":  false,
		"01JD8Z6Q4V0R5T2W9K3M7N1B6C":      false,
		"lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6":   false,
		"lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6CC": false,
		"lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6U":  false, // U is not Crockford base32
		"lrn-81JD8Z6Q4V0R5T2W9K3M7N1B6C":  false, // overflows 128 bits
		"lrn-":                            false,
		"":                                false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestPaths(t *testing.T) {
	const id = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C"
	if got := PathFor("github.com/acme/auth", id); got != "learnings/github.com/acme/auth/"+id+".md" {
		t.Errorf("PathFor = %q", got)
	}
	for p, want := range map[string]bool{
		PathFor("github.com/acme/auth", id):                    true,
		PathFor(Global, id):                                    true,
		PathFor("local/x", id):                                 true,
		"/home/me/.reflect/learnings/_global/" + id + ".md":    true,
		`C:\Users\me\.reflect\learnings\local\x\` + id + ".md": true,
		"learnings/" + id + ".md":                              false, // no project
		"queue/x/" + id + ".md":                                false,
		"learnings/_global/" + id + ".json":                    false,
		"learnings/_global/" + strings.ToLower(id) + ".md":     false,
		"learnings/_global/README.md":                          false,
	} {
		got, ok := IDFromPath(p)
		if ok != want || ok && got != id {
			t.Errorf("IDFromPath(%q) = %q, %v; want ok=%v", p, got, ok, want)
		}
	}
}
