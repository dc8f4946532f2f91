package handoff

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Summary is what an LLM extractor may rewrite of a handoff: its summary lines — the task,
// the direction it last took, what it concluded — in plain words. Never its facts: the agent,
// machine, times, branch, HEAD, to-dos, files and failed commands are the capture's.
type Summary struct {
	Task      string `json:"task"`
	Direction string `json:"direction,omitempty"`
	Concluded string `json:"concluded,omitempty"`
}

// MaxSummaryLine bounds each rewritten line, in characters: a sentence or two. The offline
// lines are clipped at 600 (a prompt quoted whole); a model asked for plain words that
// writes more than this did not summarise, and its lines are refused rather than cut.
const MaxSummaryLine = 300

// ErrSummary means a rewritten summary cannot be used; the handoff stays as it was.
var ErrSummary = errors.New("unusable handoff summary")

// Check returns s normalised (each line one line, spaces squeezed, control characters
// dropped, secrets redacted) or says why it cannot replace the offline lines: no task, or a
// line longer than MaxSummaryLine. An empty direction or conclusion keeps the offline one.
func (s Summary) Check() (Summary, error) {
	norm := func(v string) string { return redact.String(printable.String(strings.Join(strings.Fields(v), " "))) }
	s = Summary{Task: norm(s.Task), Direction: norm(s.Direction), Concluded: norm(s.Concluded)}
	if s.Task == "" {
		return Summary{}, fmt.Errorf("%w: no task", ErrSummary)
	}
	for _, f := range []struct{ name, v string }{{"task", s.Task}, {"direction", s.Direction}, {"concluded", s.Concluded}} {
		if n := utf8.RuneCountInString(f.v); n > MaxSummaryLine {
			return Summary{}, fmt.Errorf("%w: %s is %d characters long, the limit is %d", ErrSummary, f.name, n, MaxSummaryLine)
		}
	}
	return s, nil
}

// SummaryOf returns the summary lines h holds now.
func SummaryOf(h *Handoff) Summary {
	return Summary{Task: h.Task, Direction: h.Direction, Concluded: h.Concluded}
}

// Capture names the capture a summary was written from: a queue entry's harness, session and
// the time of its latest capture (the entry's updated, which is the handoff's updated when
// that capture wrote it).
type Capture struct {
	Project, Branch  string
	Harness, Session string
	Updated          time.Time
}

// Current says whether h is the handoff c's capture wrote: the same harness and session,
// updated at c's time; else why not (none, another session's, a later capture's).
func Current(h *Handoff, c Capture) (bool, string) {
	switch {
	case h == nil:
		return false, "no handoff"
	case h.Session != c.Session || h.Harness != c.Harness:
		return false, fmt.Sprintf("session %s wrote the handoff since", h.Session)
	case !h.Updated.Equal(c.Updated):
		return false, "a later capture of the session wrote the handoff since"
	}
	return true, ""
}

// Rewrite replaces the summary lines of the handoff c's capture wrote with s, in tx (the
// drain's commit), and names by (the extractor) in its summary_by. It writes nothing, and
// says why in Skipped, when the handoff is not c's capture's (see Current: a newer
// session's is never touched), when s is unusable (see Check), or when nothing changes.
// The file is redacted whole before it is staged, as a capture's is.
func Rewrite(tx *gitstore.Tx, c Capture, s Summary, by string) (Written, error) {
	path := Path(c.Project, c.Branch)
	data, err := tx.Read(path)
	if errors.Is(err, gitstore.ErrNotFound) {
		return Written{Skipped: "no handoff"}, nil
	} else if err != nil {
		return Written{}, err
	}
	h, err := Parse(path, data)
	if err != nil {
		return Written{Skipped: err.Error()}, nil
	}
	if ok, why := Current(h, c); !ok {
		return Written{Skipped: why}, nil
	}
	s, err = s.Check()
	if err != nil {
		return Written{Skipped: err.Error()}, nil
	}
	h.Task = s.Task
	if s.Direction != "" {
		h.Direction = s.Direction
	}
	if s.Concluded != "" {
		h.Concluded = s.Concluded
	}
	h.SummaryBy = printable.String(strings.Join(strings.Fields(by), " "))
	out, err := h.Render()
	if err != nil {
		return Written{}, err
	}
	out = redact.Bytes(out)
	if string(out) == string(data) {
		return Written{Skipped: "the summary is the same"}, nil
	}
	tx.Write(path, out)
	return Written{Handoff: h, Path: path, Blob: plumbing.ComputeHash(plumbing.BlobObject, out)}, nil
}
