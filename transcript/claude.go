package transcript

import (
	"cmp"
	"strconv"
	"strings"
)

// A Claude Code transcript is one JSON object per line with a top-level "type" (§C.2):
// user, assistant, system and attachment lines are the conversation; summary,
// file-history-snapshot, queue-operation, progress, custom-title and the rest are metadata
// and yield no messages. Rules this reader follows, and why:
//
//   - Claude Code writes one line per content block, so an assistant turn is several lines
//     sharing message.id. Those are distinct blocks and all are kept; a block that repeats
//     one already seen under the same message.id (same tool_use id, or the same text or
//     thinking) is a streamed or resumed duplicate and is dropped. A record whose uuid was
//     already read is dropped whole.
//   - queue-operation lines are the queue's bookkeeping: the queued words reach the
//     conversation again as a user line or an attachment of type queued_command, which is
//     read. progress lines carry a live copy of subagent messages whose own file is read
//     separately, so they are skipped too: reading them would count those messages twice.
//   - Text the person did not type (isMeta, isCompactSummary, slash-command echoes,
//     <system-reminder>, local command output) is RoleSystem, so that RoleUser is a prompt.
//   - Hook feedback is KindHook: a blocking hook's words reach the agent as user-role text
//     ("Stop hook feedback:\n[command]: reason", isMeta on recent versions, not on older
//     ones) and, from ~2.1.x, also as an attachment of type hook_blocking_error
//     ({hookName, hookEvent, blockingError:{blockingError, command}}). Both are read: the
//     text is what the agent saw, the attachment names the hook's command. Other hook
//     attachments (hook_success, hook_additional_context: what a hook added to the context,
//     reflect's own recall among them; hook_non_blocking_error: a hook that broke) carry
//     nothing the agent was told to do and yield nothing.

// claudeRecord is what this reader takes from one line.
type claudeRecord struct {
	typ, uuid, timestamp                 string
	sessionID, cwd, branch, version      string
	sidechain, meta, compact, apiError   bool
	content                              string // system lines
	toolUseError                         bool   // toolUseResult is an "Error…" string
	attachType, attachPrompt, attachMode string
	hook                                 claudeHook // a hook_blocking_error attachment
	agentID                              string
	hasMessage                           bool
	msgID, model                         string
	text                                 string // message.content when it is a string
	isString                             bool
	blocks                               []claudeBlock
	typeErr                              bool // a field this reader uses had an unexpected type
}

// claudeBlock is one content block of message.content.
type claudeBlock struct {
	typ, text, thinking, id, name, input, toolUseID, content string
	isError                                                  *bool
}

type blockKey struct {
	msg  string
	kind Kind
	id   string
	sum  uint64
}

type claudeParser struct {
	s      *Session
	hints  hints
	calls  map[string]string // tool_use id → tool name
	uuids  map[string]struct{}
	blocks map[blockKey]struct{}
	rec    claudeRecord // reused: its session fields and block slice survive from line to line
}

func newClaudeParser(s *Session, h hints) *claudeParser {
	return &claudeParser{
		s: s, hints: h,
		calls:  make(map[string]string),
		uuids:  make(map[string]struct{}),
		blocks: make(map[blockKey]struct{}),
	}
}

func (p *claudeParser) line(raw []byte, off int64) string {
	sc := scanner{b: raw}
	if sc.peek() != '{' {
		return notObject(raw)
	}
	r := &p.rec
	*r = claudeRecord{sessionID: r.sessionID, cwd: r.cwd, branch: r.branch, version: r.version, blocks: r.blocks[:0]}
	r.parse(&sc)
	if !sc.atEnd() {
		return skipMalformed
	}
	return p.record(r, off)
}

func (r *claudeRecord) parse(s *scanner) {
	ok := true
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "type":
			r.typ, ok = s.str()
		case "uuid":
			r.uuid, ok = s.str()
		case "timestamp":
			r.timestamp, ok = s.str()
		case "sessionId":
			ok = s.strInto(&r.sessionID)
		case "cwd":
			ok = s.strInto(&r.cwd)
		case "gitBranch":
			ok = s.strInto(&r.branch)
		case "version":
			ok = s.strInto(&r.version)
		case "isSidechain":
			r.sidechain, ok = s.boolean()
		case "agentId":
			r.agentID, _ = s.str()
		case "isMeta":
			r.meta, ok = s.boolean()
		case "isCompactSummary":
			r.compact, ok = s.boolean()
		case "isApiErrorMessage":
			r.apiError, ok = s.boolean()
		case "content":
			r.content, ok = s.text()
		case "toolUseResult":
			r.toolUseError = toolUseError(s)
		case "attachment":
			ok = r.parseAttachment(s)
		case "message":
			ok = r.parseMessage(s)
		default:
			s.skip()
		}
		r.typeErr = r.typeErr || !ok
	}
}

// toolUseError consumes a toolUseResult and reports whether it is an error string
// ("Error: …", a rejected or failed tool use). The object forms duplicate the
// tool_result's content and can be large: they are skipped, never decoded.
func toolUseError(s *scanner) bool {
	if s.peek() != '"' {
		s.skip()
		return false
	}
	raw, _, ok := s.rawString()
	return ok && strings.HasPrefix(string(raw), "Error")
}

func (r *claudeRecord) parseAttachment(s *scanner) bool {
	if s.peek() != '{' {
		c := s.peek()
		s.skip()
		return c == 'n'
	}
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "type":
			r.attachType, _ = s.str()
		case "prompt":
			r.attachPrompt, _ = s.text()
		case "commandMode":
			r.attachMode, _ = s.str()
		case "hookName":
			r.hook.name, _ = s.str()
		case "hookEvent":
			r.hook.event, _ = s.str()
		case "blockingError":
			r.hook.parseBlockingError(s)
		case "command":
			r.hook.command, _ = s.str()
		case "stderr":
			r.hook.stderr, _ = s.str()
		default:
			s.skip()
		}
	}
	return true
}

// claudeHook is what a hook attachment says: the hook's name and event, and the reason and
// command of its blockingError (or, in other shapes, its stderr and command).
type claudeHook struct{ name, event, text, command, stderr, errCommand string }

// parseBlockingError reads a hook_blocking_error's blockingError: {blockingError, command},
// or a bare string.
func (h *claudeHook) parseBlockingError(s *scanner) {
	switch s.peek() {
	case '"':
		h.text, _ = s.str()
	case '{':
		it := s.object()
		for k, more := it.next(); more; k, more = it.next() {
			switch string(k) {
			case "blockingError":
				h.text, _ = s.text()
			case "command":
				h.errCommand, _ = s.str()
			default:
				s.skip()
			}
		}
	default:
		s.skip()
	}
}

// message fills m with the hook's name, command and words; ok is false when it has none.
func (h *claudeHook) message(m *Message) bool {
	m.Role, m.Kind = RoleSystem, KindHook
	m.ToolName = cmp.Or(h.name, h.event)
	m.ToolInput = cmp.Or(h.errCommand, h.command)
	m.Text = cmp.Or(h.text, h.stderr)
	return strings.TrimSpace(m.Text) != ""
}

func (r *claudeRecord) parseMessage(s *scanner) bool {
	if c := s.peek(); c != '{' {
		s.skip()
		return c == 'n'
	}
	r.hasMessage = true
	ok := true
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "id":
			r.msgID, _ = s.str()
		case "model":
			r.model, _ = s.str()
		case "content":
			switch s.peek() {
			case '"':
				r.text, _ = s.str()
				r.isString = true
			case '[':
				arr := s.array()
				for arr.next() {
					r.blocks = append(r.blocks, parseClaudeBlock(s))
				}
			default:
				s.skip()
				ok = false
			}
		default:
			s.skip()
		}
	}
	return ok
}

func parseClaudeBlock(s *scanner) claudeBlock {
	var b claudeBlock
	if s.peek() != '{' {
		s.skip()
		return b
	}
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		switch string(k) {
		case "type":
			b.typ, _ = s.str()
		case "text":
			b.text, _ = s.str()
		case "thinking":
			b.thinking, _ = s.str()
		case "id":
			b.id, _ = s.str()
		case "name":
			b.name, _ = s.str()
		case "input":
			b.input = s.compact()
		case "tool_use_id":
			b.toolUseID, _ = s.str()
		case "content":
			b.content, _ = s.text()
		case "is_error":
			b.isError, _ = s.optBool()
		default:
			s.skip()
		}
	}
	return b
}

func (p *claudeParser) record(r *claudeRecord, off int64) string {
	if r.typ == "" {
		return skipNoType
	}
	s := p.s
	ts := s.stamp(r.timestamp)
	if r.sessionID != "" && s.ID == "" {
		s.ID = r.sessionID
	}
	if r.cwd != "" && s.CWD == "" {
		s.CWD = r.cwd
	}
	if r.branch != "" {
		s.Branch = r.branch
	}
	if r.version != "" {
		s.Version = r.version
	}
	switch r.typ {
	case "user", "assistant", "system", "attachment":
	default:
		return "" // metadata, or a type this reader does not know
	}
	if r.uuid != "" {
		if _, dup := p.uuids[r.uuid]; dup {
			return ""
		}
		p.uuids[r.uuid] = struct{}{}
	}
	base := Message{Timestamp: ts, ID: r.uuid, Sidechain: r.sidechain || p.hints.sidechain, Agent: r.agentID, Offset: off}
	before := len(s.Messages)
	switch r.typ {
	case "user":
		if !r.hasMessage {
			return "invalid user record"
		}
		p.user(r, base)
	case "assistant":
		if !r.hasMessage {
			return "invalid assistant record"
		}
		p.assistant(r, base)
	case "system":
		if r.content != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleSystem, KindText, r.content
			s.add(m)
		}
	case "attachment":
		if m := base; r.attachType == "hook_blocking_error" && r.hook.message(&m) {
			s.add(m)
		}
		if r.attachType == "queued_command" && r.attachPrompt != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleUser, KindText, r.attachPrompt
			if (r.attachMode != "" && r.attachMode != "prompt") || claudeInjected(m.Text) {
				m.Role = RoleSystem
			}
			s.add(m)
		}
	}
	if r.typeErr && len(s.Messages) == before {
		return "invalid " + r.typ + " record"
	}
	return ""
}

func (p *claudeParser) user(r *claudeRecord, base Message) {
	if r.isString {
		p.userText(r, r.text, base)
		return
	}
	for i := range r.blocks {
		b := &r.blocks[i]
		switch b.typ {
		case "text":
			p.userText(r, b.text, base)
		case "tool_result":
			m := base
			m.Role, m.Kind = RoleTool, KindToolResult
			m.Text = b.content
			m.CallID = b.toolUseID
			m.ToolName = p.calls[b.toolUseID]
			if b.isError != nil {
				m.IsError = *b.isError
			} else {
				m.IsError = r.toolUseError
			}
			if m.IsError {
				m.ExitCode = claudeExitCode(m.Text)
			}
			p.s.add(m)
		}
	}
}

func (p *claudeParser) userText(r *claudeRecord, text string, base Message) {
	if text == "" {
		return
	}
	m := base
	m.Role, m.Kind, m.Text = RoleUser, KindText, text
	if event, said, ok := hookFeedback(text); ok {
		m.Role, m.Kind, m.ToolName, m.Text = RoleSystem, KindHook, event, said
	} else if r.meta || r.compact || claudeInjected(text) {
		m.Role = RoleSystem
	}
	p.s.add(m)
}

// hookFeedback reads the user-role text Claude Code writes when a hook blocks: "Stop hook
// feedback:\n…" (SubagentStop, PostToolUse and other events alike). said is what follows.
func hookFeedback(text string) (event, said string, ok bool) {
	t := strings.TrimLeft(text, " \t\r\n")
	head, rest, found := strings.Cut(t, " hook feedback:")
	if !found || head == "" || len(head) > 32 {
		return "", "", false
	}
	for i := 0; i < len(head); i++ {
		if c := head[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "", "", false
		}
	}
	return head, strings.TrimSpace(rest), true
}

func (p *claudeParser) assistant(r *claudeRecord, base Message) {
	if r.model != "" && r.model != "<synthetic>" {
		p.s.Model = r.model
	}
	base.Role = RoleAssistant
	if r.apiError {
		base.Role = RoleSystem // "API Error: …" written by the CLI, not said by the model
	}
	if r.isString {
		if r.text != "" && p.first(r.msgID, KindText, "", r.text) {
			m := base
			m.Kind, m.Text = KindText, r.text
			p.s.add(m)
		}
		return
	}
	for i := range r.blocks {
		b := &r.blocks[i]
		m := base
		switch b.typ {
		case "text":
			if b.text == "" || !p.first(r.msgID, KindText, "", b.text) {
				continue
			}
			m.Kind, m.Text = KindText, b.text
		case "thinking":
			if b.thinking == "" || !p.first(r.msgID, KindThinking, "", b.thinking) {
				continue
			}
			m.Kind, m.Text = KindThinking, b.thinking
		case "tool_use":
			if !p.first(r.msgID, KindToolCall, b.id, "") {
				continue
			}
			m.Kind, m.ToolName, m.CallID, m.ToolInput = KindToolCall, b.name, b.id, b.input
			if b.name == "Bash" {
				if cmd := commandOf(b.input); cmd != "" {
					m.ToolInput = cmd
				}
			}
			if b.id != "" {
				p.calls[b.id] = b.name
			}
		default:
			continue // redacted_thinking, and block types this reader does not know
		}
		p.s.add(m)
	}
}

// first reports whether a block is new under its message id, and remembers it.
func (p *claudeParser) first(msgID string, kind Kind, id, text string) bool {
	if msgID == "" {
		return true
	}
	k := blockKey{msg: msgID, kind: kind, id: id}
	if id == "" {
		k.sum = fnv64(text)
	}
	if _, dup := p.blocks[k]; dup {
		return false
	}
	p.blocks[k] = struct{}{}
	return true
}

// fnv64 is FNV-1a over s, without copying s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func (p *claudeParser) finish() {
	if p.s.ID == "" {
		p.s.ID = p.hints.id
	}
}

// claudeExitCode reads the "Exit code N" line Claude Code puts first in a failed Bash
// result.
func claudeExitCode(text string) *int {
	rest, ok := strings.CutPrefix(text, "Exit code ")
	if !ok {
		return nil
	}
	if i := strings.IndexAny(rest, "\r\n"); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil {
		return nil
	}
	return intPtr(n)
}

// claudeInjectedPrefixes start the user-role text that Claude Code writes itself (§C.3).
var claudeInjectedPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<system-reminder>", "<task-notification>", "<bash-stdout>", "<bash-stderr>",
	"Caveat: The messages below were generated",
}

func claudeInjected(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range claudeInjectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
