package drain

// Shell command lines as the fix pairs need them: the simple commands of a line, the program
// and subcommand of each, its distinctive arguments; which non-zero exits are answers rather
// than failures (benignExit); and whether a later command is evidently another try of a
// failed one (related), a rerun of it (rerun) or a narrower look-up (lookup).

import (
	"slices"
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

// simple is one simple command of a shell line.
type simple struct {
	words []string // unquoted, redirections dropped
	op    string   // the operator after it: "&&", "||", ";", "|", "&" or "" at the end
	piped bool     // it reads the previous command's output
}

// splitShell cuts a shell line into simple commands. It knows quotes, escapes, the control
// operators and redirections, not the whole grammar: a loop's keywords stay words, and a
// $(…) substitution stays inside its word.
func splitShell(line string) []simple {
	line = stripHeredocs(line)
	var out []simple
	var cur simple
	var word strings.Builder
	inWord, skipNext := false, false
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		if skipNext { // the target of a redirection
			skipNext = false
			return
		}
		cur.words = append(cur.words, w)
	}
	endCmd := func(op string) {
		endWord()
		cur.op = op
		if len(cur.words) > 0 {
			out = append(out, cur)
		}
		cur = simple{piped: op == "|"}
	}
	rs := []rune(line)
	depth := 0 // inside $( … )
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '\\' && i+1 < len(rs):
			word.WriteRune(next)
			inWord = true
			i++
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				word.WriteRune(rs[j])
				j++
			}
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				word.WriteRune(rs[j])
				j++
			}
			i = j
		case r == '$' && next == '(':
			depth++
			inWord = true
			word.WriteString("$(")
			i++
		case r == ')' && depth > 0:
			depth--
			word.WriteRune(r)
		case depth > 0:
			word.WriteRune(r)
		case r == '&' && next == '&', r == '|' && next == '|':
			endCmd(string([]rune{r, next}))
			i++
		case r == '|' || r == ';' || r == '\n' || r == '&' && next != '>':
			op := string(r)
			if r == '\n' {
				op = ";"
			}
			endCmd(op)
		case r == '(' || r == ')' || r == '{' && !inWord || r == '}' && !inWord:
			endWord()
		case r == '>' || r == '<':
			// 2>&1, &>, >>, > file, < file: the operator and its target are not words
			w := word.String()
			if inWord && strings.Trim(w, "0123456789&") == "" {
				word.Reset()
				inWord = false
			} else {
				endWord()
			}
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&' || rs[i+1] == '<') {
				i++
			}
			if i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && rs[i] == '&' {
				i++
				continue // >&2
			}
			skipNext = true
		case unicode.IsSpace(r):
			endWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endCmd("")
	return out
}

var heredocRe = lazyregexp.New(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

// stripHeredocs drops the bodies of here-documents (a commit message in
// `git commit -m "$(cat <<'EOF' … EOF)"`): they are text, not commands.
func stripHeredocs(line string) string {
	for from := 0; ; {
		m := heredocRe.FindStringSubmatchIndex(line[from:])
		if m == nil {
			return line
		}
		word := line[from+m[2] : from+m[3]]
		bodyAt := strings.IndexByte(line[from+m[1]:], '\n')
		if bodyAt < 0 {
			return line
		}
		bodyAt += from + m[1]
		end := -1
		for i := bodyAt + 1; i < len(line); {
			j := strings.IndexByte(line[i:], '\n')
			l := line[i:]
			if j >= 0 {
				l = line[i : i+j]
			}
			if strings.TrimSpace(l) == word {
				end = i + len(l)
				break
			}
			if j < 0 {
				break
			}
			i += j + 1
		}
		if end < 0 {
			return line[:bodyAt]
		}
		line = line[:bodyAt] + line[end:]
		from += m[1]
	}
}

var (
	assignRe = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*=`)
	// wrappers run the command after them (and their own flags).
	wrappers = map[string]bool{"sudo": true, "env": true, "time": true, "nohup": true, "exec": true, "nice": true,
		"timeout": true, "xargs": true, "then": true, "do": true, "else": true, "!": true}
	// launchers run the program or module named after them: the program is the subject.
	launchers = map[string][]string{"npx": nil, "bunx": nil, "pnpx": nil, "uvx": nil, "pipx": {"run"}, "uv": {"run"},
		"poetry": {"run"}, "pdm": {"run"}, "pnpm": {"exec", "dlx"}, "npm": {"exec"}, "yarn": {"dlx", "exec"},
		"bundle": {"exec"}, "rye": {"run"}, "hatch": {"run"}, "pipenv": {"run"}}
	// subcommanded programs: the first word after the program (and its global flags) says
	// what it does, so `go test` and `go vet` are different attempts.
	subcommanded = setOf(`git go npm pnpm yarn bun deno cargo rustup docker podman compose kubectl helm terraform tofu
		make uv poetry pip pip3 gh dotnet gradle mvn brew apt apt-get systemctl aws gcloud az alembic bundle rails
		rake mix dune opam stack cabal swift flutter composer php artisan manage.py npx nx turbo lerna just task`)
	// valueFlags are global flags that take the next word as their value.
	valueFlags = setOf(`-C -c -f -n --namespace --context --file --project-directory -p --project --prefix --filter
		-F --manifest-path --chdir -chdir --workspace -w --cwd --dir`)
	interpreters = setOf(`python python3 node ruby perl bash sh zsh deno bun php`)
)

// program is the program a simple command runs and its subcommand ("" for programs without
// one): assignments, wrappers and launchers are looked through, a path is cut to its base.
func (s simple) program() (prog, sub string) {
	ws := s.words
	for len(ws) > 0 && (assignRe.MatchString(ws[0]) || wrappers[ws[0]]) {
		w := ws[0]
		ws = ws[1:]
		for (w == "sudo" || w == "env" || w == "timeout" || w == "nice" || w == "xargs") && len(ws) > 0 &&
			(strings.HasPrefix(ws[0], "-") || w == "timeout" && len(ws[0]) > 0 && unicode.IsDigit(rune(ws[0][0]))) {
			ws = ws[1:]
		}
	}
	if len(ws) == 0 {
		return "", ""
	}
	p := base(ws[0])
	if runs, ok := launchers[p]; ok && len(ws) > 1 && (len(runs) == 0 || slices.Contains(runs, ws[1])) {
		rest := ws[1:]
		if len(runs) > 0 {
			rest = rest[1:]
		}
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return (simple{words: rest}).program()
		}
		return p, ""
	}
	rest := ws[1:]
	if interpreters[p] {
		// python -m pytest → pytest; python manage.py test → manage.py test; python x.py → x.py
		for i := 0; i < len(rest); i++ {
			switch {
			case rest[i] == "-m" && i+1 < len(rest):
				return (simple{words: rest[i+1:]}).program()
			case rest[i] == "-c" || rest[i] == "-e" || rest[i] == "--eval" || rest[i] == "-p":
				return p, ""
			case !strings.HasPrefix(rest[i], "-"):
				script := base(rest[i])
				if subcommanded[script] {
					return script, firstArg(rest[i+1:])
				}
				return script, ""
			}
		}
		return p, ""
	}
	if !subcommanded[p] {
		return p, ""
	}
	sub = firstArg(rest)
	if p == "docker" && sub == "compose" || p == "go" && sub == "tool" || p == "gh" ||
		(p == "npm" || p == "pnpm" || p == "yarn" || p == "bun" || p == "deno") && (sub == "run" || sub == "run-script" || sub == "task") {
		// docker compose up, gh pr create, npm run build: the subcommand has its own
		i := slices.Index(rest, sub)
		if i >= 0 {
			if s2 := firstArg(rest[i+1:]); s2 != "" {
				sub += " " + s2
			}
		}
	}
	return p, sub
}

// firstArg is the first word that is not a flag (nor a global flag's value).
func firstArg(ws []string) string {
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if strings.HasPrefix(w, "-") {
			if valueFlags[w] && !strings.Contains(w, "=") {
				i++
			}
			continue
		}
		return w
	}
	return ""
}

func base(p string) string {
	p = strings.TrimRight(p, "/")
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		return p[k+1:]
	}
	return p
}

// pipeFilters read a pipe and pass on part of it: after a "|" they are not the attempt.
var pipeFilters = setOf(`grep egrep fgrep rg sort uniq head tail wc cut tr awk sed jq less more cat tee column xargs
	sort python3 fmt nl rev`)

// attempts are the simple commands of a line that do the work: not cd and the like, not the
// filters a pipe feeds.
func attempts(line string) []simple {
	var out []simple
	for _, s := range splitShell(line) {
		p, _ := s.program()
		if p == "" || plainCmds[p] && p != "grep" && p != "test" && p != "[" && p != "find" && p != "cat" && p != "sed" ||
			s.piped && pipeFilters[p] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// last is the simple command whose status the line's exit code is: the last one of a
// sequence, and of a pipeline the last stage.
func last(line string) (simple, bool) {
	ss := splitShell(line)
	if len(ss) == 0 {
		return simple{}, false
	}
	return ss[len(ss)-1], true
}

// readOnlySub are subcommands that only show something; with lookupSub and the plain
// commands (cat, ls, head …) they make a command line a look, never a fix.
var readOnlySub = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Split(`git status, git log, git show, git diff, git branch, git remote, git blame, git describe,
		git reflog, git shortlog, git tag, git stash list, kubectl logs, kubectl explain, kubectl top, docker ps, docker logs,
		docker images, docker compose ps, docker compose logs, docker compose config, npm outdated, npm config, npm help,
		pip list, pip freeze, go env, go version, go doc, cargo metadata, terraform show, terraform output, terraform state,
		terraform version, helm list, helm get, gh pr list, gh run list, gh run view, gh issue view, gh repo view`, ",") {
		m[strings.Join(strings.Fields(k), " ")] = true
	}
	return m
}()

// readOnly reports whether a command line only looks at things: every command of it a
// plain one (cat, ls, grep …), a look-up or a subcommand that only shows something.
func readOnly(line string) bool {
	ss := splitShell(line)
	if len(ss) == 0 {
		return false
	}
	for _, s := range ss {
		p, sub := s.program()
		raw := rawProgram(s)
		first := sub
		if k := strings.IndexByte(sub, ' '); k > 0 {
			first = sub[:k]
		}
		if plainCmds[raw] && raw != "cp" && raw != "mv" && raw != "rm" && raw != "mkdir" && raw != "touch" && raw != "chmod" &&
			raw != "cd" && raw != "export" && raw != "source" && raw != "." && raw != "tee" && raw != "sed" ||
			lookupSub[p+" "+sub] || readOnlySub[p+" "+sub] || readOnlySub[p+" "+first] || lookupSub[p+" "+first] ||
			raw == "stat" || raw == "file" || raw == "env" || raw == "printenv" || raw == "ps" || raw == "df" || raw == "du" ||
			raw == "uname" || raw == "id" || raw == "whoami" || raw == "jq" || raw == "less" || raw == "tree" || raw == "type" ||
			raw == "rg" || raw == "ag" || raw == "ack" || raw == "fd" || raw == "fdfind" || raw == "bat" || raw == "eza" || raw == "exa" {
			continue
		}
		return false
	}
	return true
}

// lookupSub are subcommands that ask whether something exists or is in a state; their
// non-zero exit is the answer "no".
var lookupSub = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Split(`npm ls, npm list, npm view, pnpm ls, pnpm list, yarn list, yarn why, pip show, pip3 show,
		brew list, brew info, docker inspect, podman inspect, kubectl get, kubectl describe, helm status, git rev-parse,
		git show-ref, git ls-remote, git cat-file, git merge-base, git ls-files, git check-ignore, git config,
		systemctl is-active, systemctl is-enabled, systemctl status, gh pr view, gh pr checks, apt list, dpkg -s, go list,
		cargo tree`, ",") {
		m[strings.Join(strings.Fields(k), " ")] = true
	}
	return m
}()

var (
	// loopRe finds a shell loop, whose status says little about any one try.
	loopRe = lazyregexp.New(`(?:^|[;&|(\s])(?:for|while|until)\s[^;]*;\s*do\b`)
	// probeRe finds what a wait loop tries: a probe, or a break once something answers.
	probeRe = lazyregexp.New(`\b(?:curl|wget|nc|pg_isready|mysqladmin|redis-cli|kubectl\s+(?:rollout\s+status|wait|get)|docker\s+(?:inspect|compose\s+ps))\b|\bbreak\b`)
)

// benignExit reports whether a failed shell call only answered a question: a search that
// found nothing (grep, rg: 1), files that differ (diff, cmp, git diff --exit-code: 1), a
// test that is false (test, [, [[: 1), a program that is not installed when asked
// (command -v, which, type, hash: 1), a process that is not running (pgrep: 1), a service
// that does not answer yet (curl -f, nc -z, pg_isready, … in a probe or a wait loop).
func benignExit(n noteView) bool {
	if n.exit == nil {
		return false
	}
	code := *n.exit
	l, ok := last(n.input)
	if !ok {
		return false
	}
	p, sub := l.program()
	ws := l.words
	has := func(flags ...string) bool {
		for _, w := range ws {
			for _, f := range flags {
				if w == f || strings.HasPrefix(f, "--") && strings.HasPrefix(w, f+"=") {
					return true
				}
				// -fsS holds -f
				if len(f) == 2 && f[0] == '-' && len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.ContainsRune(w[1:], rune(f[1])) {
					return true
				}
			}
		}
		return false
	}
	looped := loopRe.MatchString(n.input)
	switch {
	case code == 1 && (p == "grep" || p == "egrep" || p == "fgrep" || p == "rg" || p == "ag" || p == "ack" || p == "zgrep" || p == "git" && sub == "grep"):
		return true
	case code == 1 && (p == "diff" || p == "cmp" || p == "colordiff"):
		return true
	case code == 1 && p == "git" && (sub == "diff" || sub == "diff-index" || sub == "diff-files") && has("--exit-code", "--quiet"):
		return true
	case code == 1 && (p == "test" || p == "[" || p == "[["):
		return true
	case code == 1 && (p == "which" || p == "type" || p == "hash" || p == "whereis"):
		return true
	case code == 1 && len(ws) > 1 && ws[0] == "command" && (ws[1] == "-v" || ws[1] == "-V"):
		return true
	case code == 1 && (p == "pgrep" || p == "pidof"):
		return true
	case (code >= 1 && code <= 4 || code == 128) && lookupSub[p+" "+sub]:
		return true // is it there? (npm ls, pip show, kubectl get, docker inspect, git rev-parse …)
	case p == "curl" && has("-f", "--fail", "--fail-with-body") && (looped || code == 7 || code == 28 || code == 52 || code == 56):
		return true // a probe: the service was not up (yet)
	case (p == "nc" && has("-z") || p == "pg_isready" || p == "wget" && has("--spider")) && code != 127:
		return true
	case looped && probeRe.MatchString(n.input):
		return true // a wait loop: its status is its last try's
	}
	return false
}

// noteView is what the command rules read of a failure note.
type noteView struct {
	input, text string
	exit        *int
}

// missingProgram is the program a failed call could not find (exit 127, "command not
// found"), or "".
func missingProgram(n noteView) string {
	t := strings.ToLower(n.text)
	if (n.exit == nil || *n.exit != 127) && !strings.Contains(t, "command not found") {
		return ""
	}
	for _, s := range attempts(n.input) {
		p, _ := s.program()
		if strings.Contains(t, p+": command not found") || strings.Contains(t, p+": not found") ||
			strings.Contains(t, "command not found: "+p) || n.exit != nil && *n.exit == 127 && len(attempts(n.input)) == 1 {
			return p
		}
	}
	return ""
}

// genericArgs say nothing about which attempt a command is.
var genericArgs = setOf(`. .. ./... ... / ./ * src lib test tests app internal cmd pkg all origin main master head
	-- - ~ true false yes no on off 0 1 build dist out tmp /tmp`)

// distinctive are the words of a command that name what it works on: files, targets,
// patterns, identifiers; not its program, subcommand, flags or everyday words.
func distinctive(s simple) []string {
	p, sub := s.program()
	var out []string
	for _, w := range s.words {
		if v, ok := strings.CutPrefix(w, "--"); ok {
			// --config=x.yaml: the value can be distinctive
			if _, val, ok := strings.Cut(v, "="); ok {
				w = val
			} else {
				continue
			}
		}
		if strings.HasPrefix(w, "-") || assignRe.MatchString(w) || wrappers[w] {
			continue
		}
		norm := strings.TrimSuffix(strings.TrimPrefix(w, "./"), "/")
		lo := strings.ToLower(norm)
		if norm == "" || lo == p || lo == sub || strings.Contains(sub, " ") && strings.Contains(sub, lo) || base(lo) == p ||
			genericArgs[lo] || len([]rune(norm)) < 3 || isLauncher(lo) || interpreters[lo] || lo == "run" || isNumber(lo) {
			continue
		}
		if !slices.Contains(out, norm) {
			out = append(out, norm)
		}
	}
	return out
}

func isLauncher(w string) bool {
	_, ok := launchers[w]
	return ok
}

func isNumber(s string) bool {
	return strings.TrimLeft(s, "0123456789.") == ""
}

// occursIn reports whether a distinctive word occurs in line as a whole token, or as the
// end of a longer path (backend/scripts/seed.py holds scripts/seed.py): not inside a longer
// word, and not as the first part of a path (parser/duration.go does not hold parser).
func occursIn(word, line string) bool {
	rs, ws := []rune(line), []rune(word)
	for i := 0; i+len(ws) <= len(rs); i++ {
		if string(rs[i:i+len(ws)]) != word {
			continue
		}
		before, after := ' ', ' '
		if i > 0 {
			before = rs[i-1]
		}
		if j := i + len(ws); j < len(rs) {
			after = rs[j]
			if after == '.' && j+1 < len(rs) && isTokenRune(rs[j+1]) {
				after = 'x' // parser.go goes on
			}
		}
		if (!isTokenRune(before) || before == '/') && !isTokenRune(after) && after != '/' {
			return true
		}
	}
	return false
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-'
}

// alternativesOf are the programs that do a missing program's job.
var alternativesOf = map[string][]string{
	"rg": {"grep", "ag", "ack", "git"}, "ag": {"grep", "rg", "git"}, "ack": {"grep", "rg"}, "fd": {"find"}, "fdfind": {"find"},
	"jq": {"python", "python3", "node", "yq", "gojq", "jaq"}, "yq": {"python", "python3", "jq"}, "bat": {"cat", "less", "head", "sed"},
	"eza": {"ls", "tree"}, "exa": {"ls", "tree"}, "tree": {"find", "ls"}, "gsed": {"sed"}, "gawk": {"awk"}, "ggrep": {"grep"},
	"python": {"python3", "uv", "py"}, "pip": {"pip3", "python3", "python", "uv"}, "pip3": {"python3", "uv", "pip"},
	"docker-compose": {"docker", "podman-compose", "podman"}, "docker": {"podman"}, "node": {"nodejs", "bun", "deno"},
	"yarn": {"npm", "pnpm", "corepack", "npx"}, "pnpm": {"npm", "npx", "corepack"}, "npx": {"pnpm", "bunx", "npm"},
	"http": {"curl", "wget"}, "wget": {"curl"}, "curl": {"wget"}, "realpath": {"readlink"}, "timeout": {"gtimeout"},
	"md5sum": {"md5"}, "sha256sum": {"shasum"}, "shasum": {"sha256sum"}, "xdg-open": {"open"}, "open": {"xdg-open"},
	"pbcopy": {"xclip", "xsel"}, "tac": {"tail"},
}

// rawProgram is the program a simple command starts, as written (python3, not its script).
func rawProgram(s simple) string {
	ws := s.words
	for len(ws) > 0 && (assignRe.MatchString(ws[0]) || wrappers[ws[0]]) {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return ""
	}
	return base(ws[0])
}

// unknownSubRe: the program said it has no such script, target, recipe or subcommand; then
// any other one of the same program is the try that replaces it.
var unknownSubRe = lazyregexp.New(`(?i)missing script|no rule to make target|no such (?:command|subcommand|task|recipe)|unknown (?:command|subcommand|script|target)|does not contain recipe|couldn't find a script named|task ["']?[\w:.-]+["']? (?:does not exist|not found)|is not a (?:task|command|script)`)

// related reports whether worked is evidently another try at what failed: the same
// program and subcommand, one of the failed command's distinctive words (a file, a target,
// a pattern), or a command the failure's output names ("please run terraform init").
func related(failed noteView, worked string) bool {
	fs, ws := attempts(failed.input), attempts(worked)
	if len(fs) == 0 || len(ws) == 0 {
		return false
	}
	unknownSub := unknownSubRe.MatchString(failed.text)
	for _, f := range fs {
		fp, fsub := f.program()
		for _, w := range ws {
			wp, wsub := w.program()
			if fp != "" && fp == wp && (fsub == wsub || unknownSub) {
				return true
			}
		}
		for _, d := range distinctive(f) {
			if occursIn(d, worked) {
				return true
			}
		}
	}
	if m := missingProgram(failed); m != "" {
		// a missing program: the one that does its job is the alternative
		for _, s := range splitShell(worked) {
			if slices.Contains(alternativesOf[m], rawProgram(s)) {
				return true
			}
		}
	}
	out := strings.ToLower(failed.text)
	for _, w := range ws {
		wp, wsub := w.program()
		if wsub != "" && strings.Contains(out, strings.ToLower(wp+" "+wsub)) {
			return true
		}
	}
	return false
}

// selfExplained reports whether the failure's output already spells out the command that
// worked ("use git push --set-upstream origin x", "Run 'mix format' to fix"): the tool
// teaches it again whenever it is needed, so it is no lesson to keep.
func selfExplained(failed noteView, worked string) bool {
	w := strings.Join(commandKeys(worked), " && ")
	return len(w) >= 4 && strings.Contains(strings.Join(strings.Fields(failed.text), " "), w)
}

// rerun reports whether worked only runs again (part of) what failed, perhaps after a wait:
// a flake or a service that was not up, not a fix.
func rerun(failed, worked string) bool {
	fw := commandKeys(failed)
	n := 0
	for _, k := range commandKeys(worked) {
		if strings.HasPrefix(k, "sleep ") || k == "sleep" || k == "wait" {
			continue
		}
		if !slices.Contains(fw, k) {
			return false
		}
		n++
	}
	return n > 0
}

// rerunPlus reports whether worked is what failed with more commands after it (a rerun
// that also checks other things), not before it (a setup step: a fix).
func rerunPlus(failed, worked string) bool {
	fk, wk := commandKeys(failed), commandKeys(worked)
	return len(fk) > 0 && len(wk) > len(fk) && slices.Equal(wk[:len(fk)], fk)
}

// setupFirst returns the commands worked runs before the whole of what failed, when that is
// all it adds: `make test-db && go test ./...` after `go test ./...`.
func setupFirst(failed, worked string) string {
	fk, wk := commandKeys(failed), commandKeys(worked)
	if len(fk) == 0 || len(wk) <= len(fk) || !slices.Equal(wk[len(wk)-len(fk):], fk) {
		return ""
	}
	var pre []string
	for _, s := range splitShell(worked)[:len(wk)-len(fk)] {
		pre = append(pre, strings.Join(s.words, " "))
	}
	return strings.Join(pre, " && ")
}

// lookup reports whether worked only looks at what the failed command used (`npm run` after
// `npm run build`): the same program with a subset of its words.
func lookup(failed, worked string) bool {
	ws := attempts(worked)
	if len(ws) != 1 {
		return false
	}
	wp, _ := ws[0].program()
	for _, f := range attempts(failed) {
		fp, _ := f.program()
		if fp != wp || len(ws[0].words) >= len(f.words) {
			continue
		}
		sub := true
		for _, w := range ws[0].words {
			if !slices.Contains(f.words, w) {
				sub = false
				break
			}
		}
		if sub {
			return true
		}
	}
	return false
}

// commandKeys are a line's simple commands as normalised strings, in order.
func commandKeys(line string) []string {
	var out []string
	for _, s := range splitShell(line) {
		out = append(out, strings.Join(s.words, " "))
	}
	return out
}
