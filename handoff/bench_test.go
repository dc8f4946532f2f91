package handoff

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/transcript"
)

// BenchmarkBuild is what a capture adds to its work in memory: the handoff of a 200-turn
// session (1,600 messages) built and rendered.
func BenchmarkBuild(b *testing.B) {
	msgs := workMessages(b, 200)
	for b.Loop() {
		h := Build(msgs, meta, nil)
		if _, err := h.Render(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStage is what the handoff adds to a capture's commit at 10,000 learnings: a
// commit of a 20 KB queue entry alone, beside the same commit with the session's handoff
// (the previous one read back, the new one built from 200 turns, rendered, redacted and
// staged: one blob and the four trees on its path more, from the file pool as a hook has
// it). Here, idle: 0.5 ms of CPU for Build and Render, ~0.7 ms for Stage.
func BenchmarkStage(b *testing.B) {
	r := synthRepo(b, 10000)
	msgs := workMessages(b, 200)
	ctx := context.Background()
	m := meta
	m.Project = fixtures.SynthProject(3)
	entry := []byte(strings.Repeat("{\"kind\": \"prompt\", \"text\": \"step\"}\n", 500))
	i := 0
	for _, handoff := range []bool{false, true} {
		b.Run(fmt.Sprint("handoff=", handoff), func(b *testing.B) {
			for b.Loop() {
				i++
				if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
					tx.Write(fmt.Sprintf("queue/q-%d.json", i), entry)
					if !handoff {
						return "capture", nil
					}
					m.Now = time.Now()
					w, err := Stage(tx, msgs, m)
					if w.Path == "" {
						b.Fatal(w.Skipped)
					}
					return "capture", err
				}); err != nil {
					b.Fatal(err)
				}
				// a hook refills the file pool in the background after every capture
				b.StopTimer()
				r.FillPool()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkPick is a session start's part at 10,000 learnings: the handoff found, read and
// placed (by walking 50 commits back for its author, from the cache of that walk, or
// written here), and the block made.
func BenchmarkPick(b *testing.B) {
	r := synthRepo(b, 10000)
	ctx := context.Background()
	m := meta
	m.Project, m.Now = fixtures.SynthProject(3), time.Now()
	var w Written
	if _, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		var err error
		w, err = Stage(tx, workMessages(b, 50), m)
		return "handoff", err
	}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := r.Commit(ctx, "other", map[string][]byte{fmt.Sprintf("queue/q-%d.json", i): []byte("{}")}); err != nil {
			b.Fatal(err)
		}
	}
	cache := filepath.Join(r.StateDir(), "handoff", "origins.json")
	pick := func(b *testing.B, walk bool) {
		for b.Loop() {
			if walk {
				os.Remove(cache)
			}
			f, why, err := Pick(r, Start{Project: m.Project, Branch: m.Branch, Session: "next", Source: "startup", Now: time.Now(), MaxAge: time.Hour})
			if f == nil || err != nil {
				b.Fatal(why, err)
			}
			Block(f, time.Now(), 1200, func(s string) string { return s })
		}
	}
	b.Run("origin=walk", func(b *testing.B) { pick(b, true) })
	b.Run("origin=cached", func(b *testing.B) { pick(b, false) })
	if err := RecordWritten(r, w.Path, w.Blob); err != nil {
		b.Fatal(err)
	}
	b.Run("origin=here", func(b *testing.B) { pick(b, false) })
}

func workMessages(b *testing.B, turns int) []transcript.Message {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, fixtures.WorkSession(meta.CWD, meta.Branch, turns, t0), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := transcript.ReadFileFrom(path, 0, transcript.HarnessClaude)
	if err != nil {
		b.Fatal(err)
	}
	return s.Messages
}

func synthRepo(b *testing.B, n int) *gitstore.Repo {
	b.Setenv("HOME", b.TempDir())
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := filepath.Join(b.TempDir(), "mem")
	ctx := context.Background()
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, n, 100, 20); err != nil {
		b.Fatal(err)
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return r
}
