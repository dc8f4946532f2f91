package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Triggers of a capture.
const (
	TriggerPreCompact = "precompact"
	TriggerStop       = "stop"
	TriggerSessionEnd = "session-end"
)

// Capture is what a hook knows when it asks for a session to be enqueued.
type Capture struct {
	Harness        string // claude-code | codex | gemini | copilot | cursor (transcript's names)
	Session        string
	TranscriptPath string // may be empty (Codex sends null)
	LastMessage    string // the host's last assistant message, used when there is no transcript
	Trigger        string
	Project        string
	Branch, Commit string
	Machine        string
	Now            time.Time
	DigestBytes    int   // budget of the digest
	GrowthBytes    int64 // Stop re-captures only after this much growth
	// Also runs inside the capture's commit once the entry is staged, with the session's
	// messages the entry covers (its subagents' left out): the handoff is written from
	// them in the same commit, with no second read of the transcript.
	Also func(tx *gitstore.Tx, msgs []transcript.Message)
	// Theirs says whether another author's commit wrote the current version of a queue
	// entry (provenance.OtherAuthor; nil: none did). Such an entry is never this session's to
	// rewrite, whatever it claims: whoever can push knows a session's id and machine from its
	// entry, and an entry claiming to cover the whole transcript made every later capture
	// "already captured", the session's lessons drained as theirs.
	Theirs func(entryID string) bool
}

// Result says what Enqueue did.
type Result struct {
	Entry     *Entry
	Committed bool
	Skipped   string // why nothing was committed
	// NoRecords: what was read of the transcript holds no message of either host's
	// format (the payload may name any file: /etc/shadow, a binary), so nothing was
	// committed.
	NoRecords bool
	// EmptyDigest: the messages read hold nothing a digest keeps (no prompt, no failed
	// call, no hook feedback, no words of the assistant), so nothing was committed: an
	// entry the drain could only drop.
	EmptyDigest bool
}

// marks are the per-session memory of what was enqueued, local to this clone.
type marks struct {
	Pending  string    `json:"pending,omitempty"` // entry still covering this session, if not drained yet
	From     int64     `json:"from"`              // start of the pending entry's range
	To       int64     `json:"to"`                // end of the last enqueued range
	Enqueues int       `json:"enqueues"`
	Last     time.Time `json:"last,omitzero"`
	// SideFrom is where the pending entry's subagent messages start: the time of the
	// capture before it. A subagent can outlive a turn (run in the background), so its
	// messages between two captures are not bounded by the session file's.
	SideFrom time.Time `json:"side_from,omitzero"`
}

// StateName is the file name for local state about one session: the harness and session id
// with anything but [A-Za-z0-9._-] replaced, so a hostile session id cannot name a path.
func StateName(harness, session string) string {
	b := []byte(harness + "-" + session)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if s := string(b); s != "." && s != ".." {
		return s + ".json"
	}
	return "_.json"
}

func marksPath(harness, session string) string {
	return "state/sessions/" + StateName(harness, session)
}

// readMarks reads the session's marks; unreadable marks read as none (start afresh).
func readMarks(r *gitstore.Repo, c Capture) marks {
	var m marks
	if data, err := r.ReadState(marksPath(c.Harness, c.Session)); err == nil && data != nil {
		if json.Unmarshal(data, &m) != nil {
			m = marks{}
		}
	}
	return m
}

// maxRead bounds the transcript a capture reads: the tail of a huge file is what matters.
const maxRead = 16 << 20

// Gate says why Enqueue would capture nothing of c before it reads the transcript, or "" when
// it would go on. It reads only the session's marks and the transcript's size: a hook asks it
// before it reads the project's workspace and the host's name, which a Stop with nothing new
// (most of them: one after each turn) does not need (0.1 ms of the hook).
func Gate(r *gitstore.Repo, c Capture) string {
	_, _, skip := gate(r, c)
	return skip
}

// gate is Gate, with the session's marks and the transcript's size (-1: no regular file).
func gate(r *gitstore.Repo, c Capture) (m marks, size int64, skip string) {
	m = readMarks(r, c)
	size = -1
	if c.TranscriptPath != "" {
		// only a regular file: a path to /dev/zero or a FIFO must not hang a hook
		if fi, err := os.Stat(c.TranscriptPath); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size < 0 && c.LastMessage == "" {
		return m, size, "no transcript and no last message"
	}
	if size < 0 && m.Enqueues > 0 && c.Trigger == TriggerStop {
		return m, size, "no transcript; already captured once"
	}
	if size >= 0 && m.Enqueues > 0 {
		grown := size - m.To
		if grown <= 0 {
			return m, size, "nothing new since the last capture"
		}
		if c.Trigger == TriggerStop && grown < c.GrowthBytes {
			return m, size, fmt.Sprintf("transcript grew %d bytes since the last capture (< %d)", grown, c.GrowthBytes)
		}
	}
	return m, size, ""
}

// Enqueue commits the session's digest as a queue entry, one commit. Stop is gated: it
// captures a session once, and again only after substantial growth; PreCompact and
// SessionEnd always capture what is new. A pending entry of the same session that the drain
// has not taken yet is rewritten rather than joined by a second one.
func Enqueue(ctx context.Context, r *gitstore.Repo, c Capture) (Result, error) {
	m, size, skip := gate(r, c)
	if skip != "" {
		return Result{Skipped: skip}, nil
	}

	// read what the entry may need: from the pending entry's start (if it is still pending)
	var msgs, side []transcript.Message
	sideLeft := 0
	var sideFrom time.Time
	var end, readFrom int64
	from := m.From
	if m.Pending == "" {
		from = m.To
	}
	if size >= 0 {
		h := transcript.Harness(c.Harness)
		if !transcript.Known(h) {
			h = transcript.HarnessClaude
		}
		readFrom = max(from, size-maxRead, 0)
		s, err := transcript.ReadFileFrom(c.TranscriptPath, readFrom, h)
		if err != nil {
			return Result{}, fmt.Errorf("read transcript %s: %w", c.TranscriptPath, err)
		}
		if len(s.Messages) == 0 {
			// /etc/shadow, a binary, a sparse file, a text that is not JSON lines, or a
			// transcript whose new part holds only metadata: a capture would be empty
			return Result{NoRecords: true, Skipped: noRecords(c.TranscriptPath, readFrom, s)}, nil
		}
		msgs, end = s.Messages, s.End
		if end < readFrom {
			end = readFrom
		}
		if h == transcript.HarnessClaude {
			// the earliest the entry's subagent part may start; which it does is known
			// once the pending entry is found, or not, under the lock
			side, sideLeft = readSubagents(ctx, c.TranscriptPath, earliest(m.SideFrom, m.Last, firstTime(msgs)))
		}
	} else {
		msgs = []transcript.Message{{Role: transcript.RoleAssistant, Kind: transcript.KindText, Text: c.LastMessage, Timestamp: c.Now}}
	}

	var res Result
	unchanged, empty := false, false
	blank := 0 // messages whose digest held nothing
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		// Under the lock, what is committed decides, and the marks are read again: a capture
		// of the same session may have committed while this one read the transcript (a Stop
		// and a SessionEnd at once), or have been killed between its commit and its marks.
		// Either way its entry is this session's pending one, to rewrite, not to join.
		m = readMarks(r, c)
		prev, taken, err := pendingEntry(tx, m, c)
		if err != nil {
			return "", err
		}
		e := &Entry{ID: sessionID(c.Now, c.Harness, c.Session), Harness: c.Harness, Session: c.Session, Trigger: c.Trigger, Project: c.Project,
			Branch: c.Branch, Commit: c.Commit, Machine: c.Machine, Created: c.Now.UTC(), From: m.To}
		if taken {
			// the entry the marks name is another author's version now: what this session's
			// entry held is captured again, from the transcript, in an entry of the user's
			e.From = m.From
		}
		if prev != nil {
			e.ID, e.Created, e.From = prev.ID, prev.Created, prev.From
		}
		// the committed entry is the truth: if it already covers this range (its capture
		// committed, then the hook was stopped before saving the marks), there is nothing to do
		if prev != nil && size >= 0 && prev.To >= end {
			unchanged, res.Entry = true, prev
			if prev.ID == m.Pending {
				sideFrom = m.SideFrom
			}
			return "", nil
		}
		var kept []transcript.Message
		for _, msg := range msgs {
			if msg.Offset >= e.From || size < 0 {
				kept = append(kept, msg)
			}
		}
		if len(kept) == 0 {
			// the pending entry went (drained on another clone) and what is new of the
			// transcript holds no message
			empty = true
			return "", nil
		}
		e.Updated, e.To, e.Messages = c.Now.UTC(), end, len(kept)
		// an entry the marks do not name was written by a capture that read the marks as
		// they are now: its subagent part started where a new entry's does; one that takes
		// the place of the marks' entry, now another author's, covers what that one did
		sideFrom = subagentsSince(m, prev != nil && prev.ID == m.Pending || prev == nil && taken, kept)
		e.Digest = BuildDigest(append(kept, subagentPart(kept, side, sideFrom)...), c.DigestBytes)
		if len(e.Digest.Notes) == 0 {
			// prompts that were host noise, successful calls, thinking: nothing for the
			// drain to read; the range is read again by the next capture
			blank = len(kept)
			return "", nil
		}
		e.Digest.Truncated = e.Digest.Truncated || sideLeft > 0
		if prev != nil && size >= 0 && readFrom > prev.From {
			// the read began past the entry's start (the 16 MB bound): what it captured
			// before of that part stays
			e.Digest = keepOpening(prev, e.Digest, firstTime(kept), sideFrom, readFrom, c.DigestBytes)
		}
		e.Branch, e.Commit = redact.String(e.Branch), redact.String(e.Commit)
		data, err := e.Render()
		if err != nil {
			return "", err
		}
		tx.Write(Path(e.ID), redact.Bytes(data))
		res.Entry = e
		if c.Also != nil {
			c.Also(tx, kept)
		}
		return fmt.Sprintf("capture(%s): %s session %s in %s", c.Trigger, c.Harness, Short(c.Session), c.Project), nil
	})
	if err != nil {
		return Result{}, err
	}
	if empty {
		return Result{Skipped: "no message in what is new of the transcript"}, nil
	}
	if blank > 0 {
		return Result{EmptyDigest: true, Skipped: fmt.Sprintf("the digest of %d messages holds nothing: no prompt, tool failure, hook feedback or conclusion", blank)}, nil
	}
	if unchanged {
		res.Skipped = "already captured"
	}
	res.Committed = !unchanged
	m.Pending, m.From, m.To, m.SideFrom = res.Entry.ID, res.Entry.From, max(res.Entry.To, m.To), sideFrom
	m.Enqueues++
	m.Last = c.Now.UTC()
	if data, err := json.Marshal(m); err == nil {
		if err := r.WriteState(marksPath(c.Harness, c.Session), data); err != nil {
			return res, fmt.Errorf("save session marks: %w", err)
		}
	}
	return res, nil
}

// keepOpening is the digest of an entry rewritten from a read that began at readFrom, past
// the start of the pending entry prev: prev's notes written before the first message read
// (at), then d's. The digest keeps its opening notes and its end: a session captured at
// 8 MB and again at 20 MB, read from its 4th MB, kept only the end. The notes prev dropped
// to stay in budget, and what lay between prev's end and readFrom, were never read again:
// then the digest says it was cut. Notes carry no offset, so the cut is by time; a note
// without one ends prev's part.
func keepOpening(prev *Entry, d Digest, at, sideFrom time.Time, readFrom int64, budget int) Digest {
	var opening []Note
	for _, n := range prev.Digest.Notes {
		if at.IsZero() || n.At.IsZero() || !n.At.Before(at) {
			break
		}
		if n.Kind == NoteSubagent && !n.At.Before(sideFrom) {
			continue // the subagents' part, read again from sideFrom (subagentsSince), holds it
		}
		opening = append(opening, n)
	}
	d.Truncated = d.Truncated || prev.Digest.Truncated || prev.To < readFrom
	if len(opening) == 0 {
		return d
	}
	for _, n := range opening {
		switch n.Kind {
		case NotePrompt:
			d.Prompts++
		case NoteFailure:
			d.Failures++
		case NoteSubagent:
			d.Subagents++
		}
	}
	var cut bool
	d.Notes, cut = fitNotes(append(opening, d.Notes...), budget)
	d.Truncated = d.Truncated || cut
	return d
}

// pendingEntry is the session's entry still pending in the committed queue: the one its
// marks name, else the newest whose id carries the session's tag (sessionID) and that
// this machine wrote, or nil; never one whose current version another author wrote
// (Capture.Theirs). taken says the marks name an entry that is still there but is another
// author's now. Only the names of queue/ are read, which the commit reads anyway, and the
// entries whose tag matches: a capture costs the same however long the queue.
func pendingEntry(tx *gitstore.Tx, m marks, c Capture) (prev *Entry, taken bool, err error) {
	read := func(id string) *Entry {
		data, err := tx.Read(Path(id))
		if err != nil {
			return nil
		}
		if c.Theirs != nil && c.Theirs(id) {
			taken = taken || id == m.Pending
			return nil
		}
		p, err := Parse(Path(id), data)
		if err != nil || p.ID != id || p.Harness != c.Harness || p.Session != c.Session {
			return nil
		}
		return p
	}
	if m.Pending != "" {
		if p := read(m.Pending); p != nil {
			return p, false, nil
		}
	}
	files, err := tx.Walk(Dir)
	if err != nil {
		return nil, taken, fmt.Errorf("list %s: %w", Dir, err)
	}
	tag := sessionTag(c.Harness, c.Session)
	for i := len(files) - 1; i >= 0; i-- { // in path order: the newest id last
		name, ok := strings.CutPrefix(files[i].Path, Dir+"/")
		id, entry := strings.CutSuffix(name, ".json")
		if !ok || !entry || strings.Contains(id, "/") || id == m.Pending || tagOf(id) != tag {
			continue
		}
		if p := read(id); p != nil && p.Machine == c.Machine {
			return p, taken, nil
		}
	}
	return nil, taken, nil
}

// noRecords says why a read of a transcript gave nothing to capture.
func noRecords(path string, from int64, s *transcript.Session) string {
	what := path
	if from > 0 {
		what = fmt.Sprintf("%s from byte %d on", path, from)
	}
	var why []string
	for k, n := range s.SkipReasons {
		why = append(why, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(why)
	switch {
	case s.Lines == 0 && s.Torn:
		return what + " holds no complete line (binary or sparse?): no session record"
	case s.Lines == 0:
		return what + " is empty: no session record"
	case len(why) > 0:
		return fmt.Sprintf("%s holds no session record of a host reflect reads (%d lines: %s)", what, s.Lines, strings.Join(why, ", "))
	}
	return fmt.Sprintf("%s holds no session record of a host reflect reads (%d lines, none a message)", what, s.Lines)
}

// What a capture reads of the subagents' transcripts, in all (their files newest first) and
// of each (its tail): it runs inside a capture hook's 500 ms. Reading runs at ~600 MB/s here
// (BenchmarkReadClaude), so the whole bound costs ~15 ms.
const (
	maxSubagentRead = 8 << 20
	maxSubagentFile = 4 << 20
)

// readSubagents reads the messages that the subagents of the Claude Code session at path
// wrote at or after since, and says how many files it left out (over the bound, unreadable,
// or past the deadline).
func readSubagents(ctx context.Context, path string, since time.Time) (msgs []transcript.Message, left int) {
	subs, err := transcript.Subagents(path, since.Add(-time.Second))
	if err != nil {
		return nil, 0
	}
	budget := int64(maxSubagentRead)
	for _, sa := range subs {
		from := max(sa.Size-maxSubagentFile, 0)
		if ctx.Err() != nil || budget <= 0 {
			left++
			continue
		}
		budget -= sa.Size - from
		s, err := transcript.ReadFileFrom(sa.Path, from, transcript.HarnessClaude)
		if err != nil {
			left++
			continue
		}
		agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sa.Path), "agent-"), ".jsonl")
		for _, m := range s.Messages {
			if m.Timestamp.Before(since) {
				continue
			}
			m.Sidechain = true
			if m.Agent == "" {
				m.Agent = agent
			}
			msgs = append(msgs, m)
		}
	}
	return msgs, left
}

// subagentsSince is where the subagent messages of an entry start: where the pending
// entry's started when it is rewritten; for a new entry, at the capture before it (or at
// its first session message, if that is earlier), or at its first session message when
// the session was never captured.
func subagentsSince(m marks, pending bool, kept []transcript.Message) time.Time {
	first := firstTime(kept)
	switch {
	case pending && !m.SideFrom.IsZero():
		return m.SideFrom
	case !pending && !m.Last.IsZero() && (first.IsZero() || m.Last.Before(first)):
		return m.Last
	}
	return first
}

// earliest is the earliest of the times that are not zero, or the zero time.
func earliest(ts ...time.Time) time.Time {
	var e time.Time
	for _, t := range ts {
		if !t.IsZero() && (e.IsZero() || t.Before(e)) {
			e = t
		}
	}
	return e
}

// subagentPart is what of side belongs to the entry whose session messages are kept: the
// messages written since since (or the first kept message), less those the session file
// holds too (an inline sidechain record that was also written to an agent file).
func subagentPart(kept, side []transcript.Message, since time.Time) []transcript.Message {
	if len(side) == 0 {
		return nil
	}
	if since.IsZero() {
		since = firstTime(kept)
	}
	ids := make(map[string]bool, len(kept))
	for _, m := range kept {
		if m.ID != "" {
			ids[m.ID] = true
		}
	}
	var out []transcript.Message
	for _, m := range side {
		if !m.Timestamp.Before(since) && (m.ID == "" || !ids[m.ID]) {
			out = append(out, m)
		}
	}
	return out
}

// firstTime is the earliest timestamp of msgs, or the zero time.
func firstTime(msgs []transcript.Message) time.Time {
	var t time.Time
	for _, m := range msgs {
		t = earliest(t, m.Timestamp)
	}
	return t
}
