package transcript

import (
	"strings"
	"time"
)

// An opencode session has no transcript file: package opencode mirrors it from opencode's
// database (or its older JSON storage) as JSON lines of reflect's own, which this reader
// reads: {"type":"opencode.session", id, parent, directory, title, time} once, then
// {"type":"opencode.part", session, message, id, role, model, time, part} per part of each
// finished message, part being opencode's part as stored (§G.4): text (synthetic text is
// opencode's, not the person's), reasoning, tool ({tool, callID, state: {status, input,
// output, error, metadata: {exit}}}); step, patch and file parts say nothing a digest
// keeps. A child session (a subagent's: it has a parent) is a sidechain.

type opencodeParser struct {
	s      *Session
	parent string
}

func newOpencodeParser(s *Session) *opencodeParser {
	return &opencodeParser{s: s}
}

func (p *opencodeParser) line(raw []byte, off int64) string {
	f, skip := lineBody(raw)
	if f == nil {
		return skip
	}
	var ts time.Time
	if ms := f.integer("time"); ms != nil && *ms > 0 {
		ts = time.UnixMilli(int64(*ms)).UTC()
		p.s.stampTime(ts)
	}
	switch f.str("type") {
	case "opencode.session":
		if id := f.str("id"); id != "" {
			p.s.ID = id
		}
		if d := f.str("directory"); d != "" {
			p.s.CWD = d
		}
		p.parent = f.str("parent")
		return ""
	case "opencode.part":
	case "":
		return skipNoType
	default:
		return ""
	}
	pt := f.obj("part")
	if pt == nil {
		return ""
	}
	if m := f.str("model"); m != "" {
		p.s.Model = m
	}
	base := Message{Timestamp: ts, ID: f.str("id"), Offset: off}
	if p.parent != "" {
		base.Sidechain, base.Agent = true, p.s.ID
	}
	role := f.str("role")
	switch pt.str("type") {
	case "text":
		text := pt.str("text")
		if strings.TrimSpace(text) == "" {
			return ""
		}
		m := base
		m.Kind, m.Text = KindText, text
		switch {
		case role == "user" && pt.has("synthetic"):
			if syn, _ := pt.boolean("synthetic"); syn {
				m.Role = RoleSystem
			} else {
				m.Role = RoleUser
			}
		case role == "user":
			m.Role = RoleUser
		default:
			m.Role = RoleAssistant
		}
		p.s.add(m)
	case "reasoning":
		if text := pt.str("text"); strings.TrimSpace(text) != "" {
			m := base
			m.Role, m.Kind, m.Text = RoleAssistant, KindThinking, text
			p.s.add(m)
		}
	case "tool":
		st := pt.obj("state")
		if st == nil {
			st = fields{}
		}
		call := base
		call.Role, call.Kind, call.ToolName, call.CallID = RoleAssistant, KindToolCall, pt.str("tool"), pt.str("callID")
		call.ToolInput = toolInputOf(st.raw("input"))
		p.s.add(call)
		status := st.str("status")
		if status != "completed" && status != "error" {
			return ""
		}
		r := base
		r.Role, r.Kind, r.ToolName, r.CallID = RoleTool, KindToolResult, call.ToolName, call.CallID
		r.Text = st.str("output")
		if status == "error" {
			r.IsError = true
			if e := st.str("error"); e != "" {
				r.Text = strings.TrimSpace(e + "\n" + r.Text)
			}
		}
		if md := st.obj("metadata"); md != nil {
			if n := md.integer("exit"); n != nil {
				r.ExitCode = n
				if *n != 0 {
					r.IsError = true
				}
			}
		}
		p.s.add(r)
	}
	return ""
}

func (p *opencodeParser) finish() {}
