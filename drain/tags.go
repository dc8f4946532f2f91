package drain

// Tags, entities and files: what the commands and the prose of a proposal name (collector).

import (
	"slices"
	"strings"
	"unicode"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/queue"
)

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

var backticked = lazyregexp.New("`([^`\n]+)`")

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

var (
	cmdSplit = lazyregexp.New(`&&|\|\||[;|&\n]`)
	redirect = lazyregexp.New(`\d*>&\d+|&>`)
	cmdName  = lazyregexp.New(`^[a-z][a-z0-9._+-]*$`)
	// runners run the program named after them: the program is the lesson's subject.
	runners   = map[string]bool{"npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true}
	assign    = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*=`)
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
// are left out), so finding them in prose names the tool. A variable's initialiser, not an
// init function: substance.go's init copies them into names, and init functions run in the
// order of their files' names, package variables before all of them.
var proseTools = setOf(`npm pnpm yarn bun npx deno gofmt golangci-lint cargo rustc rustup pip pip3 pipx
	poetry uv pytest jest vitest mocha tsc eslint prettier docker docker-compose podman kubectl terraform
	gradle mvn dotnet rspec rubocop composer psql mysql sqlite3 webpack vite turbo nx lerna tox ruff mypy black
	flake8 clippy bazel cmake ninja gcc clang`)

func proseWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
}

var (
	pathTrim   = "\"'`()[]{}<>,;!?*"
	lineSuffix = lazyregexp.New(`(?::\d+)+:?$`)
	slashPath  = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_.-]+)+/?$`)
	filePath   = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.(?:go|mod|sum|md|js|mjs|cjs|ts|tsx|jsx|json|ya?ml|toml|py|rb|rs|java|kt|swift|c|h|cc|cpp|hpp|cs|php|sh|sql|html|css|scss|lock|txt|proto|gradle|xml|ini|cfg|conf|tf|vue|svelte)$`)
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
