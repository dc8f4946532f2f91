package drain

// Failures that teach without a fix pair of shell commands: a Read refused for its size and
// read in parts after, a hook that refuses a tool call (its reason is a rule of the
// project), a Stop hook that refuses to end the turn.

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

var searchCmdRe = lazyregexp.New(`\b(?:grep|rg|ag|jq)\b`)

var tooLargeRe = lazyregexp.New(`(?i)exceeds maximum allowed (?:tokens|size)|file content \([^)]*\) exceeds`)

// jsonField is a string field of a tool call's JSON input.
func jsonField(input, key string) string {
	var m map[string]any
	if json.Unmarshal([]byte(input), &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// scratchPath: files outside any project (temporary files, the hosts' own state), whose
// size says nothing about a project.
func scratchPath(p string) bool {
	for _, s := range []string{"/tmp/", "/var/", "/private/", "/proc/", "/.claude/", "/.codex/", "/.cache/"} {
		if strings.Contains(p, s) || strings.HasPrefix(p, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}

// readTooLarge is a Read refused for the file's size, followed by a call that reads the same
// file in parts or searches it: that file is read that way.
func readTooLarge(notes []queue.Note, t turn, i int) (Proposal, bool) {
	n := notes[i]
	if n.Tool != "Read" || !tooLargeRe.MatchString(n.Text) {
		return Proposal{}, false
	}
	file := jsonField(n.Input, "file_path")
	if file == "" || scratchPath(file) {
		return Proposal{}, false
	}
	// the first of the calls after it that reads or searches the same file
	var fu queue.Note
	for j := i + 1; j < t.to && notes[j].Kind == queue.NoteFollowup && notes[j].Agent == n.Agent; j++ {
		if c := notes[j]; c.Tool != "" && (strings.Contains(c.Input, file) || strings.Contains(c.Input, path.Base(file))) &&
			c.Outcome != queue.OutcomeFailed {
			fu = c
			break
		}
	}
	how := "read it in parts (offset and limit)"
	switch {
	case fu.Tool == "":
		return Proposal{}, false
	case fu.Tool == "Grep" || shellTool(fu.Tool) && searchCmdRe.MatchString(fu.Input):
		how = "search it instead (" + strings.ToLower(fu.Tool) + ")"
		if shellTool(fu.Tool) {
			how = "search it instead (" + firstProgram(fu.Input) + ")"
		}
	case shellTool(fu.Tool):
		how = "read it in parts (" + firstProgram(fu.Input) + ")"
	case fu.Tool == "Read" && !strings.Contains(fu.Input, `"offset"`) && !strings.Contains(fu.Input, `"limit"`):
		return Proposal{}, false
	case fu.Tool != "Read":
		return Proposal{}, false
	}
	name := path.Base(file)
	var col collector
	col.tools.add("Read")
	var b strings.Builder
	b.WriteString(failureLine(n) + "\n\nThen this worked:\n\n" + fence(fu.Tool+" "+fu.Input) + "\n\nThe file: " + code(file) + "\n")
	var tr triggerSet
	tr.add(name)
	tr.identifier(strings.TrimSuffix(name, path.Ext(name)))
	tr.add("exceeds maximum allowed tokens")
	tr.add("file too large to read")
	return Proposal{
		Title:    code(name) + " is too large for one Read; " + how,
		Body:     b.String(),
		Kind:     "fix",
		Tags:     []string{"read"},
		Entities: col.entities(), Confidence: "low", Triggers: tr.list, evidence: true,
	}, true
}

// firstProgram is the first program a shell line runs, plain ones included (head, sed).
func firstProgram(line string) string {
	for _, s := range splitShell(line) {
		if p := rawProgram(s); p != "" && p != "cd" {
			return p
		}
	}
	return "shell"
}

var hookErrorRe = lazyregexp.New(`^(PreToolUse|PermissionRequest|UserPromptSubmit):?(\S*) hook error: \[([^\]]*)\]:\s*`)

// hookReason is the reason a hook gave for refusing a tool call, and the hook's command.
func hookReason(n queue.Note) (reason, hook string, ok bool) {
	t := strings.TrimSpace(n.Text)
	m := hookErrorRe.FindStringSubmatchIndex(t)
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(t[m[1]:]), t[m[6]:m[7]], true
}

// hookRule is a tool call a hook refused: the hook's reason is a rule of the project. What
// worked after it, when the followup is another try, goes in the body.
func hookRule(notes []queue.Note, i int, fc *fixChain) (Proposal, bool) {
	n := notes[i]
	reason, hook, ok := hookReason(n)
	if !ok || len([]rune(reason)) < 12 {
		return Proposal{}, false
	}
	title := hookTitle(reason)
	var col collector
	col.failure(notes, i)
	col.prose(reason)
	var b strings.Builder
	b.WriteString("A hook (" + code(hook) + ") refused " + code(clipLine(n.Input, hBodyCmd)) + ":\n\n> " + clipWords(reason, hBodySaid) + "\n")
	var t triggerSet
	commandTriggers(&t, n.Input)
	if fc != nil {
		w := notes[fc.success]
		col.command(w.Tool, w.Input)
		b.WriteString("\nThis worked instead:\n\n" + fence(w.Input) + "\n")
	}
	for _, s := range proseTriggers(reason) {
		t.add(s)
	}
	return Proposal{
		Title: title, Body: b.String(), Kind: "rule", Confidence: "medium",
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, Triggers: t.list, evidence: true,
	}, true
}

// hookTitle: the hook's reason, whole when it is short, else its first sentence.
func hookTitle(reason string) string {
	r := strings.Join(strings.Fields(reason), " ")
	if len([]rune(r)) > 110 {
		if k := strings.Index(r, ". "); k > 0 {
			r = r[:k]
		}
	}
	return clipWords(strings.TrimRight(r, ". "), 110)
}

var (
	hookFeedbackRe = lazyregexp.New(`^[A-Za-z]+(?::\S+)? hook feedback:\s*`)
	hookCmdRe      = lazyregexp.New(`^\[([^\]]*)\]:\s*`)
	// ruleCue: a hook's message that asks for something, as a rule does.
	ruleCue = lazyregexp.New(`(?i)\b(?:must|please|before|required?|not allowed|don't|do not|never|always|should|commit|delete|remove|run|need to|needs to)\b`)
	// listTail: "…: a.py, b.csv" names this session's files, not the rule.
	listTail = lazyregexp.New(`:\s*\S+(?:,\s*\S+)*$`)
)

// hookNoteRule is a hook's feedback to the agent (a Stop hook refusing to let it end its
// turn, a PostToolUse hook's complaint), when it asks for something a next session should do.
func hookNoteRule(n queue.Note) (Proposal, bool) {
	text := hookFeedbackRe.ReplaceAllString(strings.TrimSpace(n.Text), "")
	hook := strings.TrimSpace(n.Input)
	if m := hookCmdRe.FindStringSubmatch(text); m != nil {
		hook = cmpOr(hook, m[1])
		text = text[len(m[0]):]
	}
	text = strings.Join(strings.Fields(text), " ")
	if len([]rune(text)) < 20 || !ruleCue.MatchString(text) {
		return Proposal{}, false
	}
	first := text
	if k := strings.Index(first, ". "); k > 0 {
		first = first[:k]
	}
	first = listTail.ReplaceAllString(strings.TrimRight(first, ". "), "")
	event := cmpOr(strings.TrimSpace(n.Tool), "Stop")
	if k := strings.IndexByte(event, ':'); k > 0 {
		event = event[:k]
	}
	name := "A " + event + " hook"
	if f := strings.Fields(hook); len(f) > 0 {
		name = "The " + event + " hook " + code(path.Base(strings.Trim(f[len(f)-1], `"'`)))
	}
	says := " says: "
	if event == "Stop" || event == "SubagentStop" {
		says = " refuses to end the session: "
	}
	title := clipWords(name+says+first, 140)
	var col collector
	col.prose(text)
	var t triggerSet
	t.add(strings.ToLower(event) + " hook")
	for _, s := range proseTriggers(first) {
		t.add(s)
	}
	body := "The agent was stopped by a " + event + " hook"
	if hook != "" {
		body += " (" + code(hook) + ")"
	}
	body += ":\n\n> " + clipWords(text, hBodySaid) + "\n"
	return Proposal{
		Title: title, Body: body, Kind: "rule", Confidence: "low",
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, Triggers: t.list, evidence: true,
	}, true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
