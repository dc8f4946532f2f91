package drain

import (
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
)

func TestIsDrainCommit(t *testing.T) {
	e := &queue.Entry{Harness: "claude-code", Session: "7f3c1a9e-1111"}
	one := learnings.New("Decode the state (from the URL) first", "_global", time.Now())
	two := learnings.New("Another", "_global", time.Now())
	for _, c := range []struct {
		subject string
		drain   bool
		made    int
	}{
		{subject(commitMessage(e, "heuristic", nil, &EntryResult{})), true, 0},
		{subject(commitMessage(e, "heuristic", []*learnings.Learning{one}, &EntryResult{})), true, 1},
		{subject(commitMessage(e, "claude", []*learnings.Learning{one, two}, &EntryResult{Merged: []string{"lrn-X"}})), true, 2},
		{"drain: q-01ABC failed after 3 attempts (claude-code session 7f3c1a9e): boom", true, 0},
		{"learn: Pin the toolchain (manual)", false, 0},
		{"learn: Use pnpm (correction in 7f3c1a9e)", false, 0},
		{"capture(stop): claude-code session 7f3c1a9e in _global", false, 0},
		{"learn: synthetic batch 3", false, 0},
	} {
		if got := IsDrainCommit(c.subject); got != c.drain {
			t.Errorf("IsDrainCommit(%q) = %v", c.subject, got)
		}
		if got := DrainedLearnings(c.subject); got != c.made {
			t.Errorf("DrainedLearnings(%q) = %d, want %d", c.subject, got, c.made)
		}
	}
}

func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}
