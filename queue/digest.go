package queue

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Digest is the condensed transcript an entry carries: what the drain needs to find the
// lessons in a session, without the bulk (file contents, long outputs) and without secrets.
// Every field added since the first entries is optional, so an old entry still parses.
type Digest struct {
	Notes    []Note `json:"notes"`
	Prompts  int    `json:"prompts"`
	Failures int    `json:"failures"` // failed tool calls, the subagents' included
	// Subagents counts the subagents whose part of the session is in the notes.
	Subagents int  `json:"subagents,omitempty"`
	Truncated bool `json:"truncated,omitempty"` // notes were left out to stay in budget
}

// Note kinds.
const (
	NotePrompt     = "prompt"     // what the user asked or said
	NoteConclusion = "conclusion" // the assistant's last words before the next prompt
	NoteFailure    = "failure"    // a tool call that failed, with its output
	// NoteFollowup is what the agent did after a failure: its first words (Text), and each of
	// the next calls (up to maxFollowCalls; the first one on the same note as the words)
	// with Tool, Input and, once its result was read, Outcome and ExitCode.
	NoteFollowup = "followup"
	// NoteHook is feedback a hook gave the agent, which states a rule of the project (a Stop
	// hook refusing to end the turn while files are untracked): Tool is the hook (Stop,
	// PostToolUse:Bash), Input its command when known, Text what it said.
	NoteHook = "hook"
	// NoteSubagent opens a subagent's part of the turn: Text is the task its parent gave it.
	// The notes that follow with the same Agent (failures, followups, hooks, its conclusion:
	// the report it gave back) are that part; it never counts as a prompt of the user's.
	NoteSubagent = "subagent"
)

// Outcomes of the call a followup note holds.
const (
	OutcomeOK     = "ok"
	OutcomeFailed = "failed" // the call has its own failure note after the followup
)

// Note is one item of a digest.
type Note struct {
	Kind     string `json:"kind"`
	Text     string `json:"text,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Input    string `json:"input,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Outcome says whether a followup's call worked: OutcomeOK, OutcomeFailed, or "" when
	// its result was not in the transcript read.
	Outcome string `json:"outcome,omitempty"`
	// Agent is the subagent (Claude Code's agentId) whose part of the turn the note is.
	Agent string    `json:"agent,omitempty"`
	At    time.Time `json:"at,omitzero"`
}

// Per-note bounds, in characters; long texts keep their head and tail.
const (
	maxPrompt     = 2000
	maxConclusion = 1500
	maxOutput     = 1200
	maxInput      = 600
	maxHook       = 1200
)

// maxFollowCalls bounds the calls a failure's followup notes hold. Claude Code writes each
// block of a turn as its own line, so "Let me use find instead" and the find that worked are
// two messages: one note per failure held only the words, never the command that fixed it.
// Three calls reach past a Read or an Edit made before the retry.
const maxFollowCalls = 3

// subagentShare is the part of the digest's budget all subagents' parts may take together
// (1/subagentShare); each gets an equal slice of it, its middle dropped first.
const subagentShare = 4

// BuildDigest condenses msgs into at most budget bytes of JSON, every string redacted.
// Sidechain messages (Claude Code subagents, read from the session file or the subagents'
// own files, in their file order after the session's) become each subagent's part of the
// turn it ran in; the rest is the session itself.
func BuildDigest(msgs []transcript.Message, budget int) Digest {
	main := newLane("")
	var parts []*lane
	byAgent := map[string]*lane{}
	prevSide := false
	for _, m := range msgs {
		if !m.Sidechain {
			main.add(m)
			prevSide = false
			continue
		}
		key := m.Agent
		if key == "" && !prevSide {
			key = "\x00" + strconv.Itoa(len(parts)) // an inline sidechain without an agent id: one run, one part
		} else if key == "" {
			key = parts[len(parts)-1].key
		}
		l := byAgent[key]
		if l == nil {
			l = newLane(m.Agent)
			l.key = key
			byAgent[key] = l
			parts = append(parts, l)
		}
		l.add(m)
		prevSide = true
	}
	main.finish()
	d := Digest{Prompts: main.prompts, Failures: main.failures}
	var kept []*lane
	for _, p := range parts {
		p.finish()
		if len(p.notes) == 0 || p.warmup() {
			continue
		}
		kept = append(kept, p)
		d.Failures += p.failures
	}
	slices.SortStableFunc(kept, func(a, b *lane) int { // the files come newest first; no time, last
		if az, bz := a.start.IsZero(), b.start.IsZero(); az != bz {
			if az {
				return 1
			}
			return -1
		}
		return a.start.Compare(b.start)
	})
	d.Subagents = len(kept)
	d.Notes = main.notes
	if len(kept) > 0 {
		share := max(budget/subagentShare/len(kept), 512)
		for _, p := range kept {
			var cut bool
			p.notes, cut = fitNotes(p.notes, share)
			d.Truncated = d.Truncated || cut
		}
		d.Notes = insertParts(main.notes, kept)
	}
	var cut bool
	d.Notes, cut = fitNotes(d.Notes, budget)
	d.Truncated = d.Truncated || cut
	return d
}

// lane builds the notes of the session or of one subagent.
type lane struct {
	key, agent string
	notes      []Note
	calls      map[string]transcript.Message
	follows    map[string]int // call id → the followup note holding the call
	lastText   string         // the assistant's latest words, a conclusion once the user speaks
	lastAt     time.Time
	window     *followWindow
	start      time.Time // the first timestamp of a subagent's messages
	tools      int       // tool calls seen
	prompts    int
	failures   int
}

// followWindow is what is still to be noted after a failure.
type followWindow struct {
	calls int // calls noted so far
	words int // index of the followup note holding only the agent's words, or -1
}

func newLane(agent string) *lane {
	return &lane{agent: agent, calls: map[string]transcript.Message{}, follows: map[string]int{}}
}

func (l *lane) note(n Note) int {
	n.Agent, n.Tool = redact.String(l.agent), redact.String(n.Tool)
	l.notes = append(l.notes, n)
	return len(l.notes) - 1
}

func (l *lane) add(m transcript.Message) {
	if l.start.IsZero() {
		l.start = m.Timestamp
	}
	switch {
	case m.Kind == transcript.KindHook:
		l.hook(m)
	case m.Role == transcript.RoleUser && m.Kind == transcript.KindText:
		text := strings.TrimSpace(m.Text)
		if text == "" || HostNoise(text) {
			return
		}
		l.flush()
		l.window = nil
		kind := NotePrompt
		if l.agent != "" || l.key != "" {
			kind = NoteSubagent // in a subagent's transcript the "user" is its parent agent
		} else {
			l.prompts++
		}
		l.note(Note{Kind: kind, Text: redactClip(text, maxPrompt), At: m.Timestamp})
	case m.Role == transcript.RoleAssistant && m.Kind == transcript.KindText:
		text := strings.TrimSpace(m.Text)
		if text == "" {
			return
		}
		if w := l.window; w != nil && w.calls == 0 && w.words < 0 {
			w.words = l.note(Note{Kind: NoteFollowup, Text: redactClip(text, maxConclusion), At: m.Timestamp})
		}
		l.lastText, l.lastAt = text, m.Timestamp
	case m.Kind == transcript.KindToolCall:
		l.call(m)
	case m.Kind == transcript.KindToolResult:
		l.result(m)
	}
}

// call notes a tool call that follows a failure, on the note of the agent's words when
// they came first.
func (l *lane) call(m transcript.Message) {
	l.tools++
	if m.CallID != "" {
		l.calls[m.CallID] = m
	}
	w := l.window
	if w == nil || w.calls >= maxFollowCalls {
		return
	}
	in := redactClip(m.ToolInput, maxInput)
	i := w.words
	if i >= 0 {
		l.notes[i].Tool, l.notes[i].Input = redact.String(m.ToolName), in
		w.words = -1
	} else {
		i = l.note(Note{Kind: NoteFollowup, Tool: m.ToolName, Input: in, At: m.Timestamp})
	}
	w.calls++
	if m.CallID != "" {
		l.follows[m.CallID] = i
	}
}

// result records whether a followup's call worked, and notes a failure.
func (l *lane) result(m transcript.Message) {
	if i, ok := l.follows[m.CallID]; ok && m.CallID != "" {
		delete(l.follows, m.CallID)
		l.notes[i].Outcome, l.notes[i].ExitCode = OutcomeOK, m.ExitCode
		if m.IsError {
			l.notes[i].Outcome = OutcomeFailed
		}
	}
	if !m.IsError {
		return
	}
	call := l.calls[m.CallID]
	tool := m.ToolName
	if tool == "" {
		tool = call.ToolName
	}
	input := call.ToolInput
	if input == "" {
		input = m.ToolInput // a Codex command whose call lies before the read (transcript's orphan poll)
	}
	l.note(Note{Kind: NoteFailure, Tool: tool, Input: redactClip(input, maxInput),
		Text: redactClip(toolError(m.Text), maxOutput), ExitCode: m.ExitCode, At: m.Timestamp})
	l.failures++
	l.window = &followWindow{words: -1}
}

// hook notes a hook's feedback. A Stop hook's ends the turn the agent thought it had
// finished, so the words before it are a conclusion. Claude Code records one blocking Stop
// hook twice (the text the agent saw, "[command]: reason", and an attachment with the
// reason and the command): the second merges into the first.
func (l *lane) hook(m transcript.Message) {
	text := strings.TrimSpace(m.Text)
	if text == "" {
		return
	}
	if m.ToolName == "Stop" || m.ToolName == "SubagentStop" {
		l.flush()
	}
	text = redactClip(text, maxHook)
	in := redactClip(m.ToolInput, maxInput)
	if k := len(l.notes) - 1; k >= 0 && l.notes[k].Kind == NoteHook && sameHook(l.notes[k], m.ToolName, text) {
		n := &l.notes[k]
		if len(text) > len(n.Text) {
			n.Text = text
		}
		if n.Input == "" {
			n.Input = in
		}
		return
	}
	l.note(Note{Kind: NoteHook, Tool: m.ToolName, Input: in, Text: text, At: m.Timestamp})
}

func sameHook(n Note, tool, text string) bool {
	a, b := strings.Join(strings.Fields(n.Text), " "), strings.Join(strings.Fields(text), " ")
	return (n.Tool == tool || n.Tool == "" || tool == "") && (strings.Contains(a, b) || strings.Contains(b, a))
}

// flush turns the assistant's latest words into a conclusion.
func (l *lane) flush() {
	if l.lastText != "" {
		l.note(Note{Kind: NoteConclusion, Text: redactClip(l.lastText, maxConclusion), At: l.lastAt})
		l.lastText = ""
	}
}

func (l *lane) finish() { l.flush() }

// warmup recognises the agent Claude Code 2.0 started at every session's start to warm its
// cache: the task "Warmup", a greeting, no tool call. It did no work of the session's.
func (l *lane) warmup() bool {
	return l.tools == 0 && len(l.notes) > 0 && l.notes[0].Kind == NoteSubagent && l.notes[0].Text == "Warmup"
}

// insertParts puts each subagent's notes where it started, in the turn it ran in: before
// the first of the session's notes written after that, but never between a failure and its
// followups (the drain pairs a failure with what came right after it). A part without
// timestamps goes last.
func insertParts(main []Note, parts []*lane) []Note {
	at := make([]int, len(parts))
	for k, p := range parts {
		at[k] = len(main)
		if p.start.IsZero() {
			continue
		}
		for i, n := range main {
			if n.At.After(p.start) {
				at[k] = i
				break
			}
		}
		for at[k] > 0 && at[k] < len(main) && main[at[k]].Kind == NoteFollowup {
			at[k]++
		}
	}
	out := make([]Note, 0, len(main))
	emit := func(i int) {
		for k, p := range parts {
			if at[k] == i {
				out = append(out, p.notes...)
			}
		}
	}
	for i, n := range main {
		emit(i)
		out = append(out, n)
	}
	emit(len(main))
	return out
}

// toolError takes off the <tool_use_error> wrapper Claude Code puts around the errors of
// its own tools ("<tool_use_error>File does not exist.</tool_use_error>").
func toolError(s string) string {
	t := strings.TrimSpace(s)
	if in, ok := strings.CutPrefix(t, "<tool_use_error>"); ok {
		if in, ok := strings.CutSuffix(in, "</tool_use_error>"); ok {
			return strings.TrimSpace(in)
		}
	}
	return s
}

// HostNoise recognises user-role records that are the host talking, not the person:
// slash-command wrappers, caveats, interrupted-request markers, injected context. The
// handoff reads prompts by the same rule as the digest.
func HostNoise(s string) bool {
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

// ClipWithin is Clip held to n characters in all, its "[… N characters cut …]" mark included,
// for a text that must fit a budget (recall's block): Clip keeps n characters of s and adds
// the mark past them.
func ClipWithin(s string, n int) string {
	out := Clip(s, n)
	for k := n; utf8.RuneCountInString(out) > n && k > 0; {
		k -= utf8.RuneCountInString(out) - n
		out = Clip(s, max(0, k))
	}
	return out
}

// redactClip redacts s, then clips it to n characters. The other way round, a cut through a
// secret left a piece of it (20 characters of a 40-character token) that no longer had the
// secret's shape and was kept.
func redactClip(s string, n int) string { return Clip(redact.String(s), n) }

// fitNotes drops notes from the middle until their JSON is within budget, and says whether
// it had to: the opening notes say what the session (or a subagent's task) was about, the
// end says how it finished.
func fitNotes(notes []Note, budget int) ([]Note, bool) {
	size := func(ns []Note) int {
		b, _ := json.Marshal(ns)
		return len(b)
	}
	if len(notes) == 0 || size(notes) <= budget-128 {
		return notes, false
	}
	// the opening note always stays, clipped to a quarter of the budget if it must be
	first := notes[0]
	for size([]Note{first}) > budget/4 && len(first.Text) > 64 {
		first.Text = Clip(first.Text, utf8.RuneCountInString(first.Text)/2)
	}
	head, tail := []Note{first}, []Note(nil)
	used := size(head)
	for _, n := range notes[1:] {
		s := size([]Note{n})
		if used+s > budget/4 {
			break
		}
		head, used = append(head, n), used+s
	}
	for i := len(notes) - 1; i >= len(head); i-- {
		s := size([]Note{notes[i]})
		if used+s > budget-256 {
			break
		}
		tail, used = append(tail, notes[i]), used+s
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	return append(head, tail...), true
}
