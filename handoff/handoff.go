// Package handoff owns the handoff: where the last session of a project and branch left off
// (the agent and machine, when, the task, what was concluded, what is still open, the files
// touched, the commands that last failed), built offline from the transcript at every
// capture and committed as handoffs/<project-key>/<branch>.md, one file per project and
// branch that the newer session overwrites (its git history is the project's session log).
// It reads transcripts and the knowledge repository; it decides nothing about when a hook
// injects (hooks does) and it never writes a byte redaction has not seen.
package handoff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
)

// Dir is where handoffs live in the repository.
const Dir = "handoffs"

// MaxFileBytes bounds a handoff file read from the repository: what reflect writes stays
// under 16 KiB (every field is clipped), anything larger was not written by it.
const MaxFileBytes = 64 << 10

// Handoff is the state one session left behind. Every text in it has been redacted and
// clipped; paths under the writer's home start with ~.
type Handoff struct {
	Harness  string    `yaml:"harness" json:"harness"` // claude-code | codex
	Session  string    `yaml:"session" json:"session"`
	Machine  string    `yaml:"machine" json:"machine"` // what the writer says; a remote may claim any
	Project  string    `yaml:"project" json:"project"`
	Branch   string    `yaml:"branch" json:"branch"`
	Commit   string    `yaml:"commit,omitempty" json:"commit,omitempty"`
	Started  time.Time `yaml:"started" json:"started"`
	Updated  time.Time `yaml:"updated" json:"updated"` // the capture that wrote it
	Messages int       `yaml:"messages" json:"messages"`
	Prompts  int       `yaml:"prompts" json:"prompts"`
	// Task is the session's first prompt; Direction the latest prompt that turned it to
	// something else (see turns).
	Task      string `yaml:"task" json:"task"`
	Direction string `yaml:"direction,omitempty" json:"direction,omitempty"`
	Concluded string `yaml:"concluded,omitempty" json:"concluded,omitempty"`
	// SummaryBy names the LLM extractor that rewrote the three lines above at a drain
	// (Rewrite); empty while they are the capture's own, cut from the transcript. A later
	// capture of the same session keeps the rewritten task and may replace the other two.
	SummaryBy string `yaml:"summary_by,omitempty" json:"summary_by,omitempty"`
	// Todos is the host's own to-do state, as its latest record had it: Claude Code's
	// TodoWrite or task list (TaskCreate/TaskUpdate), Codex's update_plan.
	Todos []Todo `yaml:"todos,omitempty" json:"todos,omitempty"`
	// Unresolved are failed calls nothing after them fixed; Questions what the agent asked
	// last that got no answer. Both are "open" only when there is no to-do list.
	Unresolved []Failure `yaml:"unresolved,omitempty" json:"unresolved,omitempty"`
	Questions  []string  `yaml:"questions,omitempty" json:"questions,omitempty"`
	Files      []string  `yaml:"files,omitempty" json:"files,omitempty"` // edited or written, latest last
	// Failed are the commands that last failed, latest last, fixed or not.
	Failed []Failure `yaml:"failed,omitempty" json:"failed,omitempty"`
}

// Todo is one item of the host's to-do list.
type Todo struct {
	Text   string `yaml:"text" json:"text"`
	Status string `yaml:"status" json:"status"` // pending | in_progress | completed
}

// Failure is a failed tool call.
type Failure struct {
	Tool     string `yaml:"tool" json:"tool"`
	Command  string `yaml:"command" json:"command"`
	ExitCode *int   `yaml:"exit_code,omitempty" json:"exit_code,omitempty"`
	Error    string `yaml:"error,omitempty" json:"error,omitempty"` // its first lines
}

// Todo statuses.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// Open returns the to-dos not completed.
func (h *Handoff) Open() []Todo {
	var out []Todo
	for _, t := range h.Todos {
		if t.Status != StatusCompleted {
			out = append(out, t)
		}
	}
	return out
}

// Useful says whether the session left anything to hand off: a file touched, a to-do
// open, a failure unresolved or a question unanswered. A question answered and nothing
// else is not worth replacing a useful handoff with.
func (h *Handoff) Useful() bool {
	return len(h.Files) > 0 || len(h.Open()) > 0 || len(h.Unresolved) > 0 || len(h.Questions) > 0
}

// Path is the file of the handoff of project key and branch: the branch is one path
// segment, every byte outside [A-Za-z0-9._-] and a leading dot written %XX, so that
// feat/refunds and feat%2Frefunds never meet and a project key's own segments stay apart.
func Path(project, branch string) string {
	return Dir + "/" + project + "/" + BranchFile(branch)
}

// Detached stands for the branch of a session whose HEAD names none.
const Detached = "HEAD"

// BranchFile is the file name of branch's handoff.
func BranchFile(branch string) string {
	if branch == "" {
		branch = Detached
	}
	var b strings.Builder
	for i := 0; i < len(branch); i++ {
		c := branch[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	name := b.String()
	if len(name) > learnings.MaxSegmentLen || gitstore.IsDeviceName(name) || strings.HasSuffix(name, ".") {
		sum := sha256.Sum256([]byte(branch))
		name = name[:min(len(name), 60)] + "%h" + hex.EncodeToString(sum[:8])
	}
	return name + ".md"
}

// ErrNotHandoff means a file is not a handoff reflect could have written.
var ErrNotHandoff = errors.New("not a handoff")

// Parse reads a handoff file; path names it in errors. Only the frontmatter is read: the
// body is rendered from it for people reading the file or its diff.
func Parse(path string, data []byte) (*Handoff, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %d bytes, over %d", path, ErrNotHandoff, len(data), MaxFileBytes)
	}
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, fmt.Errorf("%s:1: %w: no frontmatter", path, ErrNotHandoff)
	}
	front, _, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return nil, fmt.Errorf("%s: %w: the frontmatter does not end", path, ErrNotHandoff)
	}
	var h Handoff
	if err := yaml.Unmarshal(front, &h); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotHandoff, err)
	}
	switch {
	case h.Session == "":
		return nil, fmt.Errorf("%s: %w: field session is empty", path, ErrNotHandoff)
	case h.Updated.IsZero():
		return nil, fmt.Errorf("%s: %w: field updated is empty", path, ErrNotHandoff)
	case learnings.ValidProjectKey(h.Project) != nil:
		return nil, fmt.Errorf("%s: %w: field project: %v", path, ErrNotHandoff, learnings.ValidProjectKey(h.Project))
	}
	h.clean()
	return &h, nil
}

// clean drops control characters (an escape sequence a terminal or a model would act on)
// from every text, keeping newlines and tabs: a handoff comes from a transcript or a remote.
func (h *Handoff) clean() {
	for _, s := range []*string{&h.Harness, &h.Session, &h.Machine, &h.Branch, &h.Commit, &h.Task, &h.Direction, &h.Concluded, &h.SummaryBy} {
		*s = printable.String(*s)
	}
	for i := range h.Todos {
		h.Todos[i].Text, h.Todos[i].Status = printable.String(h.Todos[i].Text), printable.String(h.Todos[i].Status)
	}
	for _, fs := range [][]Failure{h.Unresolved, h.Failed} {
		for i := range fs {
			fs[i].Tool, fs[i].Command, fs[i].Error = printable.String(fs[i].Tool), printable.String(fs[i].Command), printable.String(fs[i].Error)
		}
	}
	for i := range h.Questions {
		h.Questions[i] = printable.String(h.Questions[i])
	}
	for i := range h.Files {
		h.Files[i] = printable.String(h.Files[i])
	}
}

// Render is the committed form: the facts as YAML frontmatter, then the same as markdown.
func (h *Handoff) Render() ([]byte, error) {
	front, err := yaml.Marshal(h)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(front)
	b.WriteString("---\n\n")
	b.WriteString(h.Markdown())
	return b.Bytes(), nil
}

// Markdown is the handoff for a person: `reflect handoff` prints it, the file's body holds it.
func (h *Handoff) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Handoff: %s on %s\n\n", h.Project, branchName(h.Branch))
	fmt.Fprintf(&b, "%s session %s on %s, %s to %s UTC, %d messages, %d prompts.\n",
		HostName(h.Harness), h.Session, h.Machine, h.Started.UTC().Format("2006-01-02 15:04"), h.Updated.UTC().Format("2006-01-02 15:04"), h.Messages, h.Prompts)
	if h.Commit != "" {
		fmt.Fprintf(&b, "HEAD was %s.\n", shortCommit(h.Commit))
	}
	section := func(title, text string) {
		if text != "" {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, text)
		}
	}
	section("Task", quote(h.Task))
	section("Then", quote(h.Direction))
	section("Concluded", quote(h.Concluded))
	if h.SummaryBy != "" {
		fmt.Fprintf(&b, "\n(Summary lines rewritten by %s when the session was drained.)\n", h.SummaryBy)
	}
	if len(h.Todos) > 0 {
		var t strings.Builder
		for _, td := range h.Todos {
			fmt.Fprintf(&t, "- [%s] %s\n", mark(td.Status), oneLine(td.Text))
		}
		section("To-dos", strings.TrimRight(t.String(), "\n"))
	}
	if len(h.Unresolved) > 0 {
		section("Unresolved failures", failures(h.Unresolved))
	}
	if len(h.Questions) > 0 {
		section("Unanswered", quote(strings.Join(h.Questions, "\n")))
	}
	if len(h.Files) > 0 {
		section("Files", "- "+strings.Join(h.Files, "\n- "))
	}
	if len(h.Failed) > 0 {
		section("Last failed", failures(h.Failed))
	}
	return b.String()
}

func failures(fs []Failure) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "- `%s`%s", oneLine(f.Command), exit(f.ExitCode))
		if f.Error != "" {
			fmt.Fprintf(&b, ": %s", oneLine(f.Error))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func exit(code *int) string {
	if code == nil {
		return ""
	}
	return fmt.Sprintf(" (exit %d)", *code)
}

func mark(status string) string {
	switch status {
	case StatusCompleted:
		return "x"
	case StatusInProgress:
		return "~"
	}
	return " "
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	return "> " + strings.ReplaceAll(s, "\n", "\n> ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func branchName(b string) string {
	if b == "" {
		return "a detached HEAD"
	}
	return b
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// HostName is the agent's name as people say it.
func HostName(harness string) string {
	switch harness {
	case "claude-code":
		return "Claude Code"
	case "codex":
		return "Codex"
	}
	return harness
}

// Newer picks, of two versions of one handoff file, the one a merge keeps: the later
// session (its updated time), then the version a drain rewrote the summary of, then the
// larger bytes, so that every machine merging the same two versions keeps the same one.
// The other stays in git history.
func Newer(a, b []byte) []byte {
	ha, ea := Parse("a", a)
	hb, eb := Parse("b", b)
	switch {
	case ea == nil && eb != nil:
		return a
	case eb == nil && ea != nil:
		return b
	case ea == nil && eb == nil && ha.Updated.After(hb.Updated):
		return a
	case ea == nil && eb == nil && hb.Updated.After(ha.Updated):
		return b
	case ea == nil && eb == nil && ha.SummaryBy != "" && hb.SummaryBy == "":
		return a // the same capture, its summary rewritten by a drain on one side
	case ea == nil && eb == nil && hb.SummaryBy != "" && ha.SummaryBy == "":
		return b
	}
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}
