package handoff

import (
	"encoding/json"
	"github.com/go-git/go-git/v5/plumbing"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Meta is what the capturing hook knows about the session.
type Meta struct {
	Harness, Session, Machine string
	Project, Branch, Commit   string
	CWD                       string // the session's directory: files under it are written relative to it
	Now                       time.Time
	// Written reports whether this machine wrote blob at path (WrittenHere): a handoff in
	// the tree that claims this session but was not written here (a remote can push one) is
	// not folded into it. Nil vouches for every file (tests, benchmarks).
	Written func(path string, blob plumbing.Hash) bool
}

// Bounds of what a handoff holds, in characters or items. The file stays under 16 KiB and
// the injected block is cut to its budget (1,200 characters by default) anyway; these keep
// the file readable in a diff.
const (
	maxTask      = 600
	maxConcluded = 600
	maxTodo      = 200
	maxTodos     = 20
	maxFiles     = 15
	maxFailed    = 3
	maxCommand   = 300
	maxError     = 300
	maxQuestion  = 300
	maxPath      = 300
)

// Build makes the handoff of a session from the messages of its latest capture, folded into
// prev, the handoff the same session wrote at an earlier capture (nil for none, or another
// session's): a capture reads only what is new since the last one, so the task, the files
// and an open failure come from prev unless the new messages change them.
func Build(msgs []transcript.Message, m Meta, prev *Handoff) *Handoff {
	h := &Handoff{Harness: m.Harness, Session: m.Session, Machine: m.Machine, Project: m.Project,
		Branch: m.Branch, Commit: m.Commit, Updated: m.Now.UTC()}
	same := prev != nil && prev.Session == m.Session && prev.Harness == m.Harness
	if same {
		h.Started, h.Messages, h.Prompts = prev.Started, prev.Messages, prev.Prompts
		h.Task, h.Direction, h.Concluded = prev.Task, prev.Direction, prev.Concluded
		h.SummaryBy = prev.SummaryBy // the task stays the rewritten one
		h.Todos, h.Questions = prev.Todos, prev.Questions
		h.Files = append([]string(nil), prev.Files...)
		h.Unresolved = append([]Failure(nil), prev.Unresolved...)
		h.Failed = append([]Failure(nil), prev.Failed...)
	}
	p := newPathWriter(m.CWD)
	// The loop keeps what it finds raw; only what the handoff ends up holding is redacted,
	// clipped and parsed (the latest to-do record, the last files and failures): a 200-turn
	// session took 1.9 ms of CPU when every prompt, path and to-do record was, 0.4 ms now.
	calls := map[string]transcript.Message{}
	tasks := taskList{}
	var task, direction, lastText string
	var taskWords map[string]bool
	if h.Task != "" {
		taskWords = wordSet(h.Task)
	}
	var files []string
	var todo *transcript.Message // the latest TodoWrite or update_plan
	var fails, failed []rawFailure
	answered := true // no words of the agent's since the person last spoke
	for i := range msgs {
		msg := &msgs[i]
		if msg.Sidechain {
			continue // a subagent's work is its parent's to report
		}
		if h.Started.IsZero() && !msg.Timestamp.IsZero() {
			h.Started = msg.Timestamp.UTC()
		}
		h.Messages++
		switch {
		case msg.Role == transcript.RoleUser && msg.Kind == transcript.KindText:
			text := strings.TrimSpace(msg.Text)
			if text == "" || queue.HostNoise(text) {
				continue
			}
			h.Prompts++
			switch {
			case h.Task == "" && task == "":
				task, taskWords = text, wordSet(text)
			case turns(taskWords, text):
				direction = text
			}
			answered = true
			h.Questions = nil // the person spoke after the agent's question
		case msg.Role == transcript.RoleAssistant && msg.Kind == transcript.KindText:
			if t := strings.TrimSpace(msg.Text); t != "" {
				lastText, answered = t, false
			}
		case msg.Kind == transcript.KindToolCall:
			if msg.CallID != "" {
				calls[msg.CallID] = *msg
			}
			for _, f := range editedFiles(msg.ToolName, msg.ToolInput) {
				files = addFile(files, f)
			}
			switch msg.ToolName {
			case "TodoWrite", "update_plan":
				todo = msg
			case "TaskCreate", "TaskUpdate":
				if todos, ok := todoState(msg.ToolName, msg.ToolInput, &tasks); ok {
					h.Todos, todo = todos, nil
				}
			}
		case msg.Kind == transcript.KindToolResult:
			call := calls[msg.CallID]
			tool := firstNonEmpty(msg.ToolName, call.ToolName)
			input := firstNonEmpty(call.ToolInput, msg.ToolInput)
			if tool == "TaskCreate" && !msg.IsError {
				tasks.created(msg.Text)
				h.Todos, todo = tasks.list(), nil
			}
			if !msg.IsError {
				h.Unresolved = resolve(h.Unresolved, tool, input)
				fails = resolveRaw(fails, tool, input)
				continue
			}
			f := rawFailure{tool, input, msg.Text, msg.ExitCode}
			h.Unresolved = resolve(h.Unresolved, tool, input)
			fails = append(resolveRaw(fails, tool, input), f)
			if failed = append(failed, f); len(failed) > maxFailed {
				failed = failed[1:]
			}
		}
	}
	if task != "" {
		h.Task = clip(task, maxTask)
	}
	if direction != "" {
		h.Direction = clip(direction, maxTask)
	}
	if todo != nil {
		if todos, ok := todoState(todo.ToolName, todo.ToolInput, &tasks); ok {
			h.Todos = todos
		}
	}
	if len(files) > maxFiles {
		files = files[len(files)-maxFiles:]
	}
	for _, f := range files {
		h.Files = addFile(h.Files, p.path(f))
	}
	if len(fails) > maxFailed {
		fails = fails[len(fails)-maxFailed:]
	}
	for _, f := range fails {
		h.Unresolved = append(h.Unresolved, f.failure())
	}
	for _, f := range failed {
		h.Failed = append(h.Failed, f.failure())
	}
	if lastText != "" {
		h.Concluded = clip(lastText, maxConcluded)
		if !answered {
			if q := question(lastText); q != "" {
				h.Questions = []string{clip(q, maxQuestion)}
			}
		}
	}
	if len(h.Todos) > maxTodos {
		h.Todos = h.Todos[len(h.Todos)-maxTodos:]
	}
	for i := range h.Todos {
		h.Todos[i].Text = clip(h.Todos[i].Text, maxTodo)
	}
	if len(h.Files) > maxFiles {
		h.Files = h.Files[len(h.Files)-maxFiles:]
	}
	if len(h.Unresolved) > maxFailed {
		h.Unresolved = h.Unresolved[len(h.Unresolved)-maxFailed:]
	}
	if len(h.Failed) > maxFailed {
		h.Failed = h.Failed[len(h.Failed)-maxFailed:]
	}
	if h.Started.IsZero() {
		h.Started = h.Updated
	}
	h.clean()
	return h
}

// rawFailure is a failed call as the transcript has it.
type rawFailure struct {
	tool, input, output string
	exit                *int
}

// failure redacts the call's input and output whole before it joins their lines: a private
// key cut to its first lines and joined with " · " loses the END line redaction finds the
// block by, and its body went into the handoff after the marker.
func (f rawFailure) failure() Failure {
	return Failure{Tool: redact.String(f.tool), Command: clip(oneLine(redact.String(f.input)), maxCommand),
		ExitCode: f.exit, Error: clip(firstLines(toolError(redact.String(f.output)), 3), maxError)}
}

// resolveRaw drops the raw failures the call (which worked) fixes.
func resolveRaw(fs []rawFailure, tool, input string) []rawFailure {
	out := fs[:0:0]
	for _, f := range fs {
		if !fixes(Failure{Tool: f.tool, Command: oneLine(f.input)}, tool, input) {
			out = append(out, f)
		}
	}
	return out
}

// pathWriter writes paths as the next session should read them: relative to the session's
// directory when under it; redaction writes the home directory as ~ (transcript/redact owns
// that rule), so a handoff names no user's home.
type pathWriter struct{ cwd string }

func newPathWriter(cwd string) pathWriter {
	return pathWriter{cwd: strings.TrimRight(filepath.ToSlash(cwd), "/")}
}

func (p pathWriter) path(s string) string {
	s = filepath.ToSlash(s)
	if len(p.cwd) > 1 {
		if rest, ok := strings.CutPrefix(s, p.cwd+"/"); ok {
			return clip(rest, maxPath)
		}
	}
	return clip(s, maxPath)
}

func addFile(files []string, f string) []string {
	if f == "" {
		return files
	}
	for i, g := range files {
		if g == f {
			files = append(files[:i:i], files[i+1:]...)
			break
		}
	}
	return append(files, f)
}

// editedFiles names the files a call edits or writes: Claude Code's Edit, MultiEdit, Write
// and NotebookEdit (file_path, notebook_path), Codex's apply_patch (its *** Add/Update/Delete
// File lines, and *** Move to).
func editedFiles(tool, input string) []string {
	switch tool {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		var in struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
		}
		if json.Unmarshal([]byte(input), &in) == nil {
			return nonEmpty(in.FilePath, in.NotebookPath)
		}
	case "apply_patch":
		patch := input
		var in struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(input), &in) == nil && in.Input != "" {
			patch = in.Input // the function-call form carries the patch in "input"
		}
		var out []string
		for _, line := range strings.Split(patch, "\n") {
			for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if f, ok := strings.CutPrefix(line, p); ok {
					out = append(out, strings.TrimSpace(f))
				}
			}
		}
		return out
	}
	return nil
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// todoState reads a to-do record: Claude Code's TodoWrite ({todos:[{content,status}]}),
// TaskUpdate ({taskId,status}) of its task list, Codex's update_plan
// ({plan:[{step,status}]}). TaskCreate is read from its result (its id).
func todoState(tool, input string, tasks *taskList) ([]Todo, bool) {
	switch tool {
	case "TodoWrite":
		var in struct {
			Todos []struct {
				Content string `json:"content"`
				Status  string `json:"status"`
			} `json:"todos"`
		}
		if json.Unmarshal([]byte(input), &in) != nil {
			return nil, false
		}
		out := make([]Todo, 0, len(in.Todos))
		for _, t := range in.Todos {
			out = append(out, Todo{Text: t.Content, Status: status(t.Status)})
		}
		return out, true
	case "update_plan":
		var in struct {
			Plan []struct {
				Step   string `json:"step"`
				Status string `json:"status"`
			} `json:"plan"`
		}
		if json.Unmarshal([]byte(input), &in) != nil {
			return nil, false
		}
		out := make([]Todo, 0, len(in.Plan))
		for _, t := range in.Plan {
			out = append(out, Todo{Text: t.Step, Status: status(t.Status)})
		}
		return out, true
	case "TaskCreate":
		var in struct {
			Subject string `json:"subject"`
		}
		if json.Unmarshal([]byte(input), &in) == nil && in.Subject != "" {
			tasks.pending = append(tasks.pending, in.Subject)
		}
	case "TaskUpdate":
		var in struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(input), &in) == nil && tasks.update(in.TaskID, in.Status) {
			return tasks.list(), true
		}
	}
	return nil, false
}

// status maps a host's status words onto the three reflect keeps.
func status(s string) string {
	switch strings.ToLower(s) {
	case "completed", "complete", "done", "resolved":
		return StatusCompleted
	case "in_progress", "in-progress", "active":
		return StatusInProgress
	}
	return StatusPending
}

// taskList follows Claude Code's task list within one capture: TaskCreate's result says
// "Task #N created successfully: subject", TaskUpdate names the task by that N.
type taskList struct {
	ids     []string
	items   map[string]*Todo
	pending []string // subjects of creates whose result is not read yet
}

var taskCreated = regexp.MustCompile(`Task #?(\w+) created`)

func (t *taskList) created(result string) {
	if len(t.pending) == 0 {
		return
	}
	subject := t.pending[0]
	t.pending = t.pending[1:]
	id := ""
	if m := taskCreated.FindStringSubmatch(result); m != nil {
		id = m[1]
	}
	if id == "" {
		return
	}
	if t.items == nil {
		t.items = map[string]*Todo{}
	}
	if _, ok := t.items[id]; !ok {
		t.ids = append(t.ids, id)
	}
	t.items[id] = &Todo{Text: subject, Status: StatusPending}
}

func (t *taskList) update(id, st string) bool {
	item, ok := t.items[strings.TrimPrefix(id, "#")]
	if !ok || st == "" {
		return false
	}
	if strings.EqualFold(st, "deleted") {
		delete(t.items, strings.TrimPrefix(id, "#"))
		return true
	}
	item.Status = status(st)
	return true
}

func (t *taskList) list() []Todo {
	out := []Todo{}
	for _, id := range t.ids {
		if it, ok := t.items[id]; ok {
			out = append(out, *it)
		}
	}
	return out
}

// fixes says whether a call that worked fixes an earlier failure. Another shell command
// fixes a failed one when it is the same program and subcommand (`go test ./db/...` after
// `go test ./...`), holds the failed command whole (`make test-db && go test ./db/...`), or
// shares a distinctive word with it (`make migrate` after `go run ./cmd/migrate up`: the
// user said to use it instead); any other tool, the same call again. A session's end that
// shows a failure then nothing but words is what is left open.
func fixes(f Failure, tool, input string) bool {
	if !isShell(tool) || !isShell(f.Tool) {
		return f.Tool == tool && f.Command == oneLine(input)
	}
	in := oneLine(input)
	if head(f.Command) == head(in) || strings.Contains(in, f.Command) {
		return true
	}
	distinct := map[string]bool{}
	for _, w := range words(f.Command) {
		if len(w) >= 4 && !commonWord[w] {
			distinct[w] = true
		}
	}
	for _, w := range words(in) {
		if distinct[w] {
			return true
		}
	}
	return false
}

// commonWord are words too common in commands to say two are about the same thing.
var commonWord = map[string]bool{"test": true, "tests": true, "build": true, "install": true, "check": true,
	"true": true, "false": true, "echo": true, "bash": true, "sudo": true, "with": true, "main": true,
	"help": true, "version": true, "list": true, "show": true, "exec": true, "node": true, "python": true, "python3": true}

// head is a command's program and subcommand.
func head(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}

func isShell(tool string) bool {
	switch tool {
	case "Bash", "exec_command", "shell", "shell_command", "local_shell", "container.exec":
		return true
	}
	return false
}

// resolve drops the failures the call (which worked) fixes.
func resolve(fs []Failure, tool, input string) []Failure {
	out := fs[:0:0]
	for _, f := range fs {
		if !fixes(f, tool, input) {
			out = append(out, f)
		}
	}
	return out
}

// turns says whether a later prompt turned the session to something else: a prompt of four
// words or more that shares under a third of its words with the task. "yes", "go on", "now
// run the tests too" keep the task; "switch to the refund export instead" does not.
func turns(tw map[string]bool, prompt string) bool {
	pw := words(prompt)
	if len(pw) < 4 {
		return false
	}
	shared := 0
	for _, w := range pw {
		if tw[w] {
			shared++
		}
	}
	return shared*3 < len(pw)
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[w] = true
	}
	return m
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// question is the agent's last paragraph when it asks the person something: it ends with a
// question mark.
func question(text string) string {
	text = strings.TrimSpace(text)
	paras := strings.Split(text, "\n\n")
	last := strings.TrimSpace(paras[len(paras)-1])
	if !strings.HasSuffix(last, "?") {
		return ""
	}
	return last
}

func toolError(s string) string {
	t := strings.TrimSpace(s)
	if in, ok := strings.CutPrefix(t, "<tool_use_error>"); ok {
		t = strings.TrimSuffix(in, "</tool_use_error>")
	}
	return t
}

// firstLines keeps the first n non-empty lines of s, less Claude Code's "Exit code N" (the
// exit code is kept apart).
func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !exitLine.MatchString(l) {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, " · ")
}

var exitLine = regexp.MustCompile(`^(Exit code|exit status):? \d+$`)

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// clip redacts before it cuts (a cut through a secret leaves a piece without its shape),
// then keeps at most n characters.
func clip(s string, n int) string { return queue.Clip(redact.String(s), n) }
