package drain

// Lessons said in prose: the sentences of a prompt that state a lasting fact or rule
// (correction.Statements), grouped with the sentences that lean on them. Only the person's
// prompts are read, never the agent's words.

import (
	"strings"

	"github.com/reflect-memory/reflect/correction"
	"github.com/reflect-memory/reflect/queue"
)

// statementGroups joins each statement that leans on the one before it ("never commit it")
// to that one; a leaning statement with nothing before it in the prompt is dropped (it
// names nothing of its own).
func statementGroups(ss []correction.Statement) [][]correction.Statement {
	var out [][]correction.Statement
	for _, s := range ss {
		if s.Continues {
			if len(out) > 0 {
				out[len(out)-1] = append(out[len(out)-1], s)
			}
			continue
		}
		out = append(out, []correction.Statement{s})
	}
	return out
}

// statementProposal is a learning from one group of statements of a prompt: a rule when one
// of them is explicit (always, never …), otherwise a fact, low until it is said again.
func statementProposal(prompt string, g []correction.Statement) (Proposal, bool) {
	title := correction.Title(g[0].Text)
	if title == "" {
		return Proposal{}, false
	}
	conf := "low"
	var texts []string
	for _, s := range g {
		if s.Rule {
			conf = "medium"
		}
		texts = append(texts, s.Text)
	}
	var col collector
	for _, s := range texts {
		col.prose(s)
	}
	var b strings.Builder
	b.WriteString(title + ".\n\nThe user said:\n\n> " + strings.ReplaceAll(clipWords(strings.TrimSpace(prompt), hBodySaid), "\n", "\n> ") + "\n")
	return Proposal{
		Title: title, Body: b.String(), Kind: "rule", Confidence: conf,
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, Global: saysGlobal(strings.Join(texts, "\n")),
		Triggers: proseTriggers(texts...), evidence: true,
	}, true
}

// overlapsNote reports whether a statement says what a remember note or a correction of
// the same prompt already carries.
func overlapsNote(s correction.Statement, note string) bool {
	if note == "" {
		return false
	}
	if strings.Contains(strings.ToLower(note), strings.ToLower(s.Text)) || strings.Contains(strings.ToLower(s.Text), strings.ToLower(note)) {
		return true
	}
	return overlap(titleWords(s.Text), titleWords(note)) >= 0.5
}

// promptStatements are the proposals of a prompt's statements that say more than its
// remember note (note; "" for none) does.
func promptStatements(n queue.Note, note string) []Proposal {
	var out []Proposal
	for _, g := range statementGroups(correction.Statements(n.Text)) {
		if overlapsNote(g[0], note) {
			continue
		}
		if note != "" && !g[0].Rule {
			continue // beside an explicit note, only another explicit rule is a lesson of its own
		}
		if p, ok := statementProposal(n.Text, g); ok {
			out = append(out, p)
		}
	}
	return out
}
