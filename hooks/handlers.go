package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/correction"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
	"github.com/reflect-memory/reflect/workspace"
)

// watch is the correction watcher of one session: armed by a failed tool call, it turns the
// next prompt that reads as a correction into a learning.
type watch struct {
	Until  time.Time `json:"until"`
	Tool   string    `json:"tool"`
	Input  string    `json:"input"`  // redacted
	Output string    `json:"output"` // redacted
}

// WatchDir holds, per session, the correction watcher a failed tool call armed (state files,
// one a session).
const WatchDir = "state/watch"

func (e *event) watchPath() string { return WatchDir + "/" + queue.StateName(e.harness, e.SessionID) }

// onToolResult arms the watcher when a tool call failed. It writes only local state.
func (e *event) onToolResult() error {
	failed, output := toolFailed(e.ToolResponse)
	if e.judged {
		failed, output = e.failed, e.failure
	}
	if e.Event == "PostToolUseFailure" {
		failed, output = true, e.Error
	}
	if !failed || e.SessionID == "" {
		return nil
	}
	w := watch{
		Until:  e.now.Add(e.cfg.Hooks.CorrectionWindow.Std()).UTC(),
		Tool:   e.ToolName,
		Input:  queue.Clip(redact.String(inputText(e.ToolInput)), 600),
		Output: queue.Clip(redact.String(output), 1200),
	}
	data, _ := json.Marshal(w)
	e.report.Armed = true
	// volatile, as last-event.json: a watcher lives for minutes, and a crash that loses it (or
	// leaves a file that does not parse, which onPrompt ignores) costs one correction, while its
	// two fsyncs were 9% of a PostToolUse hook's CPU (perf over 80 hook processes)
	return e.repo.WriteVolatileState(e.watchPath(), data)
}

// onPrompt commits an explicit "remember: …" at once, and a correction when the watcher is
// armed; either is one commit, with no LLM.
//
// The prompt is redacted before anything is made of it. A title cut at 80 characters or
// capitalised ("hvs.…" becomes "Hvs.…") keeps a piece of a secret that no longer has the
// secret's shape, so redacting the title afterwards let it through to the commit subject;
// so did clipping a long prompt before redacting it. Redaction runs at about 100 MB/s, so
// even a pasted megabyte costs the prompt 10 ms.
func (e *event) onPrompt(ctx context.Context) error {
	prompt := redact.String(strings.TrimSpace(e.Prompt))
	if prompt == "" {
		return nil
	}
	if note, ok := correction.Remember(prompt); ok {
		if again, err := e.rememberedAgain(ctx, correction.Title(note), note); again || err != nil {
			return err
		}
		l := e.newLearning(correction.Title(note), learnings.KindRule, learnings.ConfidenceMedium)
		l.Body = note + "\n\n" + e.said() + "\n"
		return e.commitLearning(ctx, l, "remember")
	}
	data, err := e.repo.ReadState(e.watchPath())
	if err != nil || data == nil {
		return err
	}
	var w watch
	if json.Unmarshal(data, &w) != nil || e.now.After(w.Until) {
		return nil
	}
	c, ok := correction.Classify(prompt)
	if !ok {
		return nil
	}
	l := e.newLearning(c.Title(prompt), learnings.KindCorrection, learnings.ConfidenceLow)
	var b strings.Builder
	fmt.Fprintf(&b, "After `%s` failed", w.Tool)
	if w.Input != "" {
		fmt.Fprintf(&b, ":\n\n```\n%s\n```\n", w.Input)
	} else {
		b.WriteString(".\n")
	}
	if w.Output != "" {
		fmt.Fprintf(&b, "\nIt said:\n\n```\n%s\n```\n", w.Output)
	}
	fmt.Fprintf(&b, "\nthe user corrected the agent:\n\n> %s\n\n%s\n", strings.ReplaceAll(queue.Clip(prompt, 1500), "\n", "\n> "), e.said())
	l.Body = b.String()
	if err := e.commitLearning(ctx, l, "correction"); err != nil {
		return err
	}
	e.repo.RemoveVolatileState(e.watchPath()) // one correction per failure
	return nil
}

func (e *event) said() string {
	return fmt.Sprintf("_Captured from a %s session (%s) on %s; not yet reviewed._", e.harness, queue.Short(e.SessionID), e.now.UTC().Format("2006-01-02"))
}

func (e *event) newLearning(title string, kind learnings.Kind, conf learnings.Confidence) *learnings.Learning {
	l := learnings.New(title, e.project(), e.now)
	l.Kind, l.Confidence = kind, conf
	host, _ := os.Hostname()
	l.Source = learnings.Source{Harness: e.harness, Session: e.SessionID, Machine: host, Commit: e.workspace().Head}
	return l
}

func (e *event) commitLearning(ctx context.Context, l *learnings.Learning, trigger string) error {
	l.Source.Trigger = trigger
	msg := fmt.Sprintf("learn: %s (%s in %s)", l.Title, trigger, queue.Short(e.SessionID))
	if _, err := learnings.Create(ctx, e.repo, l, msg); err != nil {
		return err
	}
	e.report.Learned = l.ID
	return nil
}

// project is the learnings project of the session's working directory.
func (e *event) project() string { return e.workspace().Project }

// workspace is the session's working directory, read once per hook: with the latest commit
// subjects at a session start, whose recall draws on them. What could not be read is
// empty (outside git, or a directory that is gone: the global scope).
func (e *event) workspace() *workspace.Workspace {
	if e.ws == nil {
		n := 0
		if e.Event == "SessionStart" && e.engine != nil {
			n = e.engine.StartSubjects
		}
		w, _ := workspace.Read(e.CWD, n)
		e.ws = &w
	}
	return e.ws
}

// capture enqueues the session (one commit) unless its gates say there is nothing new.
func (e *event) capture(ctx context.Context, trigger string) error {
	if e.SessionID == "" {
		e.report.Skipped = "no session id"
		return nil
	}
	c := queue.Capture{
		Harness: e.harness, Session: e.SessionID, TranscriptPath: e.TranscriptPath,
		LastMessage: e.LastAssistantMessage, Trigger: trigger, Now: e.now,
		DigestBytes: e.cfg.Queue.DigestMaxBytes, GrowthBytes: int64(e.cfg.Queue.StopGrowthBytes),
	}
	if skip := queue.Gate(e.repo, c); skip != "" {
		e.report.Skipped = skip // before the workspace and the host name are read
		return nil
	}
	host, _ := os.Hostname()
	ws := e.workspace()
	c.Project, c.Branch, c.Commit, c.Machine = e.project(), ws.Branch, ws.Head, host
	c.Also = func(tx *gitstore.Tx, msgs []transcript.Message) { e.stageHandoff(tx, msgs, host) }
	c.Theirs = func(id string) bool { _, other := provenance.OtherAuthor(e.repo, id); return other }
	res, err := queue.Enqueue(ctx, e.repo, c)
	if err != nil {
		return err
	}
	if res.Committed {
		e.recordHandoff()
		e.report.Queued = res.Entry.ID
	} else {
		e.report.Skipped = res.Skipped
	}
	if res.NoRecords {
		e.log.Warn("capture skipped: not a transcript", "event", e.Event, "harness", e.harness, "session", e.SessionID, "reason", res.Skipped)
	}
	return nil
}
