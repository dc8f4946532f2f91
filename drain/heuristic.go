package drain

// The heuristic extractor: offline, no LLM, deterministic. It walks the notes of an entry's
// digest turn by turn (a turn is a prompt and the notes up to the next prompt) and proposes
//
//   - corrections: the first prompt after a turn with failed tool calls, when
//     correction.Classify reads it as one (medium: the hook may already have committed it
//     at low confidence, the drain sees what failed and what worked after);
//   - rules: a prompt with an explicit note, correction.Remember (high: the user said it);
//   - fixes: a failed shell command whose followup, in the same turn, is another command of the
//     same tool that did not fail (medium; low when the turn still has later failures of that
//     tool). A failure whose lesson a correction already carries is merged into the correction;
//   - preferences: the same imperative instruction ("use X", "don't Y", "always Z") in two or
//     more prompts (medium).
//
// A failure with nothing after it that shows what worked gives no proposal: "X failed" with no
// fix is not a lesson anyone would write down, and the LLM extractors are there for subtler
// sessions. Non-shell tools (Edit, apply_patch, MCP calls) give no fix pairs either: their
// inputs are JSON or patches, and a second call with other arguments says nothing reusable.
//
// Proposals are ordered by the note that gave them (a preference by its second prompt).
// Proposals of one entry whose titles are near-identical are merged into the first; a proposal
// whose title is near-identical to an existing learning's gets DuplicateOf. Near-identical:
// the title's words after index.Analyze (minus a few fillers such as "please") overlap by at
// least 0.8 of the larger set, so titles of four words or fewer must have the same words.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/correction"
	"github.com/reflect-memory/reflect/index"
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
	hTitleCmd     = 40  // runes of a command in a fix title
	hFixTitleMax  = 100 // runes of a fix title
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

// fixChain is a failed command, the failed retries after it, and the followup that worked.
type fixChain struct {
	failures []int // note indices, the first one first
	success  int   // index of the followup note whose command worked
	conf     string
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

	consumed := map[int]bool{} // failures whose lesson a correction carries
	for ti, t := range turns {
		if t.prompt < 0 {
			continue
		}
		prompt := notes[t.prompt].Text
		if note, ok := correction.Remember(prompt); ok {
			if p, ok := ruleProposal(note); ok {
				out = append(out, anchored{t.prompt, p})
			}
			continue
		}
		if ti == 0 {
			continue
		}
		prev := turns[ti-1]
		var fails []int
		for i := prev.from; i < prev.to; i++ {
			if notes[i].Kind == queue.NoteFailure {
				fails = append(fails, i)
			}
		}
		if len(fails) == 0 {
			continue
		}
		c, ok := correction.Classify(prompt)
		if !ok {
			continue
		}
		if p, ok := correctionProposal(notes, turns, ti, c, fails, fixes); ok {
			out = append(out, anchored{t.prompt, p})
			for _, f := range fails {
				consumed[f] = true
			}
		}
	}

	for _, t := range turns {
		for i := t.from; i < t.to; i++ {
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

// findFix follows a failed shell command through its followups: a followup call of the same
// tool that failed in turn continues the chain, one that did not fail ends it with a fix.
func findFix(notes []queue.Note, t turn, first int) (*fixChain, bool) {
	f0 := notes[first]
	if !shellTool(f0.Tool) || isRejection(f0) || strings.TrimSpace(f0.Input) == "" {
		return nil, false
	}
	fc := &fixChain{failures: []int{first}}
	cur := first
	for {
		next := cur + 1
		if next >= t.to || notes[next].Kind != queue.NoteFollowup || notes[next].Tool != f0.Tool {
			return nil, false
		}
		fu := notes[next]
		in := strings.TrimSpace(fu.Input)
		if in == "" {
			return nil, false
		}
		failedAt := -1
		for j := next + 1; j < t.to; j++ {
			if n := notes[j]; n.Kind == queue.NoteFailure && n.Tool == fu.Tool && strings.TrimSpace(n.Input) == in {
				failedAt = j
				break
			}
		}
		if failedAt < 0 {
			if in == strings.TrimSpace(f0.Input) {
				return nil, false // the same command again: flaky, not a fix
			}
			fc.success, fc.conf = next, "medium"
			for j := next + 1; j < t.to; j++ {
				if n := notes[j]; n.Kind == queue.NoteFailure && n.Tool == fu.Tool {
					fc.conf = "low" // something of the kind still fails: the fix is not clear
					break
				}
			}
			return fc, true
		}
		if isRejection(notes[failedAt]) {
			return nil, false
		}
		fc.failures = append(fc.failures, failedAt)
		cur = failedAt
	}
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
	return Proposal{
		Title: title, Body: b.String(), Kind: "correction", Confidence: "medium",
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, evidence: true,
	}, true
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

func fixProposal(notes []queue.Note, fc *fixChain) Proposal {
	f0, w := notes[fc.failures[0]], notes[fc.success]
	var col collector
	var b strings.Builder
	for k, f := range fc.failures {
		n := notes[f]
		col.failure(notes, f)
		if k == 0 {
			b.WriteString(failureLine(n) + "\n")
		} else {
			b.WriteString("\nThen " + failureLine(n) + "\n")
		}
	}
	col.command(w.Tool, w.Input)
	fmt.Fprintf(&b, "\nThis worked instead:\n\n%s\n", fence(w.Input))

	title := code(clipLine(f0.Input, hTitleCmd)) + " fails; " + code(clipLine(w.Input, hTitleCmd)) + " works"
	title = clipWords(title, hFixTitleMax)
	return Proposal{
		Title: title, Body: b.String(), Kind: "fix", Confidence: fc.conf,
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, evidence: true,
	}
}

// failureLine says what failed in one line: the command (or tool), the exit code, and the
// first meaningful line of the output.
func failureLine(n queue.Note) string {
	var b strings.Builder
	if shellTool(n.Tool) && strings.TrimSpace(n.Input) != "" {
		b.WriteString(code(clipLine(n.Input, hBodyCmd)) + " (" + n.Tool)
	} else {
		b.WriteString(code(n.Tool) + " (tool call")
	}
	if n.ExitCode != nil {
		b.WriteString(", exit code " + strconv.Itoa(*n.ExitCode))
	}
	b.WriteString(")")
	switch {
	case isRejection(n):
		b.WriteString(": rejected by the user")
	default:
		if l := meaningfulLine(n); l != "" {
			b.WriteString(": " + code(l))
		} else {
			b.WriteString(" failed")
		}
	}
	return b.String()
}

var (
	outputNoise = regexp.MustCompile(`(?i)^(?:exit code:? -?\d+|chunk id:.*|wall time:.*|process exited with code -?\d+|process running with session id.*|original token count:.*|total output lines:.*|output:|\[… \d+ characters cut …\]|[\s^~|.:-]*)$`)
	errorCue    = regexp.MustCompile(`(?i)\b(?:errors?|err|fail(?:s|ed|ure|ing)?|fatal|panic(?:ked)?|cannot|can't|couldn't|unable|denied|not found|no such|undefined|invalid|unsupported|unknown|exception|traceback|refused|timed out|timeout|missing)\b`)
	diagnostic  = regexp.MustCompile(`^[^\s:]+:\d+(?::\d+)?:`)
)

// meaningfulLine is the line of a failure's output that says what went wrong: the first one
// with an error word or a file:line: diagnostic, else the first that is not host noise or the
// command echoed back.
func meaningfulLine(n queue.Note) string {
	in := strings.TrimSpace(n.Input)
	first := ""
	for raw := range strings.Lines(n.Text) {
		l := strings.TrimSpace(raw)
		if l == "" || outputNoise.MatchString(l) || l == in || strings.TrimLeft(l, "$+> ") == in {
			continue
		}
		if errorCue.MatchString(l) || diagnostic.MatchString(l) {
			return clipWords(l, hBodyLine)
		}
		if first == "" {
			first = l
		}
	}
	return clipWords(first, hBodyLine)
}

// isRejection recognises a tool call the user refused, which is not a failure of the command.
func isRejection(n queue.Note) bool {
	t := strings.ToLower(strings.TrimSpace(n.Text))
	return strings.HasPrefix(t, "the user doesn't want to proceed with this tool use") ||
		strings.HasPrefix(t, "the user rejected") || strings.Contains(firstLine(t), "rejected by the user") ||
		strings.Contains(firstLine(t), "rejected by user")
}

// Preferences: imperative instructions repeated across prompts.

type instruction struct {
	prompt int // note index
	text   string
	words  []string
	neg    bool
}

func preferenceProposals(notes []queue.Note, turns []turn) []anchored {
	var all []instruction
	for _, t := range turns {
		if t.prompt < 0 {
			continue
		}
		p := notes[t.prompt].Text
		if _, ok := correction.Remember(p); ok {
			continue // an explicit note is a rule already
		}
		for _, s := range instructions(p) {
			w := titleWords(s)
			if len(w) < hMinInstrWord {
				continue
			}
			all = append(all, instruction{prompt: t.prompt, text: s, words: w, neg: negative(s)})
		}
	}
	var groups [][]instruction
	for _, in := range all {
		joined := false
		for g := range groups {
			head := groups[g][0]
			if head.neg == in.neg && overlap(head.words, in.words) >= hSimilar {
				groups[g] = append(groups[g], in)
				joined = true
				break
			}
		}
		if !joined {
			groups = append(groups, []instruction{in})
		}
	}
	var out []anchored
	for _, g := range groups {
		var prompts []int
		var said []string
		for _, in := range g {
			if !slices.Contains(prompts, in.prompt) {
				prompts = append(prompts, in.prompt)
				said = append(said, in.text)
			}
		}
		if len(prompts) < 2 {
			continue
		}
		title := correction.Title(g[0].text)
		if title == "" {
			continue
		}
		var col collector
		var b strings.Builder
		fmt.Fprintf(&b, "%s.\n\nSaid in %d prompts of the session:\n\n", title, len(prompts))
		for _, s := range said {
			col.prose(s)
			b.WriteString("- \"" + clipWords(s, hBodySaid) + "\"\n")
		}
		out = append(out, anchored{prompts[1], Proposal{
			Title: title, Body: b.String(), Kind: "preference", Confidence: "medium",
			Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, Global: saysGlobal(strings.Join(said, "\n")),
			evidence: true,
		}})
	}
	return out
}

var (
	instrFiller = []string{"please", "pls", "plz", "and", "also", "just", "no", "nope", "ok", "okay", "so", "but",
		"then", "again", "actually", "really", "seriously", "hey", "like i said", "as i said", "i said", "once more"}
	instrVerbs = []string{"use", "don't", "dont", "do not", "never", "always", "stop", "avoid", "prefer"}
	instrNeg   = []string{"don't", "dont", "do not", "never", "stop", "avoid"}
	sentenceRe = regexp.MustCompile(`[.!?;]+(?:\s+|$)`)
)

// instructions returns the imperative clauses of a prompt, as written: per sentence, the
// first clause (at the start or after a comma or dash) that starts, after fillers such as
// "no," or "please", with use / don't / never / always / stop / avoid / prefer.
func instructions(prompt string) []string {
	var out []string
	fence := false
	for raw := range strings.Lines(prompt) {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fence = !fence
			continue
		}
		if fence || line == "" {
			continue
		}
		line = strings.TrimLeft(line, "-*+># ")
		line = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(line)
		for _, s := range sentenceRe.Split(line, -1) {
			if c := imperativeClause(s); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

func imperativeClause(s string) string {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if (s[i] == ',' || s[i] == ':') && i+1 < len(s) && s[i+1] == ' ' {
			starts = append(starts, i+2)
		} else if strings.HasPrefix(s[i:], " - ") || strings.HasPrefix(s[i:], " — ") {
			starts = append(starts, i+len(" - "))
		}
	}
	for _, st := range starts {
		rest := strings.TrimSpace(s[st:])
		for {
			lo := strings.ToLower(rest)
			trimmed := false
			for _, f := range instrFiller {
				if hasWordPrefix(lo, f) {
					rest = strings.TrimLeft(rest[len(f):], " ,!")
					trimmed = true
					break
				}
			}
			if !trimmed {
				break
			}
		}
		lo := strings.ToLower(rest)
		for _, v := range instrVerbs {
			if hasWordPrefix(lo, v) {
				return strings.TrimRight(rest, " ,:-")
			}
		}
	}
	return ""
}

func negative(s string) bool {
	lo := strings.ToLower(s)
	for _, v := range instrNeg {
		if hasWordPrefix(lo, v) {
			return true
		}
	}
	return false
}

// hasWordPrefix reports whether s starts with the word (or words) w.
func hasWordPrefix(s, w string) bool {
	if !strings.HasPrefix(s, w) {
		return false
	}
	if len(s) == len(w) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[len(w):])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
}

var globalRe = regexp.MustCompile(`(?i)\b(?:in every project|every project|in all (?:my |of my |your )?(?:projects|repos|repositories)|all projects|across (?:all )?projects|every repo(?:sitory)?|everywhere)\b`)

// saysGlobal: only a note that says in so many words that it holds in every project.
func saysGlobal(s string) bool { return globalRe.MatchString(s) }

// Titles and similarity.

var (
	fillerOnce  sync.Once
	fillerStems map[string]bool
)

// titleWords are the analyzed words of a title, without fillers that do not change what it
// says ("please", "again").
func titleWords(s string) []string {
	fillerOnce.Do(func() {
		fillerStems = map[string]bool{}
		for _, w := range index.Analyze("please pls again thanks thank ok okay just also really") {
			fillerStems[w] = true
		}
	})
	var out []string
	for _, w := range index.Analyze(s) {
		if !fillerStems[w] {
			out = append(out, w)
		}
	}
	return out
}

// overlap is the share of the larger word set that the two sets have in common.
func overlap(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			n++
		}
	}
	return float64(n) / float64(max(len(a), len(b)))
}

var confRank = map[string]int{"low": 1, "medium": 2, "high": 3}

// mergeSimilar keeps the first of proposals whose titles are near-identical, with the highest
// confidence among them.
func mergeSimilar(in []anchored) []Proposal {
	var out []Proposal
	var words [][]string
	for _, a := range in {
		w := titleWords(a.p.Title)
		merged := false
		for k := range out {
			if overlap(words[k], w) >= hSimilar || out[k].Title == a.p.Title {
				if confRank[a.p.Confidence] > confRank[out[k].Confidence] {
					out[k].Confidence = a.p.Confidence
				}
				out[k].Global = out[k].Global || a.p.Global
				merged = true
				break
			}
		}
		if !merged {
			out, words = append(out, a.p), append(words, w)
		}
	}
	return out
}

// markDuplicates sets DuplicateOf to the existing learning whose title is near-identical
// (the best overlap; the first listed on a tie).
func markDuplicates(ps []Proposal, existing []Existing) {
	if len(existing) == 0 {
		return
	}
	ew := make([][]string, len(existing))
	for i, e := range existing {
		ew[i] = titleWords(e.Title)
	}
	for i := range ps {
		w := titleWords(ps[i].Title)
		best, bestScore := -1, 0.0
		for j, e := range existing {
			if e.ID == "" {
				continue
			}
			if s := overlap(w, ew[j]); s >= hSimilar && s > bestScore {
				best, bestScore = j, s
			}
		}
		if best >= 0 {
			ps[i].DuplicateOf = existing[best].ID
		}
	}
}

// Tags, entities and files.

// orderedSet keeps the first occurrence of each string, in order, up to a cap.
type orderedSet struct {
	list []string
	cap  int
}

func (s *orderedSet) add(v string) {
	if v == "" || slices.Contains(s.list, v) || (s.cap > 0 && len(s.list) >= s.cap) {
		return
	}
	s.list = append(s.list, v)
}

// collector gathers a proposal's tags (commands and topics), entities (commands, well-known
// tools named in prose, files) and files.
type collector struct {
	cmds, topics, tools, files orderedSet
	tags                       orderedSet // rule tags, from prose
}

// failure records the failed call at notes[i] and what the agent said right after it.
func (c *collector) failure(notes []queue.Note, i int) {
	n := notes[i]
	c.command(n.Tool, n.Input)
	c.text(meaningfulLine(n))
	if i+1 < len(notes) && notes[i+1].Kind == queue.NoteFollowup {
		c.text(notes[i+1].Text)
	}
}

// command records a tool call: for a shell tool the programs it runs, else the tool's name
// as an entity.
func (c *collector) command(tool, input string) {
	if shellTool(tool) {
		for _, p := range programs(input) {
			c.cmds.add(p)
		}
		for _, t := range topics(input) {
			c.topics.add(t)
		}
	} else if tool != "" {
		c.tools.add(tool)
	}
	for _, f := range filePaths(input) {
		c.file(f)
	}
}

// text records what prose names: well-known tools and file paths.
func (c *collector) text(s string) {
	c.toolsIn(s)
	for _, f := range filePaths(s) {
		c.file(f)
	}
}

// toolsIn records the tools s names: well-known ones, and the programs of the commands it
// quotes in backticks.
func (c *collector) toolsIn(s string) {
	for _, t := range namedTools(s) {
		c.tools.add(t)
	}
}

// namedTools are the well-known tools named in s and the programs of the commands quoted in
// it (`make migrate`: a backticked span of several words whose first looks like a program).
func namedTools(s string) []string {
	var out []string
	for _, w := range proseWords(s) {
		if proseTools[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, m := range backticked.FindAllStringSubmatch(s, -1) {
		span := strings.TrimSpace(m[1])
		if f := strings.Fields(span); len(f) < 2 || !cmdName.MatchString(f[0]) {
			continue
		}
		for _, p := range programs(span) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

var backticked = regexp.MustCompile("`([^`\n]+)`")

// prose records a note or prompt: its tools and files, and tags from its tools and topics.
func (c *collector) prose(s string) {
	c.text(s)
	c.tags.cap = hMaxTags
	for _, t := range namedTools(s) {
		c.tags.add(t)
	}
	for _, t := range topics(s) {
		c.tags.add(t)
	}
}

// file records a file path, at most hMaxFiles of them.
func (c *collector) file(p string) {
	c.files.cap = hMaxFiles
	c.files.addPath(p)
}

// named records a program the user named ("use pnpm instead of npm").
func (c *collector) named(name string) {
	c.cmds.add(name)
}

// tagList: the commands run, the tools named, then the topics; at most hMaxTags.
func (c *collector) tagList() []string {
	s := orderedSet{cap: hMaxTags}
	for _, l := range [][]string{c.cmds.list, c.tags.list, c.topics.list} {
		for _, v := range l {
			if isWord(v) {
				s.add(strings.ToLower(v))
			}
		}
	}
	return s.list
}

func (c *collector) entities() []string {
	s := orderedSet{cap: hMaxEntities}
	for _, l := range [][]string{c.cmds.list, c.tools.list, c.files.list} {
		for _, v := range l {
			s.add(v)
		}
	}
	return s.list
}

func shellTool(name string) bool {
	switch strings.ToLower(name) {
	case "bash", "shell", "exec_command", "shell_command", "local_shell_call", "container.exec":
		return true
	}
	return false
}

var (
	cmdSplit = regexp.MustCompile(`&&|\|\||[;|&\n]`)
	redirect = regexp.MustCompile(`\d*>&\d+|&>`)
	cmdName  = regexp.MustCompile(`^[a-z][a-z0-9._+-]*$`)
	// runners run the program named after them: the program is the lesson's subject.
	runners   = map[string]bool{"npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true}
	assign    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	wrapCmds  = map[string]bool{"sudo": true, "env": true, "time": true, "nohup": true, "exec": true, "command": true}
	plainCmds = map[string]bool{"cd": true, "rm": true, "echo": true, "cat": true, "ls": true, "mkdir": true, "cp": true,
		"mv": true, "true": true, "false": true, "export": true, "set": true, "sleep": true, "touch": true, "pwd": true,
		"which": true, "head": true, "tail": true, "grep": true, "sed": true, "awk": true, "test": true, "[": true,
		"printf": true, "tee": true, "wc": true, "sort": true, "xargs": true, "find": true, "chmod": true, "source": true, ".": true}
)

// programs are the commands a shell line runs, in order, without plumbing (cd, rm, echo, …).
func programs(input string) []string {
	var out []string
	for _, seg := range cmdSplit.Split(redirect.ReplaceAllString(input, " "), -1) {
		fs := strings.Fields(seg)
		for len(fs) > 0 && (assign.MatchString(fs[0]) || wrapCmds[fs[0]] || fs[0] == "(" || fs[0] == "{") {
			fs = fs[1:]
		}
		if len(fs) > 1 && runners[fs[0]] {
			fs = slices.DeleteFunc(fs[1:], func(f string) bool { return strings.HasPrefix(f, "-") })
		}
		if len(fs) == 0 {
			continue
		}
		p := fs[0]
		if k := strings.LastIndexByte(p, '/'); k >= 0 {
			p = p[k+1:]
		}
		p = strings.TrimLeft(p, "(")
		if !cmdName.MatchString(p) || plainCmds[p] || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// topicWords map words of commands and notes to a few topic tags.
var topicWords = map[string]string{"test": "tests", "tests": "tests", "testing": "tests", "spec": "tests", "specs": "tests",
	"lint": "lint", "linter": "lint", "linting": "lint", "build": "build", "builds": "build",
	"migration": "migrations", "migrations": "migrations", "migrate": "migrations", "deploy": "deploy", "deployment": "deploy"}

func topics(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if t, ok := topicWords[w]; ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// proseTools are tool names that are not ordinary English words ("go", "make" and "node"
// are left out), so finding them in prose names the tool.
var proseTools = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`npm pnpm yarn bun npx deno gofmt golangci-lint cargo rustc rustup pip pip3 pipx
		poetry uv pytest jest vitest mocha tsc eslint prettier docker docker-compose podman kubectl terraform
		gradle mvn dotnet rspec rubocop composer psql mysql sqlite3 webpack vite turbo nx lerna tox ruff mypy black
		flake8 clippy bazel cmake ninja gcc clang`) {
		proseTools[t] = true
	}
}

func proseWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
}

var (
	pathTrim   = "\"'`()[]{}<>,;!?*"
	lineSuffix = regexp.MustCompile(`(?::\d+)+:?$`)
	slashPath  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_.-]+)+/?$`)
	filePath   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.(?:go|mod|sum|md|js|mjs|cjs|ts|tsx|jsx|json|ya?ml|toml|py|rb|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|sql|html|css|scss|lock|txt|proto|gradle|xml|ini|cfg|conf|tf|vue|svelte)$`)
	notPaths   = map[string]bool{"and/or": true, "input/output": true, "read/write": true, "true/false": true, "yes/no": true,
		"on/off": true, "ci/cd": true, "i/o": true, "n/a": true, "client/server": true}
)

// filePaths are the relative file paths in s: with a slash, or a file name with a known
// extension. Absolute paths (logs, home directories), URLs and package scopes are left out.
func filePaths(s string) []string {
	var out []string
	for _, tok := range strings.Fields(s) {
		tok = strings.Trim(tok, pathTrim)
		tok = strings.TrimRight(tok, ".:")
		tok = lineSuffix.ReplaceAllString(tok, "")
		tok = strings.TrimPrefix(tok, "./")
		if tok == "" || strings.Contains(tok, "://") || strings.Contains(tok, "...") || strings.ContainsAny(tok, "=$@~*") ||
			notPaths[strings.ToLower(tok)] {
			continue
		}
		if !slashPath.MatchString(tok) && !filePath.MatchString(tok) {
			continue
		}
		tok = strings.TrimSuffix(tok, "/")
		dup := false
		for k, f := range out {
			switch {
			case f == tok || strings.HasSuffix(f, "/"+tok):
				dup = true
			case strings.HasSuffix(tok, "/"+f):
				out[k], dup = tok, true
			}
		}
		if !dup {
			out = append(out, tok)
		}
	}
	return out
}

func (s *orderedSet) addPath(p string) {
	for k, f := range s.list {
		switch {
		case f == p || strings.HasSuffix(f, "/"+p):
			return
		case strings.HasSuffix(p, "/"+f):
			s.list[k] = p
			return
		}
	}
	s.add(p)
}

// Text helpers.

func isWord(s string) bool { return cmdName.MatchString(strings.ToLower(s)) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clipLine is the first line of s, cut to n runes; "…" marks anything left out.
func clipLine(s string, n int) string {
	s = strings.TrimSpace(s)
	l := strings.TrimSpace(firstLine(s))
	c := clipRunes(l, n)
	if l != s && !strings.HasSuffix(c, "…") {
		c += " …"
	}
	return c
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// clipWords cuts s to at most n runes at a word boundary, marking the cut with "…".
func clipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	t := string(r[:n-1])
	if k := strings.LastIndexByte(t, ' '); k > len(t)/2 {
		t = t[:k]
	}
	return strings.TrimRight(t, " ,;:.-") + "…"
}

// code is s as markdown inline code, with enough backticks to hold the ones in s.
func code(s string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// fence is s as a fenced code block, cut to a few lines.
func fence(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 5 {
		lines = append(lines[:5], "…")
	}
	for i, l := range lines {
		lines[i] = clipRunes(l, hBodyCmd)
	}
	body := strings.Join(lines, "\n")
	ticks := "```"
	for strings.Contains(body, ticks) {
		ticks += "`"
	}
	return ticks + "\n" + body + "\n" + ticks
}
