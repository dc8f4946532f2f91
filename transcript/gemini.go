package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Gemini CLI session (more-hosts.md §E.7) is, since v0.39, a JSON-lines file
// ~/.gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl: a metadata line
// ({sessionId, projectHash, startTime, lastUpdated, kind?}), then one line per message
// ({id, timestamp, type: user|gemini|info|error|warning, content, thoughts?, toolCalls?}),
// with patches among them: {"$set": {…}} (metadata; "messages" replaces the whole list) and
// {"$rewindTo": id} (that message and every one after it are gone). A message is written
// again, whole, with the same id each time it changes (its tokens, its tool calls, their
// results): the last version wins. Before v0.39 the session was one pretty JSON file
// session-….json holding {sessionId, …, messages: […]}; it is read by readGeminiJSON.
//
// Rules this reader follows:
//   - Messages come out in the order they were first written (Gemini's loader keeps a
//     message written again in its place: more-hosts.md §E.7 "dedupe by id, last one wins,
//     keep first-seen order"), and each carries the offset of its latest version's line, so
//     a capture that resumes at an offset takes a message again when it changed since (its
//     tool results arrived). The history import reads a changed Gemini file again whole (a
//     rewind or a $set can change what came before) and stores again only the messages that
//     changed, which a message kept in its place makes few (history/sums.go).
//   - A gemini message gives its thoughts (KindThinking), its text, then each tool call and,
//     once it has one, its result. A result fails when the call's status is error or
//     cancelled, or when a shell call's output says "Exit Code: N" with N ≠ 0 (Gemini's
//     shell tool reports a failed command as a successful call whose output carries the
//     exit code [inferred from the shell tool's output format: both readings are tested]).
//   - info, error and warning messages are the CLI's own notices: RoleSystem. A user
//     message that is a <hook_context> block (a SessionStart hook's context, added as a user
//     turn) is RoleSystem too.
//   - The session's directory is not in the file: it is the slug folder's .project_root, or
//     the folder's entry in ~/.gemini/projects.json.

type geminiParser struct {
	s      *Session
	base   int64
	order  []string // ids, in the order they were first written
	msgs   map[string]geminiMsg
	anon   int
	subdir bool
}

func newGeminiParser(s *Session, base int64, h hints) *geminiParser {
	return &geminiParser{s: s, base: base, msgs: map[string]geminiMsg{}, subdir: h.sidechain}
}

// geminiMsg is the latest version of a message: it is converted once, when the read ends.
// Gemini writes a message again each time it changes (three or four times a turn), and
// converting every version took most of a read of a 2,000-message session (CPU profile of
// history's BenchmarkImportGeminiTurn).
type geminiMsg struct {
	raw []byte // its JSON object, a copy of its own
	off int64
}

func (p *geminiParser) line(raw []byte, off int64) string {
	f, skip := lineBody(raw)
	if f == nil {
		return skip
	}
	switch {
	case f.has("$rewindTo"):
		p.rewind(f.str("$rewindTo"))
		return ""
	case f.has("$set"):
		set := f.obj("$set")
		if set == nil {
			return skipNoType
		}
		p.meta(set)
		if set.has("messages") {
			p.order, p.msgs = nil, map[string]geminiMsg{}
			for _, m := range set.arr("messages") {
				if mf := objectOf(m); mf != nil {
					p.message(mf, bytes.Clone(m), off)
				}
			}
		}
		return ""
	case f.has("type"):
		p.message(f, bytes.Clone(raw), off)
		return ""
	case f.has("sessionId"):
		p.meta(f)
		return ""
	}
	return skipNoType
}

// meta takes the session fields of a metadata line or patch.
func (p *geminiParser) meta(f fields) {
	if id := f.str("sessionId"); id != "" && p.s.ID == "" {
		p.s.ID = id
	}
	p.s.stamp(f.str("startTime"))
	p.s.stamp(f.str("lastUpdated"))
	if f.str("kind") == "subagent" {
		p.subdir = true
	}
	if p.s.CWD == "" {
		for _, d := range f.arr("directories") {
			if dir, ok := strOf(d); ok && filepath.IsAbs(dir) {
				p.s.CWD = dir
				break
			}
		}
	}
}

// rewind drops the message id and every message after it. An id this read has not seen
// lies before the offset it started at (or is unknown): in a read that resumed, everything
// it holds came after it.
func (p *geminiParser) rewind(id string) {
	// from the end: a rewind goes back a few messages, rarely far
	for i := len(p.order) - 1; i >= 0; i-- {
		if p.order[i] == id {
			for _, d := range p.order[i:] {
				delete(p.msgs, d)
			}
			p.order = p.order[:i]
			return
		}
	}
	if p.base > 0 {
		p.order, p.msgs = nil, map[string]geminiMsg{}
	}
}

// message records the latest version of one message: raw, its object (not shared).
func (p *geminiParser) message(f fields, raw []byte, off int64) {
	id := f.str("id")
	if id == "" {
		p.anon++
		id = fmt.Sprintf("\x00anon-%d", p.anon)
	}
	if _, ok := p.msgs[id]; !ok {
		p.order = append(p.order, id)
	}
	p.msgs[id] = geminiMsg{raw: raw, off: off}
}

func (p *geminiParser) convert(f fields, id string, off int64) []Message {
	ts := p.s.stamp(f.str("timestamp"))
	base := Message{Timestamp: ts, ID: f.str("id"), Offset: off, Sidechain: p.subdir}
	if m := f.str("model"); m != "" {
		p.s.Model = m
	}
	var out []Message
	add := func(m Message) { out = append(out, m) }
	switch f.str("type") {
	case "user":
		text := partsText(f.raw("displayContent"))
		if strings.TrimSpace(text) == "" {
			text = partsText(f.raw("content"))
		}
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m := base
		m.Role, m.Kind, m.Text = RoleUser, KindText, text
		if strings.HasPrefix(strings.TrimSpace(text), "<hook_context>") {
			m.Role = RoleSystem
		}
		add(m)
	case "gemini":
		for _, t := range f.arr("thoughts") {
			if tf := objectOf(t); tf != nil {
				text := strings.TrimSpace(strings.TrimSpace(tf.str("subject")) + "\n" + tf.str("description"))
				if text != "" {
					m := base
					m.Role, m.Kind, m.Text = RoleAssistant, KindThinking, text
					add(m)
				}
			}
		}
		if text := partsText(f.raw("content")); strings.TrimSpace(text) != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleAssistant, KindText, text
			add(m)
		}
		for i, c := range f.arr("toolCalls") {
			cf := objectOf(c)
			if cf == nil {
				continue
			}
			callID := cf.str("id")
			if callID == "" {
				callID = fmt.Sprintf("%s#%d", id, i)
			}
			name := cf.str("name")
			call := base
			call.Role, call.Kind, call.ToolName, call.CallID = RoleAssistant, KindToolCall, name, callID
			call.ToolInput = toolInputOf(cf.raw("args"))
			add(call)
			if r, ok := geminiResult(cf, base); ok {
				r.ToolName, r.CallID = name, callID
				add(r)
			}
		}
	case "info", "error", "warning":
		if text := partsText(f.raw("content")); strings.TrimSpace(text) != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleSystem, KindText, text
			add(m)
		}
	}
	return out
}

// geminiExitCode finds the exit code Gemini's shell tool writes into its output: the first
// line that is "Exit Code: N" (spaces after it allowed). It was the regular expression
// `(?m)^Exit Code: (-?\d+)\s*$`, which took 19 ms of the 33 ms that reading a 2,000-message
// session took (CPU profile of history's BenchmarkImportGeminiTurn); this scan finds the
// same line (TestGeminiExitCode holds it to the expression).
func geminiExitCode(text string) (int, bool) {
	const key = "Exit Code: "
	for from := 0; ; {
		i := strings.Index(text[from:], key)
		if i < 0 {
			return 0, false
		}
		i += from
		from = i + len(key)
		if i > 0 && text[i-1] != '\n' {
			continue
		}
		j := from
		if j < len(text) && text[j] == '-' {
			j++
		}
		d := j
		for j < len(text) && '0' <= text[j] && text[j] <= '9' {
			j++
		}
		if j == d {
			continue
		}
		k := j
		for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\f') {
			k++
		}
		if k < len(text) && text[k] != '\n' {
			continue
		}
		n, err := strconv.Atoi(text[from:j])
		if err != nil {
			continue
		}
		return n, true
	}
}

// geminiResult is a tool call's result, once the call has one.
func geminiResult(cf fields, base Message) (Message, bool) {
	status := cf.str("status")
	text := geminiResultText(cf.raw("result"))
	if text == "" {
		text = cf.str("resultDisplay")
	}
	switch status {
	case "success", "error", "cancelled":
	default:
		if text == "" {
			return Message{}, false // validating, scheduled, executing, awaiting approval
		}
	}
	m := base
	m.Role, m.Kind, m.Text = RoleTool, KindToolResult, text
	if status == "error" || status == "cancelled" {
		m.IsError = true
		if m.Text == "" {
			m.Text = "tool call " + status
		}
	}
	if n, ok := geminiExitCode(text); ok {
		m.ExitCode = intPtr(n)
		if n != 0 {
			m.IsError = true
		}
	}
	return m, true
}

// geminiResultText is the text of a tool call's result: its parts' text, the output or error
// of each functionResponse.
func geminiResultText(raw json.RawMessage) string {
	parts := arrayOf(raw)
	if parts == nil {
		if o := objectOf(raw); o != nil {
			parts = []json.RawMessage{raw}
		} else {
			s, _ := strOf(raw)
			return s
		}
	}
	var out []string
	for _, part := range parts {
		pf := objectOf(part)
		if pf == nil {
			if s, ok := strOf(part); ok && s != "" {
				out = append(out, s)
			}
			continue
		}
		if t := pf.str("text"); t != "" {
			out = append(out, t)
		}
		if fr := pf.obj("functionResponse"); fr != nil {
			resp := fr.obj("response")
			for _, k := range []string{"output", "error", "content"} {
				if t := resp.str(k); t != "" {
					out = append(out, t)
					break
				}
			}
		}
	}
	return strings.Join(out, "\n")
}

func (p *geminiParser) finish() {
	for _, id := range p.order {
		m := p.msgs[id]
		if f := objectOf(m.raw); f != nil {
			for _, msg := range p.convert(f, id, m.off) {
				p.s.add(msg)
			}
		}
	}
}

// maxGeminiJSON bounds the single-JSON session file of Gemini CLI before v0.39, which is read
// whole: the same bound as one line of a JSON-lines transcript.
const maxGeminiJSON = MaxLine

// readGeminiJSON reads a Gemini CLI session of the format before v0.39: one JSON document
// {sessionId, projectHash, startTime, lastUpdated, messages: […]}, rewritten whole as the
// session goes on. Each message carries the byte offset of its element in the array, so a
// capture that resumed at an earlier size takes only the messages after it. A file over
// maxGeminiJSON, or one that does not parse, yields a skipped "line" and no message.
func readGeminiJSON(f *os.File, path string, offset int64, hi hints) (*Session, error) {
	s := &Session{Harness: HarnessGemini, ID: hi.id}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	size := fi.Size()
	s.End = max(offset, 0)
	skip := func(reason string) (*Session, error) {
		s.Lines, s.Skipped, s.SkipReasons, s.End, s.FirstSkip = 1, 1, map[string]int{reason: 1}, size, 1
		return s, nil
	}
	if size > maxGeminiJSON {
		return skip(SkipLongLine)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGeminiJSON+1))
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return s, nil
	}
	if !json.Valid(data) {
		// being rewritten, or not a session: nothing is taken, and End stays where it was
		s.Torn = true
		return s, nil
	}
	top := objectOf(data)
	if top == nil {
		return skip(skipNotObject)
	}
	s.Lines = 1
	p := newGeminiParser(s, 0, hi)
	p.meta(top)
	for _, el := range elementOffsets(data, "messages") {
		if el.off < offset {
			continue
		}
		if mf := objectOf(el.raw); mf != nil {
			p.message(mf, el.raw, el.off)
		}
	}
	p.finish()
	s.End = int64(len(data))
	geminiCWD(s, path)
	return s, nil
}

type element struct {
	off int64
	raw json.RawMessage
}

// elementOffsets returns the elements of the top-level array key of a JSON object, each
// with its byte offset in data.
func elementOffsets(data []byte, key string) []element {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		if k != key {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var out []element
		for dec.More() {
			off := dec.InputOffset()
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return out
			}
			// InputOffset is before the separator and spaces that precede the element
			for off < int64(len(data)) && strings.IndexByte(", \t\r\n", data[off]) >= 0 {
				off++
			}
			out = append(out, element{off: off, raw: raw})
		}
		return out
	}
	return nil
}

// geminiCWD fills the session's directory from where Gemini CLI keeps the file: the slug
// folder ~/.gemini/tmp/<slug>/ of its chats/ folder names its project root in .project_root,
// and ~/.gemini/projects.json maps roots to slugs.
func geminiCWD(s *Session, path string) {
	if s.CWD != "" {
		return
	}
	chats := filepath.Dir(path)
	if filepath.Base(chats) != "chats" {
		chats = filepath.Dir(chats) // a subagent's chats/<parent>/<id>.jsonl
		if filepath.Base(chats) != "chats" {
			return
		}
	}
	slugDir := filepath.Dir(chats)
	if data, err := readSmall(filepath.Join(slugDir, ".project_root")); err == nil {
		if root := strings.TrimSpace(string(data)); filepath.IsAbs(root) {
			s.CWD = root
			return
		}
	}
	tmp := filepath.Dir(slugDir)
	if filepath.Base(tmp) != "tmp" {
		return
	}
	data, err := readSmall(filepath.Join(filepath.Dir(tmp), "projects.json"))
	if err != nil {
		return
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &reg) != nil {
		return
	}
	slug := filepath.Base(slugDir)
	for root, sl := range reg.Projects {
		if sl == slug && filepath.IsAbs(root) {
			s.CWD = root
			return
		}
	}
}

// readSmall reads a small metadata file (at most 1 MB).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
