package drain

// Fix pairs: a failed shell command, the failed retries after it, and the followup of the
// same tool that worked, in one turn.

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

// fixChain is a failed command, the failed retries after it, and the followup that worked.
type fixChain struct {
	failures []int // note indices, the first one first
	success  int   // index of the followup note whose command worked
	conf     string
}

func viewOf(n queue.Note) noteView { return noteView{input: n.Input, text: n.Text, exit: n.ExitCode} }

// isFailure reports whether a failure note is a failed attempt: not a call the user refused,
// not a shell lookup whose non-zero exit is its answer (benignExit).
func isFailure(n queue.Note) bool {
	if n.Kind != queue.NoteFailure || isRejection(n) {
		return false
	}
	return !shellTool(n.Tool) || !benignExit(viewOf(n))
}

// findFix follows a failed shell command through what the agent did next (the followup
// notes: its words, then up to a few calls with their outcome). A look at something (a Read,
// a Grep, an unrelated command) is passed over; an edit ends the search, since what works
// after the code changed proves nothing about the command. A related call that failed too
// continues the chain; the first related one that worked ends it with a fix — unless it is
// the same command again (a flake, a wait), the failed command rerun with more checks after
// it, a narrower look-up of it, or the command the failure's own output spelled out.
func findFix(notes []queue.Note, t turn, first int) (*fixChain, bool) {
	f0 := notes[first]
	if !shellTool(f0.Tool) || !isFailure(f0) || strings.TrimSpace(f0.Input) == "" {
		return nil, false
	}
	fc := &fixChain{failures: []int{first}}
	cur := first
	for j := first + 1; j < t.to; j++ {
		n := notes[j]
		if n.Agent != f0.Agent {
			return nil, false
		}
		in := strings.TrimSpace(n.Input)
		switch n.Kind {
		case queue.NoteFollowup:
			switch {
			case n.Tool == "" || in == "":
				continue // the agent's words
			case editTool(n.Tool) || shellTool(n.Tool) && editsFiles(in):
				return nil, false
			case n.Tool != f0.Tool || !relatedToChain(notes, fc, in):
				continue // a look at something else
			case failsLater(notes, t, j, in):
				continue // its failure note comes next; the chain takes it there
			}
			prev := strings.TrimSpace(notes[cur].Input)
			if lookup(prev, in) || readOnly(in) && !readOnly(prev) {
				continue // a look (`npm run` lists the scripts, `git ls-files x` asks about a file), unless a look failed
			}
			if in == strings.TrimSpace(f0.Input) || rerun(prev, in) || rerunPlus(prev, in) ||
				selfExplained(viewOf(notes[cur]), in) || weakened(prev, in) {
				return nil, false
			}
			fc.success, fc.conf = j, "medium"
			for k := j + 1; k < t.to; k++ {
				if m := notes[k]; m.Tool == n.Tool && m.Agent == n.Agent && isFailure(m) {
					fc.conf = "low" // something of the kind still fails: the fix is not clear
					break
				}
			}
			return fc, true
		case queue.NoteFailure:
			switch {
			case !isFailure(n) && !isRejection(n):
				continue // a look-up that found nothing
			case isRejection(n) || n.Tool != f0.Tool || !relatedToChain(notes, fc, in):
				return nil, false // refused, or the agent moved on to something else
			}
			fc.failures = append(fc.failures, j)
			cur = j
		default:
			return nil, false
		}
	}
	return nil, false
}

// noiseFlags change what a command prints, not what it does; narrowFlags pick a part of
// what it does (a test, a package); checkFlags make it stricter; bypassFlags skip a check.
var (
	noiseFlags  = setOf(`-v -vv -vvv --verbose -x --debug --trace -s --nocapture --no-capture --color --no-color -q --quiet --silent --pretty --no-pretty -count=1 --count=1 --bail -failfast --fail-fast`)
	narrowFlags = setOf(`-run --run -k -t --testNamePattern --test-name-pattern --grep -g --filter -p --package --lib --bin --test -m --match --only --spec --project`)
	checkFlags  = setOf(`-race --race -D -Dwarnings --deny -Werror --strict --max-warnings --locked --frozen --frozen-lockfile --immutable --check --ci --fail-on-warning --warnings-as-errors -W error --no-fix`)
	bypassFlags = setOf(`--no-verify --break-system-packages --skip-checks --no-check --nocheck --insecure --allow-dirty --no-strict --force --skip-tests -DskipTests --no-lint --ignore-errors --exclude-failing`)
)

// weakened reports whether worked is what failed with less checked: a check dropped (-race,
// -D warnings, --frozen-lockfile), one bypassed (--no-verify, --force), or only output or a
// narrower part asked for (-v, -run TestX, a test path added to a test run).
func weakened(failed, worked string) bool {
	added, removed, same := wordDiff(failed, worked)
	if !same {
		return false
	}
	flag := func(a string) string { return strings.SplitN(a, "=", 2)[0] }
	for _, r := range removed {
		if checkFlags[flag(r)] {
			return true
		}
	}
	for _, a := range added {
		if bypassFlags[flag(a)] {
			return true
		}
	}
	if len(added) == 0 {
		return false
	}
	test := false
	progs := map[string]bool{}
	for _, s := range attempts(worked) {
		p, sub := s.program()
		progs[p] = true
		test = test || sub == "test" || p == "pytest" || p == "jest" || p == "vitest" || p == "mocha" || p == "rspec" ||
			p == "phpunit" || p == "tox" || p == "nox" || p == "playwright"
	}
	for i := 0; i < len(added); i++ {
		a := added[i]
		switch {
		case noiseFlags[a] || noiseFlags[flag(a)]:
		case narrowFlags[a] || narrowFlags[flag(a)]:
			if !strings.Contains(a, "=") && i+1 < len(added) && !strings.HasPrefix(added[i+1], "-") {
				i++ // its value
			}
		case test && !strings.HasPrefix(a, "-") && !assignRe.MatchString(a) && !isLauncher(a) && !wrappers[a] &&
			a != "run" && a != "exec" && !progs[base(a)]:
			// a test or a path added to a test run narrows it
		default:
			return false
		}
	}
	return true
}

// relatedToChain reports whether a command is another try at one of the chain's failures.
func relatedToChain(notes []queue.Note, fc *fixChain, in string) bool {
	for _, f := range fc.failures {
		if related(viewOf(notes[f]), in) {
			return true
		}
	}
	return false
}

// failsLater reports whether the call of the followup at j failed: its outcome says so, or,
// in a digest written before outcomes were recorded, a failure of the same command follows.
func failsLater(notes []queue.Note, t turn, j int, in string) bool {
	switch notes[j].Outcome {
	case queue.OutcomeFailed:
		return true
	case queue.OutcomeOK:
		return false
	}
	for k := j + 1; k < t.to; k++ {
		if n := notes[k]; n.Kind == queue.NoteFailure && n.Tool == notes[j].Tool && strings.TrimSpace(n.Input) == in {
			return true
		}
	}
	return false
}

// editTool names the tools that change files.
func editTool(name string) bool {
	switch strings.ToLower(name) {
	case "edit", "multiedit", "write", "notebookedit", "apply_patch", "str_replace_based_edit_tool", "str_replace_editor",
		"edit_file", "write_file", "create_file", "replace_in_file":
		return true
	}
	return false
}

var editCmdRe = lazyregexp.New(`(?:^|[;&|]\s*)(?:sed\s+(?:-[a-zA-Z]*i|--in-place)|perl\s+-[a-z]*p[a-z]*i|patch\b|git\s+(?:apply|am|checkout\s+--|restore|stash\s+pop|cherry-pick|revert)\b|gofmt\s+-w|goimports\s+-w|prettier\s+(?:--write|-w)|black\b|ruff\s+format|cargo\s+fmt|mix\s+format|rustfmt\b)`)

// editsFiles reports whether a shell command changes source files (sed -i, a patch, a
// formatter): the code, not the command, is what changed after it.
func editsFiles(in string) bool { return editCmdRe.MatchString(in) }

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
	return Proposal{
		Title: fixTitle(f0, w), Body: b.String(), Kind: "fix", Confidence: fc.conf,
		Tags: col.tagList(), Entities: col.entities(), Files: col.files.list, evidence: true,
		Triggers: fixTriggers(notes, fc),
	}
}

// fixTitle says the lesson of a fix in one line: a missing program and what did the job, a
// setup step the command needs first, the words the command needs (or must lose), the fix
// the failure's output named, or else the command that failed and the one that worked.
func fixTitle(failed, worked queue.Note) string {
	f, w := quiet(failed.Input), quiet(worked.Input)
	short := code(shortCommand(f))
	var title string
	added, removed, same := wordDiff(f, w)
	switch {
	case missingProgram(viewOf(failed)) != "":
		title = code(missingProgram(viewOf(failed))) + " is not installed here; " + code(clipLine(w, hTitleWorked)) + " works instead"
	case fromDir(w) != "":
		dir, rest := cdSplit(w)
		title = short + " fails; run " + code(clipLine(rest, hTitleWorked)) + " from " + code(dir)
	case setupFirst(f, w) != "":
		title = short + " needs " + code(clipLine(setupFirst(f, w), hTitleWorked)) + " first"
	case same && len(added) == 0 && len(removed) > 0 && len(removed) <= 3:
		title = short + " works without " + code(clipLine(strings.Join(removed, " "), hTitleWorked))
	case same && len(removed) == 0 && len(added) > 0 && len(added) <= 4:
		title = short + " needs " + code(clipLine(strings.Join(added, " "), hTitleWorked))
	case same && len(added) > 0 && len(removed) > 0 && len(added) <= 3 && len(removed) <= 3 && slices.ContainsFunc(append(added, removed...), pathOrFlag):
		title = short + " works with " + code(clipLine(strings.Join(added, " "), hTitleWorked)) + " instead of " + code(clipLine(strings.Join(removed, " "), hTitleCmd))
	case namedInOutput(failed, w):
		title = short + " fails"
		if frag := errorFragment(failed); frag != "" {
			title += " (" + frag + ")"
		}
		title += "; " + code(clipLine(w, hTitleWorked)) + " fixes it"
	default:
		title = short + " fails; " + code(clipLine(w, hTitleWorked)) + " works"
	}
	return clipWords(title, hFixTitleMax)
}

// pathOrFlag: a word that is a flag, a path, a file or an assignment, whose swap is worth
// a title of its own (not a script or target name: `npm run docs` and `npm run docs:build`
// read better whole).
func pathOrFlag(w string) bool { return strings.HasPrefix(w, "-") || strings.ContainsAny(w, "/=") }

var redirRe = lazyregexp.New(`\s+(?:2>&1|&>\s*/dev/null|2?>\s*/dev/null)(?:\s|$)`)

// quiet is a command line without the redirections that only route its output.
func quiet(line string) string {
	return strings.TrimSpace(redirRe.ReplaceAllString(strings.TrimSpace(line), " "))
}

var cdRe = lazyregexp.New(`^cd\s+("[^"]+"|'[^']+'|\S+)\s*&&\s*(.+)$`)

// cdSplit cuts `cd DIR && REST` into DIR (as a title shows it: its last element, or two
// for a relative path) and REST.
func cdSplit(w string) (dir, rest string) {
	m := cdRe.FindStringSubmatch(strings.TrimSpace(w))
	if m == nil {
		return "", ""
	}
	d := strings.Trim(m[1], `"'`)
	d = strings.TrimSuffix(d, "/")
	if strings.HasPrefix(d, "/") || strings.HasPrefix(d, "~") {
		d = path.Base(d)
	}
	return d + "/", strings.TrimSpace(m[2])
}

// fromDir is the directory a command that worked went into first, when that is the fix.
func fromDir(w string) string {
	d, rest := cdSplit(w)
	if d == "" || strings.Contains(rest, "&&") || strings.Contains(rest, ";") {
		return ""
	}
	return d
}

// shortCommand is a command line as a title shows it: whole when it is short and simple,
// else each of its commands by program and subcommand ("git add … && git commit …").
func shortCommand(line string) string {
	ss := splitShell(line)
	if len(ss) <= 1 && len([]rune(line)) <= hTitleCmd && !strings.Contains(line, "\n") {
		return line
	}
	if len(ss) == 1 {
		return clipLine(line, hTitleCmd)
	}
	var parts []string
	for _, s := range ss {
		p, sub := s.program()
		if p == "" || plainCmds[p] && p != "cd" {
			continue
		}
		head := strings.TrimSpace(p + " " + sub)
		if len(s.words) > len(strings.Fields(head)) {
			head += " …"
		}
		parts = append(parts, head)
	}
	if len(parts) == 0 {
		return clipLine(line, hTitleCmd)
	}
	return clipRunes(strings.Join(parts, " && "), hTitleCmd)
}

// wordDiff compares two command lines made of the same commands (the same programs and
// subcommands in the same order): the words only the second has, the words only the first
// has. same is false when the lines are not made of the same commands.
func wordDiff(failed, worked string) (added, removed []string, same bool) {
	fs, ws := splitShell(failed), splitShell(worked)
	if len(fs) != len(ws) || len(fs) == 0 {
		return nil, nil, false
	}
	for i := range fs {
		fp, fsub := fs[i].program()
		wp, wsub := ws[i].program()
		if fp != wp || fsub != wsub {
			return nil, nil, false
		}
		count := map[string]int{}
		for _, x := range fs[i].words {
			count[x]++
		}
		for _, x := range ws[i].words {
			if count[x] > 0 {
				count[x]--
			} else {
				added = append(added, x)
			}
		}
		for _, x := range fs[i].words {
			if count[x] > 0 {
				count[x]--
				removed = append(removed, x)
			}
		}
	}
	return added, removed, true
}

// namedInOutput reports whether the failure's output names the command that worked (its
// program and subcommand): "please run terraform init", "Run 'mix format' to fix".
func namedInOutput(failed queue.Note, worked string) bool {
	out := strings.ToLower(failed.Text)
	for _, s := range attempts(worked) {
		p, sub := s.program()
		if p != "" && strings.Contains(out, strings.ToLower(strings.TrimSpace(p+" "+sub))) && (sub != "" || len(s.words) == 1) {
			return true
		}
	}
	return false
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
	outputNoise = lazyregexp.New(`(?i)^(?:exit code:? -?\d+|chunk id:.*|wall time:.*|process exited with code -?\d+|process running with session id.*|original token count:.*|total output lines:.*|output:|\[… \d+ characters cut …\]|[\s^~|.:-]*)$`)
	errorCue    = lazyregexp.New(`(?i)\b(?:errors?|err|fail(?:s|ed|ure|ing)?|fatal|panic(?:ked)?|cannot|can't|couldn't|unable|denied|not found|no such|undefined|invalid|unsupported|unknown|exception|traceback|refused|timed out|timeout|missing)\b`)
	diagnostic  = lazyregexp.New(`^[^\s:]+:\d+(?::\d+)?:`)
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
	case "bash", "shell", "exec_command", "shell_command", "local_shell_call", "container.exec",
		"run_shell_command": // Gemini CLI's; Copilot CLI's is bash, Cursor's Shell
		return true
	}
	return false
}
