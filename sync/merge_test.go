package sync

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

func learningFile(title, status, tags, updated, body string, seen int) []byte {
	return []byte("---\nid: lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C\ntitle: " + title + "\nproject: github.com/acme/shop\nkind: fix\nconfidence: medium\nstatus: " + status +
		"\nsuperseded_by: \"\"\nsupersedes: []\ntags: [" + tags + "]\nentities: []\nsource:\n  harness: manual\n  trigger: manual\ncreated: 2026-11-01T10:00:00Z\nupdated: " + updated +
		"\nseen: " + string(rune('0'+seen)) + "\n---\n" + body + "\n")
}

var blobA, blobB = strings.Repeat("a", 40), strings.Repeat("b", 40)

// anchored adds an anchors line to a learning file.
func anchored(f []byte, anchors string) []byte {
	return []byte(strings.Replace(string(f), "entities: []\n", "entities: []\nanchors: ["+anchors+"]\n", 1))
}

// TestMergeFileRules: the rules, and that the result never depends on which side is local.
func TestMergeFileRules(t *testing.T) {
	const p = "learnings/github.com/acme/shop/lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C.md"
	base := learningFile("Cache the JWKS", "current", "oidc", "2026-11-01T10:00:00Z", "Cache it.", 1)
	cases := []struct {
		name      string
		a, b      []byte
		want, not []string
	}{
		{"tags union, later title, seen max",
			learningFile("Cache the JWKS keys", "current", "oidc, cache", "2026-11-02T10:00:00Z", "Cache it.", 2),
			learningFile("Cache the JWKS", "current", "oidc, jwks", "2026-11-03T10:00:00Z", "Cache it.", 3),
			[]string{"title: Cache the JWKS keys", "tags: [oidc, jwks, cache]", "seen: 3", "updated: 2026-11-03T10:00:00Z"}, nil},
		{"archived wins over current",
			learningFile("Cache the JWKS", "archived", "oidc", "2026-11-02T10:00:00Z", "Cache it.", 1),
			learningFile("Cache the JWKS", "current", "oidc", "2026-11-05T10:00:00Z", "Cache it better.", 1),
			[]string{"status: archived", "Cache it better."}, []string{"also edited on another machine"}},
		{"both bodies kept, marked",
			learningFile("Cache the JWKS", "current", "oidc", "2026-11-02T10:00:00Z", "Refetch on unknown kid.", 1),
			learningFile("Cache the JWKS", "current", "oidc", "2026-11-03T10:00:00Z", "Rate-limit the refetch.", 1),
			[]string{"Refetch on unknown kid.", "Rate-limit the refetch.", "reflect sync kept both"}, []string{"<<<<<<<"}},
		{"anchors: union by path, the side updated last gives the blob",
			anchored(learningFile("Cache the JWKS", "current", "oidc", "2026-11-02T10:00:00Z", "Cache it.", 1), "jwks.go@"+blobA+", Makefile@"+blobA),
			anchored(learningFile("Cache the JWKS", "current", "oidc", "2026-11-03T10:00:00Z", "Cache it.", 1), "jwks.go@"+blobB+", cache.go@"+blobB),
			[]string{"anchors: [jwks.go@" + blobB + ", cache.go@" + blobB + ", Makefile@" + blobA + "]"}, nil},
		{"anchors on one side only are kept",
			learningFile("Cache the JWKS", "current", "oidc", "2026-11-04T10:00:00Z", "Cache it.", 1),
			anchored(learningFile("Cache the JWKS", "current", "oidc", "2026-11-03T10:00:00Z", "Cache it.", 1), "jwks.go@"+blobB),
			[]string{"anchors: [jwks.go@" + blobB + "]"}, nil},
		{"a broken side loses",
			[]byte("---\ntitle: [broken\n---\n"),
			learningFile("Cache the JWKS", "current", "oidc", "2026-11-03T10:00:00Z", "Fine.", 1),
			[]string{"Fine."}, []string{"broken"}},
	}
	for _, c := range cases {
		ab := string(mergeFile(p, base, c.a, c.b))
		ba := string(mergeFile(p, base, c.b, c.a))
		if ab != ba {
			t.Errorf("%s: the result depends on the side:\n%s\n---\n%s", c.name, ab, ba)
		}
		for _, w := range c.want {
			if !strings.Contains(ab, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, ab)
			}
		}
		for _, n := range c.not {
			if strings.Contains(ab, n) {
				t.Errorf("%s: %q in\n%s", c.name, n, ab)
			}
		}
	}
	// queue entries: the one updated last; other files: a fixed choice
	qa, qb := []byte(`{"id":"q-1","updated":"2026-11-02T00:00:00Z"}`), []byte(`{"id":"q-1","updated":"2026-11-03T00:00:00Z"}`)
	if got := string(mergeFile("queue/q-1.json", nil, qa, qb)); got != string(qb) || string(mergeFile("queue/q-1.json", nil, qb, qa)) != got {
		t.Errorf("queue entry: %s", got)
	}
	if string(mergeFile("reflect.toml", nil, []byte("a"), []byte("b"))) != string(mergeFile("reflect.toml", nil, []byte("b"), []byte("a"))) {
		t.Error("reflect.toml: the result depends on the side")
	}
}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40391},
		Err: errors.New("connect: connection refused")}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"a refused port whose number holds 403", fmt.Errorf("Get \"http://127.0.0.1:40391/x\": %w", refused), ErrNetwork},
		{"go-git's 401", transport.ErrAuthenticationRequired, ErrAuth},
		{"go-git's 403", transport.ErrAuthorizationFailed, ErrAuth},
		{"a status in a message", errors.New("unexpected requesting \"x\" status code: 403"), ErrAuth},
		{"a hash with 401 in it", errors.New("object 4017ab not found"), ErrNetwork},
		{"no repository", transport.ErrRepositoryNotFound, ErrNetwork},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err, "https://example.com/memory.git"); !errors.Is(got, tc.want) {
				t.Errorf("classify(%v) = %v; want %v", tc.err, got, tc.want)
			}
		})
	}
}
