package transcript

import (
	"os"
	"path/filepath"
	"strings"
)

// A Cursor agent transcript (more-hosts.md §H.7, from several independent parsers) is
// ~/.cursor/projects/<encoded-workspace>/agent-transcripts/<id>/<id>.jsonl (older:
// agent-transcripts/<id>.jsonl; subagents under <id>/subagents/): lines
// {"role": "user"|"assistant", "message": {"content": [blocks]}} with text and tool_use
// blocks, and roleless {"type": "turn_ended", "status", "error"?}. It has no timestamps,
// no model and no tool results, so a Cursor capture holds prompts and conclusions; the
// failures come from the postToolUse hook (the correction watcher). User text is wrapped in
// <user_query>…</user_query>, which is taken off; assistant thinking may be "[REDACTED]",
// which is dropped. A turn that ended in error is a RoleSystem notice.

type cursorParser struct {
	s     *Session
	calls int
}

func newCursorParser(s *Session) *cursorParser {
	return &cursorParser{s: s}
}

func (p *cursorParser) line(raw []byte, off int64) string {
	f, skip := lineBody(raw)
	if f == nil {
		return skip
	}
	base := Message{Offset: off, Timestamp: p.s.stamp(f.str("timestamp"))}
	role := f.str("role")
	if role == "" {
		if t := f.str("type"); t == "turn_ended" {
			if f.str("status") == "error" {
				m := base
				m.Role, m.Kind, m.Text = RoleSystem, KindText, strings.TrimSpace("The turn ended with an error. "+f.str("error"))
				p.s.add(m)
			}
			return ""
		} else if t != "" {
			return ""
		}
		return skipNoType
	}
	msg := f.obj("message")
	if msg == nil {
		return ""
	}
	var blocks []fields
	if text := msg.str("content"); text != "" {
		blocks = append(blocks, fields{{key: []byte("type"), val: []byte(`"text"`)}, {key: []byte("text"), val: msg.raw("content")}})
	}
	for _, b := range msg.arr("content") {
		if bf := objectOf(b); bf != nil {
			blocks = append(blocks, bf)
		}
	}
	for _, b := range blocks {
		switch b.str("type") {
		case "text":
			text := b.str("text")
			if role == "user" {
				text = cursorQuery(text)
			}
			if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "[REDACTED]" {
				continue
			}
			m := base
			m.Role, m.Kind, m.Text = RoleAssistant, KindText, text
			if role == "user" {
				m.Role = RoleUser
			}
			p.s.add(m)
		case "tool_use":
			if role != "assistant" {
				continue
			}
			p.calls++
			m := base
			m.Role, m.Kind, m.ToolName, m.CallID = RoleAssistant, KindToolCall, b.str("name"), b.str("id")
			m.ToolInput = toolInputOf(b.raw("input"))
			p.s.add(m)
		}
	}
	return ""
}

// cursorQuery takes the person's words out of Cursor's <user_query> wrapper (and drops the
// <timestamp> it may carry). Text without the wrapper is kept as it is.
func cursorQuery(text string) string {
	if i := strings.Index(text, "<user_query>"); i >= 0 {
		rest := text[i+len("<user_query>"):]
		if j := strings.Index(rest, "</user_query>"); j >= 0 {
			rest = rest[:j]
		}
		return strings.TrimSpace(rest)
	}
	if strings.HasPrefix(strings.TrimSpace(text), "<timestamp>") {
		if j := strings.Index(text, "</timestamp>"); j >= 0 {
			return strings.TrimSpace(text[j+len("</timestamp>"):])
		}
	}
	return text
}

func (p *cursorParser) finish() {}

// cursorCWD guesses the workspace of a transcript under
// ~/.cursor/projects/<encoded-workspace>/agent-transcripts/: Cursor encodes the path with
// '/' (and other characters) as '-', which loses information, so the folders that exist are
// tried, the longest name first at each level. Nothing is found when no such path exists.
func cursorCWD(s *Session, path string) {
	if s.CWD != "" {
		return
	}
	p := filepath.ToSlash(path)
	i := strings.Index(p, "/agent-transcripts/")
	if i < 0 {
		return
	}
	enc := filepath.Base(p[:i])
	parts := strings.Split(enc, "-")
	var try func(dir string, rest []string, budget *int) string
	try = func(dir string, rest []string, budget *int) string {
		if len(rest) == 0 {
			return dir
		}
		for n := len(rest); n >= 1; n-- {
			if *budget--; *budget < 0 {
				return ""
			}
			name := strings.Join(rest[:n], "-")
			if name == "" {
				continue
			}
			for _, cand := range []string{name, "." + name} {
				next := filepath.Join(dir, cand)
				if fi, err := os.Stat(next); err == nil && fi.IsDir() {
					if got := try(next, rest[n:], budget); got != "" {
						return got
					}
				}
			}
		}
		return ""
	}
	budget := 200
	if got := try(string(filepath.Separator), parts, &budget); got != "" && got != string(filepath.Separator) {
		s.CWD = got
	}
}
