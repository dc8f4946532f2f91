package drain

// The heuristic extractor: offline, no LLM, deterministic, and precise before it is complete:
// a memory of junk is worse than an empty one (issue 15: on six real sessions the first
// version proposed one learning, and it was false). It walks the notes of an entry's digest
// turn by turn (a turn is a prompt and the notes up to the next prompt; a subagent's part of
// a turn is kept apart by its Agent) and proposes
//
//   - corrections: the first prompt after a turn with failed attempts, when
//     correction.Classify reads it as one (medium: the hook may already have committed it
//     at low confidence, the drain sees what failed and what worked after). When the prompt
//     names the command to use instead and the turn then ran it, it is titled by it and
//     supersedes the hook's learning of the same prompt;
//   - rules: a prompt with an explicit note, correction.Remember (high: the user said it);
//   - lessons said in prose (statements.go): the sentences of a prompt that state a lasting
//     fact of the project, its tooling or its environment, or a standing rule
//     (correction.Statements), never the agent's words; a fact is low until said again, an
//     explicit rule (always, never, we never …) medium;
//   - fixes (fixpairs.go): a failed shell command and the related command that worked after
//     it (medium; low when the turn still has later failures of that tool). Related means
//     evidently another try (commands.go): the same program and subcommand, a distinctive
//     argument shared, or a command the failure's output named; never a rerun, a wait, the
//     failed command rerun with more checks after it, a narrower or weaker one (-v, -run X,
//     -race dropped, --no-verify), one the output spelled out whole, nor anything after an
//     edit. A failure whose lesson a correction already carries is merged into it;
//   - what a failed tool call or a hook taught (toolfailures.go): a hook's refusal of a call
//     (its reason is a rule, medium), a hook's feedback that asks for something (low), a Read
//     over the size limit that the agent then read in parts (low);
//   - preferences: the same imperative instruction ("use X", "don't Y", "always Z", "X, not
//     Y") in two or more prompts (medium).
//
// Not every non-zero exit is a failure (benignExit): a grep that found nothing, files that
// differ, a false test, a probe for a program or a service that is not there (yet). A
// failure with nothing after it that shows what worked gives no proposal: "X failed" with no
// fix is not a lesson anyone would write down, and the LLM extractors are there for subtler
// sessions. Every proposal carries triggers (triggers.go): the words a later prompt will use.
//
// Proposals are ordered by the note that gave them (a preference by its second prompt).
// Proposals of one entry whose titles are near-identical are merged into the first; a proposal
// whose title is near-identical to an existing learning's gets DuplicateOf. Near-identical:
// the title's words after index.Analyze (minus a few fillers such as "please") overlap by at
// least 0.8 of the larger set, so titles of four words or fewer must have the same words.
//
// fixtures/extraction/ measures it (TestExtractionSuite); its README says how.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reflect-memory/reflect/correction"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

// Heuristic returns the built-in offline extractor.
func Heuristic() Extractor { return heuristic{} }

type heuristic struct{}

func (heuristic) Name() string { return "heuristic" }
func (heuristic) LLM() bool    { return false }

// Extract never fails for an entry; a nil entry is a bad answer.
func (heuristic) Extract(_ context.Context, in Input) ([]Proposal, Usage, error) {
	if in.Entry == nil {
		return nil, Usage{}, fmt.Errorf("%w: no entry to extract from", ErrBadAnswer)
	}
	ps := heuristicProposals(in.Entry.Digest.Notes)
	markDuplicates(ps, in.Existing)
	return ps, Usage{}, nil
}

// Bounds of what a proposal shows.
const (
	hTitleCmd     = 48  // runes of the failed command in a fix title
	hTitleWorked  = 56  // runes of the command that worked in a fix title
	hFixTitleMax  = 140 // runes of a fix title
	hBodyCmd      = 160 // runes of a command in a body
	hBodyLine     = 200 // runes of an output line in a body
	hBodySaid     = 400 // runes of the user's words in a body
	hBodyWorked   = 400 // runes of the conclusion that says what worked
	hMaxFailures  = 3   // failures listed in a correction
	hMaxTags      = 6
	hMaxEntities  = 10
	hMaxFiles     = 10
	hSimilar      = 0.8 // word overlap of near-identical titles and instructions
	hMinInstrWord = 2   // analyzed words an instruction needs to count
)

// turn is a prompt (-1 for notes before the first prompt) and its notes: notes[from:to].
type turn struct{ prompt, from, to int }

func splitTurns(notes []queue.Note) []turn {
	var ts []turn
	cur := turn{prompt: -1}
	for i, n := range notes {
		if n.Kind != queue.NotePrompt {
			continue
		}
		cur.to = i
		if cur.prompt >= 0 || cur.to > cur.from {
			ts = append(ts, cur)
		}
		cur = turn{prompt: i, from: i + 1}
	}
	cur.to = len(notes)
	if cur.prompt >= 0 || cur.to > cur.from {
		ts = append(ts, cur)
	}
	return ts
}

// anchored is a proposal and the note that gave it, for ordering.
type anchored struct {
	at int
	p  Proposal
}

func heuristicProposals(notes []queue.Note) []Proposal {
	turns := splitTurns(notes)
	var out []anchored

	// Failure → fix chains, each failure in at most one.
	fixes := map[int]*fixChain{} // by first failure
	inChain := map[int]bool{}
	for _, t := range turns {
		for i := t.from; i < t.to; i++ {
			if notes[i].Kind != queue.NoteFailure || inChain[i] {
				continue
			}
			if fc, ok := findFix(notes, t, i); ok {
				fixes[i] = fc
				for _, f := range fc.failures {
					inChain[f] = true
				}
			}
		}
	}

	consumed := map[int]bool{} // failures whose lesson a correction or a hook's rule carries
	for ti, t := range turns {
		if t.prompt < 0 {
			continue
		}
		pn := notes[t.prompt]
		if hostText(pn.Text) {
			continue
		}
		note, remembered := correction.Remember(pn.Text)
		if remembered {
			if p, ok := ruleProposal(note); ok {
				out = append(out, anchored{t.prompt, p})
			}
		} else if ti > 0 {
			if fails := turnFailures(notes, turns[ti-1]); len(fails) > 0 {
				if c, ok := correction.Classify(pn.Text); ok {
					if p, ok := correctionProposal(notes, turns, ti, c, fails, fixes); ok {
						out = append(out, anchored{t.prompt, p})
						for _, f := range fails {
							consumed[f] = true
						}
						continue // the correction quotes the prompt whole
					}
				}
			}
		}
		for _, p := range promptStatements(pn, note) {
			out = append(out, anchored{t.prompt, p})
		}
	}

	for _, t := range turns {
		if t.prompt >= 0 && hookFeedbackRe.MatchString(notes[t.prompt].Text) {
			if p, ok := hookNoteRule(notes[t.prompt]); ok {
				out = append(out, anchored{t.prompt, p})
			}
		}
		for i := t.from; i < t.to; i++ {
			n := notes[i]
			switch {
			case n.Kind == queue.NoteHook:
				if p, ok := hookNoteRule(n); ok {
					out = append(out, anchored{i, p})
				}
				continue
			case n.Kind != queue.NoteFailure || consumed[i] || inChain[i] && fixes[i] == nil:
				continue
			}
			if p, ok := hookRule(notes, i, fixes[i]); ok {
				out = append(out, anchored{i, p})
				continue
			}
			if p, ok := readTooLarge(notes, t, i); ok {
				out = append(out, anchored{i, p})
				continue
			}
			fc := fixes[i]
			if fc == nil || slices.ContainsFunc(fc.failures, func(f int) bool { return consumed[f] }) {
				continue
			}
			out = append(out, anchored{i, fixProposal(notes, fc)})
		}
	}

	out = append(out, preferenceProposals(notes, turns)...)
	slices.SortStableFunc(out, func(a, b anchored) int { return a.at - b.at })
	return mergeSimilar(out)
}

// hostText recognises user-role text a host wrote that an older reader may still take for a
// prompt: the summary a compaction leaves, a hook's feedback.
func hostText(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"This session is being continued from a previous conversation", "Stop hook feedback:",
		"SubagentStop hook feedback:", "<system-reminder>", "<task-notification>", "Caveat: The messages below"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// turnFailures are the failed attempts of a turn, and the calls the user refused in it.
func turnFailures(notes []queue.Note, t turn) []int {
	var out []int
	for i := t.from; i < t.to; i++ {
		if n := notes[i]; n.Kind == queue.NoteFailure && (isRejection(n) || isFailure(n)) {
			out = append(out, i)
		}
	}
	return out
}

func ruleProposal(note string) (Proposal, bool) {
	title := correction.Title(note)
	if title == "" {
		return Proposal{}, false
	}
	var c collector
	c.prose(note)
	return Proposal{
		Title: title, Body: strings.TrimSpace(note) + "\n", Kind: "rule", Confidence: "high",
		Tags: c.tagList(), Entities: c.entities(), Files: c.files.list, Global: saysGlobal(note),
		Triggers: proseTriggers(note),
	}, true
}

func correctionProposal(notes []queue.Note, turns []turn, ti int, c correction.Verdict, fails []int, fixes map[int]*fixChain) (Proposal, bool) {
	t := turns[ti]
	prompt := notes[t.prompt].Text
	// The title the hook gives the same correction, so that its low-confidence learning is
	// found as a duplicate.
	title := c.Title(prompt)
	if title == "" {
		return Proposal{}, false
	}
	hookTitle := ""
	if c.Instead == "" {
		if alt, avoid, ok := namedAlternative(notes, t, fails, prompt); ok {
			hookTitle, title = title, "Use "+code(alt)+" instead of "+code(avoid)
		}
	}

	var col collector
	var b strings.Builder
	b.WriteString("What failed:\n\n")
	seen := map[string]bool{}
	listed := 0
	for _, f := range fails {
		n := notes[f]
		key := n.Tool + "\x00" + strings.TrimSpace(n.Input)
		if seen[key] {
			continue
		}
		seen[key] = true
		col.failure(notes, f)
		if listed == hMaxFailures {
			continue
		}
		listed++
		b.WriteString("- " + failureLine(n))
		if fc := fixes[f]; fc != nil {
			w := notes[fc.success]
			col.command(w.Tool, w.Input)
			b.WriteString("; then " + code(clipLine(w.Input, hBodyCmd)) + " worked")
		}
		b.WriteString("\n")
	}
	if more := len(seen) - listed; more > 0 {
		fmt.Fprintf(&b, "- and %d more\n", more)
	}
	col.prose(prompt)
	for _, w := range []string{c.Instead, c.Avoid} {
		if isWord(w) {
			col.named(strings.ToLower(w))
		}
	}
	b.WriteString("\nThe user said:\n\n> " + strings.ReplaceAll(clipWords(strings.TrimSpace(prompt), hBodySaid), "\n", "\n> ") + "\n")
	if worked, ok := whatWorked(notes, t, fixes); ok {
		col.toolsIn(worked) // its files are what the agent changed or wrote down, not what the lesson is about
		b.WriteString("\nWhat worked after: " + worked + "\n")
	}
	var tr triggerSet
	for _, w := range []string{c.Instead, c.Avoid} {
		if w = strings.Trim(w, "`"); w != "" && len([]rune(w)) <= 40 {
			tr.add(w)
		}
	}
	for _, f := range fails {
		if n := notes[f]; shellTool(n.Tool) && !isRejection(n) {
			commandTriggers(&tr, n.Input)
		}
	}
	for _, s := range proseTriggers(prompt) {
		tr.add(s)
	}
	return Proposal{
		Title: title, Body: b.String(), Kind: "correction", Confidence: "medium",
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, evidence: true,
		Triggers: tr.list, hookTitle: hookTitle,
	}, true
}

// namedAlternative finds, in a correction that names no alternative in so many words, the
// command it names instead of the one that failed: a command of the same program in the
// prompt ("make test-unit runs everything…" after `make test` failed) that the rest of the
// turn then ran or reported.
func namedAlternative(notes []queue.Note, t turn, fails []int, prompt string) (alt, avoid string, ok bool) {
	var after strings.Builder
	for i := t.from; i < t.to; i++ {
		after.WriteString(notes[i].Input + "\n" + notes[i].Text + "\n")
	}
	rest := after.String()
	for _, f := range fails {
		n := notes[f]
		if !shellTool(n.Tool) {
			continue
		}
		for _, s := range attempts(n.Input) {
			p, sub := s.program()
			if p == "" {
				continue
			}
			failed := strings.TrimSpace(p + " " + sub)
			re := regexp.MustCompile(`(?i)(?:^|[\s"'(\x60])(` + regexp.QuoteMeta(p) + `(?:\s+[\w.:/@=-]+){1,3})`)
			for _, m := range re.FindAllStringSubmatch(prompt, -1) {
				cand := strings.TrimRight(m[1], ".,;:")
				for strings.Count(cand, " ") > 0 && !strings.Contains(rest, cand) {
					cand = cand[:strings.LastIndexByte(cand, ' ')]
				}
				if strings.Count(cand, " ") == 0 || strings.EqualFold(cand, failed) || strings.HasPrefix(failed+" ", cand+" ") ||
					!strings.Contains(rest, cand) {
					continue
				}
				return cand, failed, true
			}
		}
	}
	return "", "", false
}

// whatWorked is the end of the turn after a correction: its conclusion, when no failure in
// the turn was left without a fix.
func whatWorked(notes []queue.Note, t turn, fixes map[int]*fixChain) (string, bool) {
	conclusion := ""
	fixed := map[int]bool{}
	for i := t.from; i < t.to; i++ {
		n := notes[i]
		switch n.Kind {
		case queue.NoteConclusion:
			conclusion = n.Text
		case queue.NoteFailure:
			if fc := fixes[i]; fc != nil {
				for _, f := range fc.failures {
					fixed[f] = true
				}
			}
			if !fixed[i] {
				return "", false
			}
		}
	}
	conclusion = strings.TrimSpace(conclusion)
	if conclusion == "" {
		return "", false
	}
	return clipWords(strings.Join(strings.Fields(conclusion), " "), hBodyWorked), true
}

var globalRe = lazyregexp.New(`(?i)\b(?:in every project|every project|in all (?:my |of my |your )?(?:projects|repos|repositories)|all projects|across (?:all )?projects|every repo(?:sitory)?|everywhere)\b`)

// saysGlobal: only a note that says in so many words that it holds in every project.
func saysGlobal(s string) bool { return globalRe.MatchString(s) }
