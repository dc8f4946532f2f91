package transcript

import "strings"

// A GitHub Copilot CLI session (more-hosts.md §F.7) is the event log
// ~/.copilot/session-state/<sessionId>/events.jsonl (older builds: session-state/<id>.jsonl):
// one envelope per line, {type, data, id, timestamp, parentId, agentId?}. About 120 event
// types exist; this reader takes the conversation and skips the rest:
//   - session.start (and session.resume): the session id, version, model, and its context's
//     cwd and branch;
//   - user.message: data.content is what the person typed (transformedContent, what the
//     model saw, carries injected context and is not a prompt);
//   - assistant.message: its text, and each of its toolRequests as a call;
//   - tool.execution_start: a call, unless its assistant.message gave it already;
//   - tool.execution_complete: the call's result; success false is a failure, whose text is
//     the error's message when there is one.
// An event with an agentId is a subagent's (Sidechain, Agent).

type copilotParser struct {
	s     *Session
	calls map[string]string // toolCallId → tool name
}

func newCopilotParser(s *Session) *copilotParser {
	return &copilotParser{s: s, calls: map[string]string{}}
}

func (p *copilotParser) line(raw []byte, off int64) string {
	f, skip := lineBody(raw)
	if f == nil {
		return skip
	}
	typ := f.str("type")
	if typ == "" {
		return skipNoType
	}
	data := f.obj("data")
	if data == nil {
		data = fields{}
	}
	base := Message{Timestamp: p.s.stamp(f.str("timestamp")), ID: f.str("id"), Offset: off}
	if a := f.str("agentId"); a != "" {
		base.Sidechain, base.Agent = true, a
	}
	switch typ {
	case "session.start", "session.resume":
		if id := data.str("sessionId"); id != "" {
			p.s.ID = id
		}
		if v := data.str("copilotVersion"); v != "" {
			p.s.Version = v
		}
		if m := data.str("selectedModel"); m != "" {
			p.s.Model = m
		}
		if c := data.obj("context"); c != nil {
			if cwd := c.str("cwd"); cwd != "" {
				p.s.CWD = cwd
			}
			if b := c.str("branch"); b != "" {
				p.s.Branch = b
			}
		}
	case "session.model_change":
		if m := data.str("newModel"); m != "" {
			p.s.Model = m
		}
	case "user.message":
		if text := data.str("content"); strings.TrimSpace(text) != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleUser, KindText, text
			p.s.add(m)
		}
	case "assistant.message":
		if mdl := data.str("model"); mdl != "" {
			p.s.Model = mdl
		}
		if text := data.str("content"); strings.TrimSpace(text) != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleAssistant, KindText, text
			p.s.add(m)
		}
		for _, tr := range data.arr("toolRequests") {
			if t := objectOf(tr); t != nil {
				p.call(base, t.str("toolCallId"), t.str("name"), t)
			}
		}
	case "tool.execution_start":
		id := data.str("toolCallId")
		if _, seen := p.calls[id]; !seen || id == "" {
			p.call(base, id, data.str("toolName"), data)
		}
	case "tool.execution_complete":
		id := data.str("toolCallId")
		m := base
		m.Role, m.Kind, m.CallID, m.ToolName = RoleTool, KindToolResult, id, p.calls[id]
		if res := data.obj("result"); res != nil {
			m.Text = res.str("content")
			if m.Text == "" {
				m.Text = res.str("detailedContent")
			}
		}
		if ok, has := data.boolean("success"); has && !ok {
			m.IsError = true
		}
		if e := data.obj("error"); e != nil {
			m.IsError = true
			if msg := e.str("message"); msg != "" {
				m.Text = strings.TrimSpace(msg + "\n" + m.Text)
			}
		} else if e := data.str("error"); e != "" {
			m.IsError = true
			m.Text = strings.TrimSpace(e + "\n" + m.Text)
		}
		p.s.add(m)
	}
	return ""
}

func (p *copilotParser) call(base Message, id, name string, f fields) {
	if name == "" {
		name = f.str("toolName")
	}
	p.calls[id] = name
	m := base
	m.Role, m.Kind, m.CallID, m.ToolName = RoleAssistant, KindToolCall, id, name
	m.ToolInput = toolInputOf(f.raw("arguments"))
	p.s.add(m)
}

func (p *copilotParser) finish() {}
