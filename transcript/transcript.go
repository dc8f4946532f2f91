package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Harness names the agent that wrote a transcript.
type Harness string

// The harnesses whose transcripts this package reads.
const (
	HarnessClaude  Harness = "claude-code"
	HarnessCodex   Harness = "codex"
	HarnessGemini  Harness = "gemini"
	HarnessCopilot Harness = "copilot"
	HarnessCursor  Harness = "cursor"
	// HarnessOpencode reads the mirror package opencode makes of an opencode session.
	HarnessOpencode Harness = "opencode"
)

// Known says whether h is a harness this package reads.
func Known(h Harness) bool {
	switch h {
	case HarnessClaude, HarnessCodex, HarnessGemini, HarnessCopilot, HarnessCursor, HarnessOpencode:
		return true
	}
	return false
}

// Role is who a message is from.
type Role string

// Roles. RoleSystem covers everything the person did not type and the model did not say:
// Codex developer messages, injected context (AGENTS.md, <environment_context>, Claude's
// isMeta lines, slash-command echoes, compaction summaries) and host error notices. So a
// RoleUser text message is always something a person wrote.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleSystem    Role = "system"
)

// Kind is what a message holds.
type Kind string

// Kinds.
const (
	KindText       Kind = "text"
	KindThinking   Kind = "thinking"
	KindToolCall   Kind = "tool_call"
	KindToolResult Kind = "tool_result"
	// KindHook is feedback a hook gave the agent: a Stop hook refusing to end the turn
	// (Claude Code's "Stop hook feedback: …" and hook_blocking_error, Codex's <hook_prompt>
	// message). ToolName is the hook's name (Stop, PostToolUse:Bash), ToolInput its command
	// when the record gives it, Text what it said. Its Role is RoleSystem: the person did
	// not type it.
	KindHook Kind = "hook"
)

// Message is one unit of a conversation: a piece of text, a piece of reasoning, a tool call
// or a tool result. One transcript line can yield several messages (a Claude user line with
// several tool results) or none (metadata lines).
type Message struct {
	Role Role
	Kind Kind
	// Text is the text, the thinking, or for a tool result its output as text.
	Text string
	// ToolName is set on tool calls, and on tool results joined from their call when the
	// call was read in the same pass.
	ToolName string
	// ToolInput is a tool call's input as compact JSON; for exec-style calls (Claude Bash,
	// Codex exec_command, shell, shell_command, local_shell_call) it is the shell command,
	// and for Codex custom tools (apply_patch) the freeform input.
	ToolInput string
	// CallID joins a call and its result: the Claude tool_use id, the Codex call_id.
	CallID string
	// IsError marks a tool result that failed: Claude is_error or an error toolUseResult,
	// Codex non-zero exit code, success:false, or a failed patch or MCP call.
	IsError bool
	// ExitCode is set when the host reports one.
	ExitCode  *int
	Timestamp time.Time
	// ID is the Claude record uuid; for Codex the item id when the rollout has one.
	ID string
	// Sidechain marks Claude sidechain and subagent messages.
	Sidechain bool
	// Agent is the Claude subagent a sidechain message belongs to (the record's agentId).
	Agent string
	// Process is the Codex unified exec session id of a command that outlived its first
	// answer ("Process running with session ID N"), on its result; see codex.go for how
	// its polls are folded into that result.
	Process string
	// Offset is the byte offset in the file of the line the message came from.
	Offset int64
}

// Session is one transcript file, read.
type Session struct {
	Harness Harness
	// ID is the session id: Claude sessionId (the parent's, in a subagent file), Codex
	// session_meta id (or the id in the rollout file name).
	ID string
	// CWD is Claude's first cwd (the directory the session started in, which names its
	// projects folder) or Codex's latest turn_context cwd.
	CWD string
	// Branch, Model and Version are the latest values the transcript gives.
	Branch, Model, Version string
	// Remote is the repository URL the session recorded (Codex's git.repository_url), or "".
	Remote string
	// Started and Updated are the earliest and latest timestamps seen.
	Started, Updated time.Time
	Messages         []Message
	// Lines counts the non-blank lines consumed; Skipped those that could not be used
	// (malformed JSON, not an object, no record type, a known record of an impossible
	// shape, longer than MaxLine), by reason in SkipReasons. Records of types this package
	// does not know are ignored, not skipped.
	Lines, Skipped int
	SkipReasons    map[string]int
	// FirstSkip is the number of the first line skipped (counted from where the read
	// started, from 1), 0 when none was.
	FirstSkip int
	// Torn is set when the last line had no newline and did not parse (or is longer than
	// MaxLine): the host is still writing it. It is not counted in Lines, and End stops
	// before it.
	Torn bool
	// End is the byte offset just after the last line consumed: where a later ReadFileFrom
	// resumes.
	End int64
}

// ErrUnknownHarness is returned by ReadFile and ReadFileFrom when neither a file's content
// nor its path says which agent wrote it, and by Read for a Harness it does not know.
var ErrUnknownHarness = errors.New("unknown transcript format")

// ReadClaude reads a Claude Code transcript. It returns an error only when r fails.
func ReadClaude(r io.Reader) (*Session, error) {
	return read(r, 0, HarnessClaude, hints{})
}

// Read reads a transcript written by h.
func Read(r io.Reader, h Harness) (*Session, error) {
	if Known(h) {
		return read(r, 0, h, hints{})
	}
	return nil, fmt.Errorf("read transcript: %w: harness %q", ErrUnknownHarness, h)
}

// ReadFile reads the transcript at path. The harness is detected from the first line that
// parses, and from the path's shape when no line tells.
func ReadFile(path string) (*Session, error) {
	return ReadFileFrom(path, 0, "")
}

// ReadFileFrom reads the transcript at path from offset on, which should be the End of an
// earlier read of the same file; h may be "" to detect it. Offsets in the result stay
// absolute, and session fields missing from the part read (a Codex id lives on line 1) are
// taken from the file name where it has them.
//
// Joins do not cross offset: a tool result whose call lies before offset has no ToolName,
// a Codex exec_command_end after offset cannot mark a result before it, and a streamed
// Claude block repeated on both sides of offset is kept twice. Every other field of every
// message is what a read of the whole file gives.
func ReadFileFrom(path string, offset int64, h Harness) (*Session, error) {
	if offset < 0 {
		return nil, fmt.Errorf("read transcript %s: negative offset %d", path, offset)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	if h == "" {
		h, err = detectFile(f, path)
		if err != nil {
			return nil, err
		}
	}
	if !Known(h) {
		return nil, fmt.Errorf("read transcript %s: %w: harness %q", path, ErrUnknownHarness, h)
	}
	if h == HarnessGemini && strings.HasSuffix(path, ".json") {
		return readGeminiJSON(f, path, offset, hintsFromPath(path))
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	s, err := read(f, offset, h, hintsFromPath(path))
	if err != nil {
		return s, fmt.Errorf("read transcript %s: %w", path, err)
	}
	switch h {
	case HarnessGemini:
		geminiCWD(s, path)
	case HarnessCursor:
		cursorCWD(s, path)
		if s.ID == "" {
			s.ID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
		}
	}
	return s, nil
}

// detectLines bounds how far detectFile looks for a line that names the harness.
const (
	detectLines = 64
	detectBytes = 8 << 20
)

func detectFile(f *os.File, path string) (Harness, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	var acc []byte
	seen := 0
	var head []byte // the start of a pretty-printed document (Gemini's single-JSON session)
	for i := 0; i < detectLines && seen < detectBytes; i++ {
		line, n, long, err := readLine(br, &acc)
		seen += int(n)
		if !long && len(head) < 8<<10 {
			head = append(head, line...)
		}
		if !long {
			if h, ok := Detect(line); ok {
				return h, nil
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read transcript %s: %w", path, err)
		}
	}
	if h, ok := harnessFromPath(path); ok {
		return h, nil
	}
	if strings.HasSuffix(path, ".json") && bytes.Contains(head, []byte(`"sessionId"`)) &&
		(bytes.Contains(head, []byte(`"projectHash"`)) || bytes.Contains(head, []byte(`"messages"`))) {
		return HarnessGemini, nil
	}
	return "", fmt.Errorf("read transcript %s: %w", path, ErrUnknownHarness)
}

// parser turns one transcript line into messages and session fields.
type parser interface {
	// line handles the JSON text of one line (never blank). It returns a reason when the
	// line could not be used, "" otherwise (including lines it knowingly ignores).
	line(raw []byte, off int64) (skip string)
	// finish runs after the last line.
	finish()
}

// readBuffer is the bufio size: lines up to this long are parsed in place, longer ones are
// assembled in a reused buffer.
const (
	readBuffer = 256 << 10
	keepBuffer = 16 << 20 // a line buffer that grew past this is dropped after use
)

// MaxLine bounds a transcript line: a longer one is read past without being kept, counted
// in Skipped under SkipLongLine, and the lines after it are read as usual. Without a bound
// the line was assembled whole: a 2 GB single-line file took `reflect history import` to
// 4 GB of RSS. The longest line of the real sessions in the conformance samples is 56 KB
// (a Claude Code 2.1.4 tool result); multi-MB tool outputs and session_meta instructions
// are normal, and a pasted screenshot is at most 5 MB before base64 (the Messages API's
// limit), 6.7 MB after. 16 MB keeps all of those and two screenshots in one line, and keeps
// a read under ~100 MB whatever the file holds.
const MaxLine = 16 << 20

// SkipLongLine is the skip reason of a line over MaxLine.
const SkipLongLine = "line over 16 MB"

func read(r io.Reader, base int64, h Harness, hi hints) (*Session, error) {
	s := &Session{Harness: h, End: base}
	if h != HarnessClaude && h != HarnessCodex {
		s.ID = hi.id // the other hosts' readers start from the path's id; a line may name its own
	}
	var p parser
	switch h {
	case HarnessCodex:
		p = newCodexParser(s, hi)
	case HarnessGemini:
		p = newGeminiParser(s, base, hi)
	case HarnessCopilot:
		p = newCopilotParser(s)
	case HarnessCursor:
		p = newCursorParser(s)
	case HarnessOpencode:
		p = newOpencodeParser(s)
	default:
		p = newClaudeParser(s, hi)
	}
	size := readBuffer
	if l, ok := r.(interface{ Len() int }); ok {
		size = bufferFor(int64(l.Len()))
	} else if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = bufferFor(fi.Size() - base)
		}
	}
	br := bufio.NewReaderSize(r, size)
	var acc []byte
	off := base
	for {
		line, n, long, err := readLine(br, &acc)
		if err != nil && err != io.EOF {
			p.finish()
			return s, err
		}
		if long {
			if err == io.EOF {
				s.Torn = true // no newline yet: the host may still be writing it
				p.finish()
				return s, nil
			}
			s.Lines++
			s.Skipped++
			if s.FirstSkip == 0 {
				s.FirstSkip = s.Lines
			}
			if s.SkipReasons == nil {
				s.SkipReasons = make(map[string]int)
			}
			s.SkipReasons[SkipLongLine]++
			off += n
			s.End = off
			continue
		}
		if err == nil {
			consume(s, p, line[:len(line)-1], off)
			off += n
			s.End = off
			continue
		}
		// EOF: line is what follows the last newline.
		if body := bytes.TrimSpace(line); len(body) > 0 {
			if valid(trimBOM(body)) {
				// A complete record that only lacks its newline: hosts write a record and
				// its newline together, so valid JSON here is the whole record.
				consume(s, p, line, off)
				off += n
				s.End = off
			} else {
				s.Torn = true
			}
		}
		p.finish()
		return s, nil
	}
}

// bufferFor sizes the read buffer for n bytes of input: small files should not pay for
// a buffer sized for multi-MB lines.
func bufferFor(n int64) int {
	switch {
	case n < 4096:
		return 4096
	case n < readBuffer:
		return int(n) + 1
	}
	return readBuffer
}

func consume(s *Session, p parser, line []byte, off int64) {
	body := trimBOM(bytes.TrimSpace(line))
	if len(body) == 0 {
		return
	}
	s.Lines++
	if reason := p.line(body, off); reason != "" {
		s.Skipped++
		if s.FirstSkip == 0 {
			s.FirstSkip = s.Lines
		}
		if s.SkipReasons == nil {
			s.SkipReasons = make(map[string]int)
		}
		s.SkipReasons[reason]++
	}
}

// readLine returns the next line including its '\n', or without one at EOF, and its length
// in bytes. The slice is valid until the next call. A line longer than MaxLine is read to
// its end but not kept: long is set and line is nil.
func readLine(br *bufio.Reader, acc *[]byte) (line []byte, n int64, long bool, err error) {
	b, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, int64(len(b)), false, err
	}
	buf := append((*acc)[:0], b...)
	n = int64(len(b))
	for err == bufio.ErrBufferFull {
		b, err = br.ReadSlice('\n')
		n += int64(len(b))
		if !long && n > MaxLine {
			long, buf = true, nil
		}
		if !long {
			buf = append(buf, b...)
		}
	}
	if cap(buf) <= keepBuffer {
		*acc = buf
	} else {
		*acc = nil
	}
	if long {
		return nil, n, true, err
	}
	return buf, n, false, err
}

var bom = []byte("\xef\xbb\xbf")

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

// Skip reasons shared by both readers.
const (
	skipMalformed = "malformed json"
	skipNotObject = "not a json object"
	skipNoType    = "no record type"
)

// notObject is the skip reason for a line that does not start an object.
func notObject(raw []byte) string {
	if valid(raw) {
		return skipNotObject
	}
	return skipMalformed
}

// stamp records a record's timestamp in the session bounds and returns it.
func (s *Session) stamp(ts string) time.Time {
	if ts == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}
	}
	s.stampTime(t)
	return t
}

func (s *Session) add(m Message) { s.Messages = append(s.Messages, m) }

// stampTime records a time in the session bounds.
func (s *Session) stampTime(t time.Time) {
	if s.Started.IsZero() || t.Before(s.Started) {
		s.Started = t
	}
	if t.After(s.Updated) {
		s.Updated = t
	}
}

func intPtr(n int) *int { return &n }
