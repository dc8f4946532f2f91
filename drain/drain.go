// Package drain turns queue entries into learnings: the worker (oldest first, under a drain
// lock, one commit per entry), the extractors (heuristic, claude, codex, command:PATH),
// retries with backoff, caps on LLM use, the pause after an auth or billing error, and the
// dedupe and supersede rules applied before anything is written.
package drain

import (
	"context"
	"errors"

	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Proposal is one learning an extractor proposes for an entry.
type Proposal struct {
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Kind       string   `json:"kind"`       // fix | rule | decision | failure | recipe | preference | correction
	Confidence string   `json:"confidence"` // high | medium | low
	Tags       []string `json:"tags,omitempty"`
	Entities   []string `json:"entities,omitempty"`
	Files      []string `json:"files,omitempty"`
	// Triggers are the words the lesson will be asked for by: error strings, identifiers,
	// commands, the task it applies to.
	Triggers []string `json:"triggers,omitempty"`
	// Global: the lesson applies to every project, not only the entry's.
	Global bool `json:"global,omitempty"`
	// DuplicateOf is the id of an existing learning that already says this.
	DuplicateOf string `json:"duplicate_of,omitempty"`
	// Supersedes are ids of existing learnings this one replaces.
	Supersedes []string `json:"supersedes,omitempty"`
	// evidence: the body only records what the session showed (the heuristic's fixes,
	// corrections and preferences: output, counts, the prompts quoted); the title states the
	// lesson.
	evidence bool
	// hookTitle: the title the correction hook gave the same lesson when the heuristic titles
	// it otherwise; a learning of that title is superseded by this one.
	hookTitle string
	// anchors are its files at the entry's commit (anchors.go); the entry's commit is the
	// learning's source.commit.
	anchors []learnings.Anchor
}

// redact replaces the secrets in what an extractor wrote. Its input was redacted, but an LLM
// extractor is a CLI agent that can read files and run commands of its own accord, and what
// it answers goes into learnings, tags and commit subjects.
func (p *Proposal) redact() {
	p.Title, p.Body = redact.String(p.Title), redact.String(p.Body)
	for _, list := range [][]string{p.Tags, p.Entities, p.Files, p.Triggers} {
		for i := range list {
			list[i] = redact.String(list[i])
		}
	}
}

// Existing is a learning of the entry's project (or a global one) that an extractor is
// shown as a candidate to deduplicate against or supersede.
type Existing struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	Body  string `json:"body"` // clipped
	// Stale says which of its files changed since it was learned, and the commits that
	// changed them (anchors.go); empty when they did not, or it has none.
	Stale string `json:"stale,omitempty"`
}

// Input is what an extractor works from.
type Input struct {
	Entry    *queue.Entry
	Existing []Existing
	// Handoff is the summary the entry's handoff holds now, cut from the transcript at
	// capture, when the worker asks an LLM extractor to rewrite it in the same call: only
	// when the entry's latest capture wrote the project and branch's current handoff.
	Handoff *handoff.Summary
}

// Reply is an extractor's whole answer.
type Reply struct {
	Learnings []Proposal
	// Handoff is the rewritten summary of the entry's handoff, checked (handoff.Summary.Check);
	// nil when the answer has none, or one that cannot be used (HandoffNote says why).
	Handoff     *handoff.Summary
	HandoffNote string
}

// replier is an extractor whose answer may carry more than learnings (the LLM ones).
type replier interface {
	Reply(ctx context.Context, in Input) (Reply, Usage, error)
}

// reply runs ext and returns its whole answer; an extractor that only proposes learnings
// answers no handoff summary.
//
// The answer comes back redacted: everything the worker does with it before apply — the
// grounding check's missing terms, the titles of proposals dropped, the handoff's note —
// reaches the drain's commit message or last.json, so no raw byte of it may go further.
func reply(ctx context.Context, ext Extractor, in Input) (Reply, Usage, error) {
	var a Reply
	var u Usage
	var err error
	if r, ok := ext.(replier); ok {
		a, u, err = r.Reply(ctx, in)
	} else {
		a.Learnings, u, err = ext.Extract(ctx, in)
	}
	a.redact()
	return a, u, err
}

// redact replaces the secrets in every text of an answer.
func (a *Reply) redact() {
	for i := range a.Learnings {
		a.Learnings[i].redact()
	}
	if a.Handoff != nil {
		s := *a.Handoff
		s.Task, s.Direction, s.Concluded = redact.String(s.Task), redact.String(s.Direction), redact.String(s.Concluded)
		a.Handoff = &s
	}
	a.HandoffNote = redact.String(a.HandoffNote)
}

// Usage is what one extraction cost, for the daily caps.
type Usage struct {
	Calls       int `json:"calls"`
	InputTokens int `json:"input_tokens"` // estimated: bytes of prompt / 4
}

// Extractor finds the lessons in an entry.
type Extractor interface {
	Name() string
	// LLM reports whether the extractor calls a model: its calls count against the caps
	// and an auth or billing error pauses it.
	LLM() bool
	Extract(ctx context.Context, in Input) ([]Proposal, Usage, error)
}

// Errors an extractor returns, wrapped with the detail.
var (
	// ErrTransient: worth trying again (a time-out, a crash, an overloaded service).
	ErrTransient = errors.New("transient extractor failure")
	// ErrBadAnswer: the answer could not be used (no JSON, wrong shape). Retried, then the
	// entry fails for good.
	ErrBadAnswer = errors.New("unusable extractor answer")
	// ErrPause: authentication, quota or billing; LLM draining stops until a manual retry.
	ErrPause = errors.New("extractor needs attention (auth, quota or billing)")
)
