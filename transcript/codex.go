package transcript

import (
	"strconv"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/internal/shellquote"
)

// A Codex rollout (§D) is either the envelope format, one {timestamp,type,payload} object
// per line, or the pre-envelope format of mid-2025: a header {id,timestamp,instructions,git}
// on line 1, {"record_type":"state"} markers, and bare ResponseItems without timestamps.
// Both are read line by line by the same code, so a read may start anywhere.
//
// The double-counting rule. Codex writes every prompt and every reply twice: as a
// response_item message (what the model saw) and as an event_msg user_message or
// agent_message (what the UI showed), in either order (the sample has agent_message just
// before its response_item). codex-rs/rollout/src/policy.rs persists ResponseItem::Message
// in every version, and the paginated history mode of 0.148+ stops persisting the events
// altogether, so response_item messages are the record and the user_message,
// agent_message and agent_reasoning events are dropped. The one exception is defensive: a
// read that meets no response_item message at all keeps the event messages instead.
// event_msg is otherwise read only for what no response_item carries: exec_command_end
// (exit code), patch_apply_end and mcp_tool_call_end (failure) mark the result of their
// call_id, whichever comes first; error events become RoleSystem messages.
//
// Long-running commands (unified exec, Codex 0.12x and later). An exec_command that is still
// running when its yield_time_ms ends answers "Process running with session ID N", and the
// agent polls it with write_stdin {"session_id":N,"chars":""} until an answer says "Process
// exited with code C". Read call by call, one failing build was two failures (one whose
// output was "Process running…", one whose command was the poll's JSON) and no fix could
// pair with it. So a polled command is folded into one logical call: the exec_command call
// with its command line, and one result holding the outputs of every answer (header lines
// dropped, in order; the characters a poll wrote to the process noted as "[stdin: …]") and
// the final exit code. The write_stdin calls and their results yield no message of their
// own. A poll whose command started before the offset a read began at (ReadFileFrom) is an
// orphan: it yields a result of its own, ToolName "exec_command", with the process id in
// Process, and the command line and call id when the read holds the command's
// exec_command_end (which names both); later polls of it fold into that result.
//
// A Stop hook that blocks the end of a turn sends its reason back as a user-role message of
// <hook_prompt hook_run_id="…">…</hook_prompt> fragments: KindHook, not a prompt.
//
// Reasoning that is only encrypted_content yields nothing; a plain summary or content
// yields a thinking message. User-role messages that Codex injects (AGENTS.md,
// <environment_context>, <turn_aborted>, … — its own is_contextual_user_message list) are
// RoleSystem, like developer messages.

// codexItem is the union of the fields this reader uses from payloads, from the
// pre-envelope header and from bare pre-envelope items.
type codexItem struct {
	typ, id, timestamp, cwd, version, branch, model, remote string
	role                                                    string
	parts                                                   []codexPart // message and reasoning content
	summary                                                 string
	name, namespace, arguments, callID, input               string
	output                                                  string
	success                                                 *bool // output {success} or patch_apply_end
	action                                                  string
	message                                                 string
	exitCode                                                *int
	mcpFailed                                               bool
	processID                                               string   // exec_command_end
	command                                                 []string // exec_command_end
}

type codexPart struct{ typ, text string }

// codexRecord is one line: the envelope, and the item (its payload, or the line itself in
// the pre-envelope format).
type codexRecord struct {
	timestamp, typ, recordType string
	hasPayload                 bool
	payload                    codexItem
	bare                       codexItem
	typeErr                    bool
}

func (r *codexRecord) parse(s *scanner) {
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		ok := true
		switch string(k) {
		case "timestamp":
			r.timestamp, ok = s.str()
		case "type":
			r.typ, ok = s.str()
		case "record_type":
			r.recordType, ok = s.str()
		case "payload":
			switch c := s.peek(); c {
			case '{':
				r.hasPayload = true
				ok = r.payload.parse(s)
			default:
				s.skip()
				ok = c == 'n'
			}
		default:
			ok = r.bare.field(s, k)
		}
		r.typeErr = r.typeErr || !ok
	}
}

func (c *codexItem) parse(s *scanner) bool {
	ok := true
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		if string(k) == "type" {
			var fine bool
			c.typ, fine = s.str()
			ok = ok && fine
			continue
		}
		ok = c.field(s, k) && ok
	}
	return ok
}

// field consumes the value of key k, keeping it when the item uses it. It reports false
// when the value has a type the field cannot have.
func (c *codexItem) field(s *scanner, k []byte) bool {
	ok := true
	switch string(k) {
	case "id":
		c.id, ok = s.str()
	case "timestamp":
		c.timestamp, ok = s.str()
	case "cwd":
		c.cwd, ok = s.str()
	case "cli_version":
		c.version, ok = s.str()
	case "model":
		c.model, ok = s.str()
	case "git":
		if s.peek() != '{' {
			s.skip()
			break
		}
		it := s.object()
		for k, more := it.next(); more; k, more = it.next() {
			switch string(k) {
			case "branch":
				c.branch, _ = s.str()
			case "repository_url":
				c.remote, _ = s.str()
			default:
				s.skip()
			}
		}
	case "role":
		c.role, ok = s.str()
	case "content":
		switch s.peek() {
		case '[':
			it := s.array()
			for it.next() {
				typ, text := s.part()
				c.parts = append(c.parts, codexPart{typ, text})
			}
		case 'n':
			s.skip()
		default:
			s.skip()
			ok = false
		}
	case "summary":
		c.summary, _ = s.text() // a string ("auto") on turn_context
	case "name":
		c.name, ok = s.str()
	case "namespace":
		c.namespace, ok = s.str()
	case "arguments":
		if s.peek() == '"' {
			c.arguments, ok = s.str()
		} else {
			c.arguments = s.compact()
		}
	case "call_id":
		c.callID, ok = s.str()
	case "input":
		c.input, ok = s.str()
	case "output":
		ok = c.parseOutput(s)
	case "action":
		c.action = s.compact()
	case "message":
		c.message, _ = s.str()
	case "exit_code":
		c.exitCode, ok = s.integer()
	case "success":
		c.success, ok = s.optBool()
	case "result":
		c.mcpFailed = mcpFailed(s)
	case "process_id":
		if s.peek() == '"' {
			c.processID, ok = s.str()
		} else {
			c.processID = string(s.raw())
		}
	case "command":
		c.command = s.argv()
	default:
		s.skip()
	}
	return ok
}

// parseOutput reads a function_call_output's output in any form: a string, an array of
// content items, or {content|content_items, success}.
func (c *codexItem) parseOutput(s *scanner) bool {
	switch s.peek() {
	case '"', '[', 'n':
		var ok bool
		c.output, ok = s.text()
		return ok
	case '{':
		var items string
		it := s.object()
		for k, more := it.next(); more; k, more = it.next() {
			switch string(k) {
			case "content":
				c.output, _ = s.text()
			case "content_items":
				items, _ = s.text()
			case "success":
				c.success, _ = s.optBool()
			default:
				s.skip()
			}
		}
		if c.output == "" {
			c.output = items
		}
		return true
	}
	s.skip()
	return false
}

// mcpFailed consumes mcp_tool_call_end's result: {"Ok":{…,"isError":bool}} or {"Err":…}.
func mcpFailed(s *scanner) bool {
	if s.peek() != '{' {
		s.skip()
		return false
	}
	failed := false
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "Err":
			failed = failed || s.peek() != 'n'
			s.skip()
		case "Ok":
			if s.peek() != '{' {
				s.skip()
				continue
			}
			ok := s.object()
			for k, more := ok.next(); more; k, more = ok.next() {
				if string(k) == "isError" {
					b, _ := s.boolean()
					failed = failed || b
				} else {
					s.skip()
				}
			}
		default:
			s.skip()
		}
	}
	return failed
}

// codexEnd is what an end event says about a call's result.
type codexEnd struct {
	exit   *int
	failed bool
}

type codexParser struct {
	s       *Session
	hints   hints
	calls   map[string]string   // call_id → tool name
	results map[string]int      // call_id → index of its result in s.Messages
	pending map[string]codexEnd // end events read before their result

	// The fold of polled commands (see above): procs holds the logical result of each
	// process id seen running, polls the process each write_stdin call polls, and ends the
	// exec_command_end events whose result is not in this read, by process id, for an
	// orphan poll.
	procs map[string]*codexProc
	polls map[string]codexPoll
	ends  map[string]codexProcEnd

	// sawItem is set by the first response_item message; until then event messages are
	// kept in events, for a read that has no response_item messages at all.
	sawItem bool
	events  []Message

	cwdMeta, cwdTurn, cwdEnv string

	rec   codexRecord
	parts [2][]codexPart // reused content slices
}

func newCodexParser(s *Session, h hints) *codexParser {
	return &codexParser{
		s: s, hints: h,
		calls:   make(map[string]string),
		results: make(map[string]int),
		pending: make(map[string]codexEnd),
		procs:   make(map[string]*codexProc),
		polls:   make(map[string]codexPoll),
		ends:    make(map[string]codexProcEnd),
	}
}

// codexProc is a command that answered "Process running with session ID N".
type codexProc struct {
	result int  // index in s.Messages of its logical result
	folded bool // the result's Text holds output bodies only (its header lines are gone)
}

// codexPoll is a write_stdin call: the process it polls and what it wrote to it.
type codexPoll struct{ proc, chars string }

// codexProcEnd is what an exec_command_end says about a process.
type codexProcEnd struct {
	callID, command string
	exit            *int
}

func (p *codexParser) line(raw []byte, off int64) string {
	sc := scanner{b: raw}
	if sc.peek() != '{' {
		return notObject(raw)
	}
	r := &p.rec
	*r = codexRecord{}
	r.payload.parts, r.bare.parts = p.parts[0][:0], p.parts[1][:0]
	r.parse(&sc)
	p.parts[0], p.parts[1] = r.payload.parts, r.bare.parts
	if !sc.atEnd() {
		return skipMalformed
	}
	return p.record(r, off)
}

func (p *codexParser) record(r *codexRecord, off int64) string {
	ts := p.s.stamp(r.timestamp)
	before := len(p.s.Messages)
	var kind string
	switch {
	case r.hasPayload && r.typ != "":
		kind = r.typ
		it := &r.payload
		switch r.typ {
		case "session_meta":
			p.meta(it, it.timestamp)
		case "turn_context":
			if it.cwd != "" {
				p.cwdTurn = it.cwd
			}
			if it.model != "" {
				p.s.Model = it.model
			}
		case "response_item":
			kind = it.typ
			p.item(it, ts, off)
		case "event_msg":
			kind = it.typ
			p.event(it, ts, off)
		case "compacted":
			p.system(it.message, ts, off)
		}
	case r.typ == "" && r.recordType != "":
		return "" // a pre-envelope state marker
	case r.typ == "" && r.bare.id != "" && r.timestamp != "":
		p.meta(&r.bare, r.timestamp) // the pre-envelope header
	case r.typ == "":
		return skipNoType
	case codexEnvelopeTypes[r.typ] && r.typ != "compacted":
		return "missing payload"
	default:
		kind = r.typ
		r.bare.typ = r.typ
		p.item(&r.bare, ts, off)
	}
	if r.typeErr && len(p.s.Messages) == before && codexProducing[kind] {
		return "invalid " + kind + " record"
	}
	return ""
}

// codexProducing are the item and event types that should yield a message.
var codexProducing = map[string]bool{
	"message": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true,
}

func (p *codexParser) meta(it *codexItem, ts string) {
	if p.s.ID == "" {
		p.s.ID = it.id
	}
	p.s.stamp(ts)
	if it.cwd != "" && p.cwdMeta == "" {
		p.cwdMeta = it.cwd
	}
	if it.branch != "" {
		p.s.Branch = it.branch
	}
	if it.remote != "" {
		p.s.Remote = it.remote
	}
	if it.version != "" {
		p.s.Version = it.version
	}
	if it.model != "" {
		p.s.Model = it.model
	}
}

func (p *codexParser) item(it *codexItem, ts time.Time, off int64) {
	base := Message{Timestamp: ts, ID: it.id, Offset: off}
	switch it.typ {
	case "message":
		text := joinParts(it.parts)
		if text == "" {
			return
		}
		m := base
		m.Kind, m.Text = KindText, text
		switch it.role {
		case "assistant":
			m.Role = RoleAssistant
		case "user":
			m.Role = RoleUser
			if said, ok := codexHookPrompt(it.parts); ok {
				m.Role, m.Kind, m.ToolName, m.Text = RoleSystem, KindHook, "Stop", said
			} else if codexContextual(it.parts) {
				m.Role = RoleSystem
				if cwd := envCWD(text); cwd != "" {
					p.cwdEnv = cwd
				}
			}
		default: // developer, system
			m.Role = RoleSystem
		}
		p.sawItem, p.events = true, nil
		p.s.add(m)
	case "reasoning":
		text := joinParts(it.parts)
		if text == "" {
			text = it.summary
		}
		if text == "" {
			return // encrypted_content only
		}
		m := base
		m.Role, m.Kind, m.Text = RoleAssistant, KindThinking, text
		p.s.add(m)
	case "function_call":
		name := it.name
		if it.namespace != "" && !strings.HasPrefix(name, it.namespace) {
			name = it.namespace + name
		}
		if name == "write_stdin" && it.callID != "" {
			if proc, chars, ok := pollArgs(it.arguments); ok {
				p.polls[it.callID] = codexPoll{proc, chars}
				return
			}
		}
		p.call(base, name, codexToolInput(name, it.arguments), it.callID)
	case "custom_tool_call":
		p.call(base, it.name, it.input, it.callID)
	case "local_shell_call":
		id := it.callID
		if id == "" {
			id = it.id
		}
		input := it.action
		if cmd := commandOf(it.action); cmd != "" {
			input = cmd
		}
		p.call(base, "local_shell", input, id)
	case "web_search_call":
		p.call(base, "web_search", it.action, "")
	case "function_call_output", "custom_tool_call_output":
		p.result(base, it.callID, it.output, it.success)
	case "compacted":
		p.system(it.message, base.Timestamp, off)
	}
}

func (p *codexParser) event(it *codexItem, ts time.Time, off int64) {
	switch it.typ {
	case "exec_command_end":
		p.end(it.callID, codexEnd{exit: it.exitCode})
		if _, ok := p.results[it.callID]; !ok && it.processID != "" {
			p.procEnd(it.processID, codexProcEnd{callID: it.callID, command: shellLine(it.command), exit: it.exitCode})
		}
	case "patch_apply_end":
		p.end(it.callID, codexEnd{failed: it.success != nil && !*it.success})
	case "mcp_tool_call_end":
		p.end(it.callID, codexEnd{failed: it.mcpFailed})
	case "error":
		p.system(it.message, ts, off)
	case "user_message", "agent_message":
		if p.sawItem || it.message == "" {
			return
		}
		m := Message{Role: RoleUser, Kind: KindText, Text: it.message, Timestamp: ts, Offset: off}
		if it.typ == "agent_message" {
			m.Role = RoleAssistant
		}
		p.events = append(p.events, m)
	}
}

func (p *codexParser) system(text string, ts time.Time, off int64) {
	if text == "" {
		return
	}
	p.s.add(Message{Role: RoleSystem, Kind: KindText, Text: text, Timestamp: ts, Offset: off})
}

func (p *codexParser) call(base Message, name, input, callID string) {
	if name == "" && input == "" && callID == "" {
		return
	}
	m := base
	m.Role, m.Kind = RoleAssistant, KindToolCall
	m.ToolName, m.ToolInput, m.CallID = name, input, callID
	if callID != "" {
		p.calls[callID] = name
	}
	p.s.add(m)
}

func (p *codexParser) result(base Message, callID, output string, success *bool) {
	if poll, ok := p.polls[callID]; ok {
		delete(p.polls, callID)
		p.pollResult(base, poll, output)
		return
	}
	m := base
	m.Role, m.Kind, m.CallID = RoleTool, KindToolResult, callID
	m.ToolName = p.calls[callID]
	m.Text, m.ExitCode = splitOutput(output)
	if m.ExitCode != nil && *m.ExitCode != 0 {
		m.IsError = true
	}
	if success != nil && !*success {
		m.IsError = true
	}
	if callID != "" {
		if e, ok := p.pending[callID]; ok {
			e.apply(&m)
			delete(p.pending, callID)
		}
		p.results[callID] = len(p.s.Messages)
	}
	if proc := runningProcess(output); proc != "" {
		m.Process = proc
		p.procs[proc] = &codexProc{result: len(p.s.Messages)}
	}
	p.s.add(m)
}

// pollResult folds the answer to a write_stdin poll into the result of the command it
// polls, or makes it an orphan's result when that command is not in this read.
func (p *codexParser) pollResult(base Message, poll codexPoll, output string) {
	body, exit := unifiedBody(output)
	if poll.chars != "" {
		body = "[stdin: " + strconv.Quote(poll.chars) + "]\n" + body
	}
	pr := p.procs[poll.proc]
	if pr == nil {
		m := base
		m.Role, m.Kind, m.ToolName, m.Process = RoleTool, KindToolResult, "exec_command", poll.proc
		m.Text = body
		if e, ok := p.ends[poll.proc]; ok {
			m.CallID, m.ToolInput = e.callID, e.command
			codexEnd{exit: e.exit}.apply(&m)
		}
		p.procs[poll.proc] = &codexProc{result: len(p.s.Messages), folded: true}
		if exit != nil {
			codexEnd{exit: exit}.apply(&m)
		}
		p.s.add(m)
		return
	}
	r := &p.s.Messages[pr.result]
	if !pr.folded {
		r.Text, _ = unifiedBody(r.Text)
		pr.folded = true
	}
	r.Text = joinOutput(r.Text, body)
	if exit != nil {
		r.ExitCode = intPtr(*exit)
		r.IsError = *exit != 0
	}
}

// procEnd applies an exec_command_end whose call is not in this read to the orphan result
// of its process, or keeps it for a poll still to come.
func (p *codexParser) procEnd(proc string, e codexProcEnd) {
	pr := p.procs[proc]
	if pr == nil {
		p.ends[proc] = e
		return
	}
	m := &p.s.Messages[pr.result]
	if m.CallID == "" {
		m.CallID = e.callID
	}
	if m.ToolInput == "" {
		m.ToolInput = e.command
	}
	codexEnd{exit: e.exit}.apply(m)
}

// pollArgs reads write_stdin's arguments: the process it polls and the characters it
// writes ("" for a plain poll).
func pollArgs(args string) (proc, chars string, ok bool) {
	s := scanner{b: []byte(args)}
	if s.peek() != '{' {
		return "", "", false
	}
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "session_id":
			switch c := s.peek(); {
			case c == '"':
				proc, _ = s.str()
			case c == '-' || '0' <= c && c <= '9':
				proc = string(s.number())
			default:
				s.skip()
			}
		case "chars":
			chars, _ = s.str()
		default:
			s.skip()
		}
	}
	return proc, chars, s.atEnd() && proc != ""
}

// runningProcess is the process id of a unified exec output that says the command is
// still running, or "".
func runningProcess(text string) string {
	const running = "Process running with session ID "
	for i := 0; i < 8 && text != ""; i++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimRight(line, "\r")
		if line == "Output:" {
			return ""
		}
		if id, ok := strings.CutPrefix(line, running); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}

// unifiedBody splits a unified exec output into what the command printed (what follows
// the "Output:" header line) and the exit code its header gives. A text without that
// header (an error of the tool itself: "write_stdin failed: …") is all body.
func unifiedBody(text string) (string, *int) {
	exit := headerExitCode(text)
	rest := text
	for i := 0; i < 8 && rest != ""; i++ {
		line, after, found := strings.Cut(rest, "\n")
		if strings.TrimRight(line, "\r") == "Output:" {
			return after, exit
		}
		if !found {
			break
		}
		rest = after
	}
	return text, exit
}

// joinOutput appends a poll's output to what the command printed before.
func joinOutput(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "" || strings.HasSuffix(a, "\n"):
		return a + b
	}
	return a + "\n" + b
}

func (p *codexParser) end(callID string, e codexEnd) {
	if callID == "" || (e.exit == nil && !e.failed) {
		return
	}
	if i, ok := p.results[callID]; ok {
		e.apply(&p.s.Messages[i])
		return
	}
	prev := p.pending[callID]
	if e.exit == nil {
		e.exit = prev.exit
	}
	e.failed = e.failed || prev.failed
	p.pending[callID] = e
}

// apply marks a result with what its end event said. The event's exit code wins over one
// read from the output text: it is the host's own record of the process.
func (e codexEnd) apply(m *Message) {
	if e.exit != nil {
		m.ExitCode = intPtr(*e.exit)
		if *e.exit != 0 {
			m.IsError = true
		}
	}
	if e.failed {
		m.IsError = true
	}
}

func (p *codexParser) finish() {
	s := p.s
	switch {
	case p.cwdTurn != "":
		s.CWD = p.cwdTurn
	case p.cwdMeta != "":
		s.CWD = p.cwdMeta
	default:
		s.CWD = p.cwdEnv
	}
	if s.ID == "" {
		s.ID = p.hints.id
	}
	if !p.sawItem && len(p.events) > 0 {
		s.Messages = mergeByOffset(s.Messages, p.events)
	}
	p.events = nil
}

// mergeByOffset merges two lists that are each in file order.
func mergeByOffset(a, b []Message) []Message {
	out := make([]Message, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].Offset < a[0].Offset {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

func joinParts(parts []codexPart) string {
	if len(parts) == 1 {
		if isTextPart(parts[0].typ) {
			return parts[0].text
		}
		return ""
	}
	var sb strings.Builder
	for _, c := range parts {
		if !isTextPart(c.typ) || c.text == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(c.text)
	}
	return sb.String()
}

// codexContextualPrefixes start the user-role messages Codex writes itself
// (codex-rs core contextual_user_message.rs, user_instructions.rs, user_shell_command.rs).
var codexContextualPrefixes = []string{
	"<environment_context>", "<turn_aborted>", "<context_update>", "<tool_context>",
	"<reasoning_context>", "<pinned_notes>", "<subagent_notification>",
	"<user_instructions>", "# agents.md instructions", "<skill>", "<user_shell_command>",
}

func codexContextual(parts []codexPart) bool {
	for _, c := range parts {
		t := strings.TrimLeft(c.text, " \t\r\n")
		if len(t) > 32 {
			t = t[:32]
		}
		t = strings.ToLower(t)
		for _, p := range codexContextualPrefixes {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	return false
}

// codexHookPrompt reads the user-role message Codex writes when a Stop hook blocks the end
// of a turn: its reason, as one <hook_prompt hook_run_id="…">…</hook_prompt> fragment per
// hook, XML-escaped (codex-rs protocol items.rs, build_hook_prompt_message). Only Stop and
// SubagentStop hooks send the agent on with a prompt.
func codexHookPrompt(parts []codexPart) (string, bool) {
	var said []string
	for _, c := range parts {
		t := strings.TrimSpace(c.text)
		if !strings.HasPrefix(t, "<hook_prompt") || !strings.HasSuffix(t, "</hook_prompt>") {
			return "", false
		}
		open, end := strings.IndexByte(t, '>'), len(t)-len("</hook_prompt>")
		if open < 0 || open+1 > end {
			return "", false
		}
		said = append(said, xmlUnescape.Replace(t[open+1:end]))
	}
	return strings.Join(said, "\n"), len(said) > 0
}

var xmlUnescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&")

// envCWD is the <cwd> of an <environment_context> block: the only cwd a pre-envelope
// rollout records.
func envCWD(text string) string {
	_, rest, ok := strings.Cut(text, "<cwd>")
	if !ok {
		return ""
	}
	cwd, _, ok := strings.Cut(rest, "</cwd>")
	if !ok {
		return ""
	}
	return strings.TrimSpace(cwd)
}

// codexToolInput is a function call's input: the shell command for exec-style tools, the
// arguments as compact JSON otherwise (or as they are, when they are not JSON).
func codexToolInput(name, args string) string {
	switch name {
	case "exec_command", "shell", "shell_command", "container.exec", "local_shell":
		if cmd := commandOf(args); cmd != "" {
			return cmd
		}
	}
	if !valid([]byte(args)) {
		return args
	}
	var sb strings.Builder
	sb.Grow(len(args))
	compactInto(&sb, []byte(args))
	return sb.String()
}

// commandOf reads "cmd" (exec_command) or "command" (Claude Bash, Codex shell,
// shell_command, local_shell_call's action) from a JSON object, a string or an argv
// array, as one shell command line.
func commandOf(args string) string {
	s := scanner{b: []byte(args)}
	if s.peek() != '{' {
		return ""
	}
	var cmd, command []string
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "cmd":
			cmd = s.argv()
		case "command":
			command = s.argv()
		default:
			s.skip()
		}
	}
	if !s.atEnd() {
		return ""
	}
	if len(cmd) == 0 {
		cmd = command
	}
	return shellLine(cmd)
}

// shellLine renders an argv as the command a person would type: the script of
// `bash -lc SCRIPT`, a lone string as is, anything else quoted where needed.
func shellLine(argv []string) string {
	switch {
	case len(argv) == 0:
		return ""
	case len(argv) == 1:
		return argv[0]
	case len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && isShell(argv[0]):
		return argv[2]
	}
	var sb strings.Builder
	for i, a := range argv {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(shellquote.Quote(a))
	}
	return sb.String()
}

func isShell(path string) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	switch base {
	case "bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell":
		return true
	}
	return false
}

// splitOutput takes the exit code out of a tool output. The older shell tool returns
// {"output":…,"metadata":{"exit_code":N,…}} as a JSON string, whose output replaces the
// text; the unified exec and shell_command tools start their text with header lines
// ("Chunk ID:", "Wall time:", "Process exited with code N", "Exit code: N", …, "Output:").
func splitOutput(text string) (string, *int) {
	if t := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(t, `{"output"`) {
		s := scanner{b: []byte(t)}
		var out string
		var code *int
		hasOut := false
		it := s.object()
		for k, more := it.next(); more; k, more = it.next() {
			switch string(k) {
			case "output":
				out, hasOut = s.str()
			case "metadata":
				if s.peek() != '{' {
					s.skip()
					continue
				}
				md := s.object()
				for k, more := md.next(); more; k, more = md.next() {
					if string(k) == "exit_code" {
						code, _ = s.integer()
					} else {
						s.skip()
					}
				}
			default:
				s.skip()
			}
		}
		if s.atEnd() && hasOut {
			return out, code
		}
	}
	return text, headerExitCode(text)
}

func headerExitCode(text string) *int {
	var exit *int
	for i := 0; i < 8 && text != ""; i++ {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimRight(line, "\r")
		switch {
		case line == "Output:":
			return exit
		case strings.HasPrefix(line, "Exit code: "):
			exit = atoiPtr(line[len("Exit code: "):])
		case strings.HasPrefix(line, "Process exited with code "):
			exit = atoiPtr(line[len("Process exited with code "):])
		case strings.HasPrefix(line, "Chunk ID: "), strings.HasPrefix(line, "Wall time: "),
			strings.HasPrefix(line, "Process running with session ID "),
			strings.HasPrefix(line, "Original token count: "),
			strings.HasPrefix(line, "Total output lines: "):
		default:
			return exit
		}
	}
	return exit
}

func atoiPtr(s string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return intPtr(n)
}
