package drain

import (
	"context"
	"os/exec"

	"github.com/reflect-memory/reflect/drain/drainstate"
)

// auto is drain.extractor = "auto", the default: a model reads what only a model can (the
// lessons of most sessions are in prose), through the CLI of the host that made the capture —
// claude for Claude Code's, codex for Codex's, the other one when only one is installed —
// within the daily caps; the offline heuristic drains when neither CLI is on PATH, while LLM
// draining is paused, and once a cap is reached.
type auto struct {
	claude, codex Extractor
	lookPath      func(string) (string, error)
}

// Auto is the extractor "auto" names.
func Auto(o LLMOptions) Extractor {
	return &auto{claude: Claude(o), codex: Codex(o), lookPath: exec.LookPath}
}

func (x *auto) Name() string { return "auto" }

// LLM is true: what auto runs for an entry is decided by For, and the worker asks that.
func (x *auto) LLM() bool { return true }

// Extract runs For(in.Entry)'s extractor (the worker resolves it first; this is for callers
// that use an Extractor alone).
func (x *auto) Extract(ctx context.Context, in Input) ([]Proposal, Usage, error) {
	return x.For(in.Entry.Harness).Extract(ctx, in)
}

// Reply is For(in.Entry)'s extractor's whole answer.
func (x *auto) Reply(ctx context.Context, in Input) (Reply, Usage, error) {
	return reply(ctx, x.For(in.Entry.Harness), in)
}

// For is the extractor auto uses for a capture of harness (drainstate.AutoCLI): the host's own
// CLI when it is on PATH, the other host's when only that one is, else the heuristic.
func (x *auto) For(harness string) Extractor {
	switch drainstate.AutoCLI(harness, x.lookPath) {
	case x.claude.Name():
		return x.claude
	case x.codex.Name():
		return x.codex
	}
	return Heuristic()
}

// resolver is an extractor that picks another per entry (auto).
type resolver interface {
	For(harness string) Extractor
}
