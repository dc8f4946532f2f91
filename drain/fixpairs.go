package drain

// Fix pairs: a failed shell command, the failed retries after it, and the followup of the
// same tool that worked, in one turn.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reflect-memory/reflect/queue"
)

// fixChain is a failed command, the failed retries after it, and the followup that worked.
type fixChain struct {
	failures []int // note indices, the first one first
	success  int   // index of the followup note whose command worked
	conf     string
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

func shellTool(name string) bool {
	switch strings.ToLower(name) {
	case "bash", "shell", "exec_command", "shell_command", "local_shell_call", "container.exec":
		return true
	}
	return false
}
