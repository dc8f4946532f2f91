package queue

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Digest is the condensed transcript an entry carries: what the drain needs to find the
// lessons in a session, without the bulk (file contents, long outputs) and without secrets.
type Digest struct {
	Notes     []Note `json:"notes"`
	Prompts   int    `json:"prompts"`
	Failures  int    `json:"failures"`
	Truncated bool   `json:"truncated,omitempty"` // notes were left out to stay in budget
}

// Note kinds.
const (
	NotePrompt     = "prompt"     // what the user asked or said
	NoteConclusion = "conclusion" // the assistant's last words before the next prompt
	NoteFailure    = "failure"    // a tool call that failed, with its output
	NoteFollowup   = "followup"   // what the assistant did right after a failure
)

// Note is one item of a digest.
type Note struct {
	Kind     string    `json:"kind"`
	Text     string    `json:"text,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	Input    string    `json:"input,omitempty"`
	ExitCode *int      `json:"exit_code,omitempty"`
	At       time.Time `json:"at,omitzero"`
}

// Per-note bounds, in characters; long texts keep their head and tail.
const (
	maxPrompt     = 2000
	maxConclusion = 1500
	maxOutput     = 1200
	maxInput      = 600
)

// BuildDigest condenses msgs into at most budget bytes of JSON, every string redacted.
func BuildDigest(msgs []transcript.Message, budget int) Digest {
	var d Digest
	calls := map[string]transcript.Message{}
	var lastText string // the assistant's latest words, a conclusion once the user speaks
	var lastAt time.Time
	awaitingFollowup := false
	flush := func() {
		if lastText != "" {
			d.Notes = append(d.Notes, Note{Kind: NoteConclusion, Text: redactClip(lastText, maxConclusion), At: lastAt})
			lastText = ""
		}
	}
	for _, m := range msgs {
		if m.Sidechain {
			continue
		}
		switch {
		case m.Role == transcript.RoleUser && m.Kind == transcript.KindText:
			text := strings.TrimSpace(m.Text)
			if text == "" || isHostNoise(text) {
				continue
			}
			flush()
			awaitingFollowup = false
			d.Notes = append(d.Notes, Note{Kind: NotePrompt, Text: redactClip(text, maxPrompt), At: m.Timestamp})
			d.Prompts++
		case m.Role == transcript.RoleAssistant && m.Kind == transcript.KindText:
			text := strings.TrimSpace(m.Text)
			if text == "" {
				continue
			}
			if awaitingFollowup {
				d.Notes = append(d.Notes, Note{Kind: NoteFollowup, Text: redactClip(text, maxConclusion), At: m.Timestamp})
				awaitingFollowup = false
			}
			lastText, lastAt = text, m.Timestamp
		case m.Kind == transcript.KindToolCall:
			calls[m.CallID] = m
			if awaitingFollowup {
				d.Notes = append(d.Notes, Note{Kind: NoteFollowup, Tool: m.ToolName, Input: redactClip(m.ToolInput, maxInput), At: m.Timestamp})
				awaitingFollowup = false
			}
		case m.Kind == transcript.KindToolResult && m.IsError:
			call := calls[m.CallID]
			tool := m.ToolName
			if tool == "" {
				tool = call.ToolName
			}
			d.Notes = append(d.Notes, Note{Kind: NoteFailure, Tool: tool, Input: redactClip(call.ToolInput, maxInput),
				Text: redactClip(m.Text, maxOutput), ExitCode: m.ExitCode, At: m.Timestamp})
			d.Failures++
			awaitingFollowup = true
		}
	}
	flush()
	d.fit(budget)
	return d
}

// isHostNoise recognises user-role records that are the host talking, not the person:
// slash-command wrappers, caveats and interrupted-request markers.
func isHostNoise(s string) bool {
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-stdout>",
		"Caveat: The messages below", "[Request interrupted", "<system-reminder>", "<environment_context>",
		"<user_instructions>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Clip keeps at most n characters of s: the head and the tail of a longer text, with the
// number of characters cut between them.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head, tail := n*2/3, n/3
	return string(r[:head]) + "\n[… " + strconv.Itoa(len(r)-head-tail) + " characters cut …]\n" + string(r[len(r)-tail:])
}

// redactClip redacts s, then clips it to n characters. The other way round, a cut through a
// secret left a piece of it (20 characters of a 40-character token) that no longer had the
// secret's shape and was kept.
func redactClip(s string, n int) string { return Clip(redact.String(s), n) }

// fit drops notes from the middle of the session until the digest's JSON is within budget:
// the opening prompts say what the session was about, the end says how it finished.
func (d *Digest) fit(budget int) {
	size := func(ns []Note) int {
		b, _ := json.Marshal(ns)
		return len(b)
	}
	if size(d.Notes) <= budget-128 {
		return
	}
	d.Truncated = true
	// the opening prompt always stays, clipped to a quarter of the budget if it must be
	first := d.Notes[0]
	for size([]Note{first}) > budget/4 && len(first.Text) > 64 {
		first.Text = Clip(first.Text, utf8.RuneCountInString(first.Text)/2)
	}
	head, tail := []Note{first}, []Note(nil)
	used := size(head)
	for _, n := range d.Notes[1:] {
		s := size([]Note{n})
		if used+s > budget/4 {
			break
		}
		head, used = append(head, n), used+s
	}
	for i := len(d.Notes) - 1; i >= len(head); i-- {
		s := size([]Note{d.Notes[i]})
		if used+s > budget-256 {
			break
		}
		tail, used = append(tail, d.Notes[i]), used+s
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	d.Notes = append(head, tail...)
}
