package queue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pad appends n bytes of Claude Code metadata records (no message) to the transcript.
func pad(t *testing.T, path string, n int) {
	t.Helper()
	line := `{"type":"file-history-snapshot","messageId":"m","snapshot":{"pad":"` + strings.Repeat("x", 64<<10) + `"}}` + "\n"
	appendTo(t, path, strings.Repeat(line, n/len(line)+1))
}

func prompts(d Digest) []string {
	var out []string
	for _, n := range d.Notes {
		if n.Kind == NotePrompt {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestEnqueueKeepsTheOpeningPastTheReadBound: a capture reads at most the last 16 MB of a
// transcript. An 8 MB session was captured with its first prompt; it grew past 20 MB and was
// captured again: the rewritten entry still said from=0 but held only what the second read
// saw, the first prompt lost. The opening already captured must stay, and a digest that
// cannot say what lay between (the transcript grew past the bound since) says it was cut.
func TestEnqueueKeepsTheOpeningPastTheReadBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 37 MB transcript")
	}
	r := newRepo(t)
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	const s = "long"
	tr := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, tr, sessionLine(s, "user", "OPENING: why does the login test hang", at), sessionLine(s, "assistant", "The clock was real.", at.Add(time.Second)))
	pad(t, tr, 8<<20)
	capture := func() *Entry { t.Helper(); return committed(t, r, precompact(s, tr)) }
	first := capture()
	if got := prompts(first.Digest); len(got) != 1 || first.Digest.Truncated {
		t.Fatalf("first capture: prompts %q, truncated %v", got, first.Digest.Truncated)
	}

	pad(t, tr, 12<<20) // 20 MB: the read starts at 4 MB, inside what the entry covers
	appendTo(t, tr, sessionLine(s, "user", "LATER: and the signup test", at.Add(time.Hour)), sessionLine(s, "assistant", "Same fix.", at.Add(time.Hour+time.Second)))
	second := capture()
	if got := prompts(second.Digest); second.ID != first.ID || second.From != 0 ||
		strings.Join(got, "|") != "OPENING: why does the login test hang|LATER: and the signup test" || second.Digest.Prompts != 2 || second.Digest.Truncated {
		t.Fatalf("second capture: %s from %d, prompts %q (%d), truncated %v", second.ID, second.From, got, second.Digest.Prompts, second.Digest.Truncated)
	}

	pad(t, tr, 17<<20) // past the bound again: what lay between the two reads was never read
	appendTo(t, tr, sessionLine(s, "user", "THIRD: the logout test", at.Add(2*time.Hour)))
	third := capture()
	if got := prompts(third.Digest); third.ID != first.ID || len(got) != 3 || !strings.HasPrefix(got[0], "OPENING") ||
		!strings.HasPrefix(got[2], "THIRD") || third.Digest.Prompts != 3 || !third.Digest.Truncated {
		t.Fatalf("third capture: prompts %q (%d), truncated %v", got, third.Digest.Prompts, third.Digest.Truncated)
	}
	if fi, _ := os.Stat(tr); fi.Size() < 36<<20 {
		t.Fatalf("the transcript is %d bytes", fi.Size())
	}
}
