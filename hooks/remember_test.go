package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
)

// TestRememberAgain: the same `remember: …` prompt sent again counts the learning it made
// seen again instead of adding one; another note with that title, or the same note in a
// learning another author pushed and nobody reviewed, is written as a learning of its own.
func TestRememberAgain(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r := newMemory(t)
	prompt := func(session, text string) {
		t.Helper()
		p, _ := json.Marshal(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": text})
		Run(ctx, Options{Harness: HostClaude, Home: r.Root(), Stdin: bytes.NewReader(p), Stdout: io.Discard, Stderr: io.Discard,
			HandOff: func(context.Context, Handed) ([]byte, error) { return nil, fmt.Errorf("%w: not here", ErrNoEngine) }})
	}
	load := func() []*learnings.Learning {
		t.Helper()
		r2, err := gitstore.Open(r.Root())
		if err != nil {
			t.Fatal(err)
		}
		defer r2.Close()
		ls, _, err := learnings.LoadAll(r2)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	const note = "remember: the staging db is read-only on fridays"
	for i := range 3 {
		prompt(fmt.Sprint("s", i), note)
	}
	prompt("s3", "Remember:  the staging DB is read-only on Fridays.")
	ls := load()
	if len(ls) != 1 || ls[0].Seen != 4 {
		for _, l := range ls {
			t.Logf("%s seen %d: %s", l.ID, l.Seen, l.Title)
		}
		t.Fatalf("%d learnings after the same note four times; want one, seen 4", len(ls))
	}
	first := ls[0]

	// another author's, unreviewed: left as it is, the user's own written beside it
	rec := provenance.Record{Path: first.RelPath(), Email: "mallory@example.org", Author: "Mallory", Machine: "laptop-m"}
	if err := provenance.Save(r, map[string]provenance.Record{first.ID: rec}); err != nil {
		t.Fatal(err)
	}
	prompt("s4", note)
	ls = load()
	if len(ls) != 2 {
		t.Fatalf("%d learnings; want the unreviewed one and the user's own", len(ls))
	}
	for _, l := range ls {
		if l.ID == first.ID && l.Seen != 4 {
			t.Errorf("the unreviewed learning was counted: seen %d", l.Seen)
		}
	}

	// a note that holds a secret is stored redacted, and found again as such
	const secret = "remember: the deploy bot logs in with ghp_1234567890abcdefghijABCDEFGHIJ123456"
	prompt("s5", secret)
	prompt("s6", secret)
	if ls = load(); len(ls) != 3 {
		t.Errorf("%d learnings after a note with a secret twice; want one more", len(ls))
	}
}
