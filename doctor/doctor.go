// Package doctor checks a reflect setup and says, for each problem, the command that fixes it:
// whether reflect's hooks are wired into Claude Code and Codex and the binary they run exists,
// whether the knowledge repository opens, HEAD's objects read back intact and the work tree
// matches HEAD, whether every learning parses, the index is fresh, the remote answers, and
// the queue and the drain are not stuck.
//
// It only reads: every check goes through the package that owns the state (install, gitstore,
// learnings, index, sync, queue, drain), and the git CLI, when there is one, runs without
// optional locks. It never repairs anything itself; a write that was cut short is gitstore's
// to settle (Repo.Recover, which `reflect doctor --repair` runs first).
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/pelletier/go-toml/v2"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/internal/shellquote"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	memsync "github.com/reflect-memory/reflect/sync"
	"github.com/reflect-memory/reflect/team"
)

// Severity says how much a finding matters.
type Severity string

// Severities: an error stops reflect from working (doctor exits non-zero); a warning is
// something reflect works around, or a part of it that is not doing its job.
const (
	OK    Severity = "ok"
	Warn  Severity = "warn"
	Error Severity = "error"
)

// Finding is one result of a check.
type Finding struct {
	Check    string   `json:"check"` // claude, codex, binary, repo, objects, worktree, learnings, index, resident, remote, team, queue, drain, caps
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`     // the command that fixes it; set on every finding that is not ok
	Details  []string `json:"details,omitempty"` // the files, entries or lines it is about
}

// Report is every finding, in the order the checks ran.
type Report struct {
	Home     string    `json:"home"`
	Healthy  bool      `json:"healthy"` // no error finding
	OK       int       `json:"ok"`
	Warnings int       `json:"warnings"`
	Errors   int       `json:"errors"`
	Findings []Finding `json:"findings"`
}

// Options say what to check and how.
type Options struct {
	Home string // the knowledge repository
	// Cwd, when set, also checks the project-scope hook files (.claude/settings.json,
	// .codex/hooks.json) of the repository holding it.
	Cwd string
	// Reflect is how fixes name reflect ("reflect --home DIR" when the home is not the
	// default); "" is "reflect".
	Reflect string
	// NoGit skips what needs the git CLI (fsck, status); it is skipped anyway when git is not
	// on PATH. The in-process checks of objects and work tree still run.
	NoGit         bool
	Now           time.Time     // zero: time.Now()
	RemoteTimeout time.Duration // how long the remote may take to answer; 0: 5 s
	GitTimeout    time.Duration // how long git fsck and git status may take; 0: 20 s
}

type doctor struct {
	o         Options
	rep       Report
	learnings int      // valid learnings in HEAD, for the index check
	engines   []string // the reflects whose reflect-engine was checked
}

// Run runs every check and returns the report. A check that cannot run because an earlier
// one failed (no repository: nothing in it can be checked) reports nothing.
func Run(ctx context.Context, o Options) *Report {
	if o.Reflect == "" {
		o.Reflect = "reflect"
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.RemoteTimeout == 0 {
		o.RemoteTimeout = 5 * time.Second
	}
	if o.GitTimeout == 0 {
		o.GitTimeout = 20 * time.Second
	}
	d := &doctor{o: o, rep: Report{Home: o.Home, Findings: []Finding{}}}
	for _, host := range install.Hosts {
		d.wiring(host)
	}
	d.mcp(install.Claude)
	d.mcp(install.Codex)
	if lean := runningEngine(); lean != "" && !slices.Contains(d.engines, lean) {
		d.engine(lean, "this reflect is")
	}
	if r, intact := d.repository(ctx); r != nil {
		if intact {
			d.index(r)
			d.freshness(ctx, r)
		}
		d.resident(r)
		d.remote(ctx, r)
		d.teams(r)
		if intact {
			d.queue(r)
		}
		d.drain(r)
	}
	d.rep.Healthy = d.rep.Errors == 0
	return &d.rep
}

func (d *doctor) add(f Finding) {
	switch f.Severity {
	case OK:
		d.rep.OK++
	case Warn:
		d.rep.Warnings++
	default:
		d.rep.Errors++
	}
	d.rep.Findings = append(d.rep.Findings, f)
}

func (d *doctor) reflect(args string) string { return d.o.Reflect + " " + args }

// q quotes a path or URL for the shell in a fix: a home with a space in it must stay one word
// of the command the user copies ("rm -rf /Users/Ann Lee/…" removes two other things).
func q(s string) string { return shellquote.Quote(s) }

// hostName is how a harness is called in messages.
func hostName(harness string) string { return install.HostName(harness) }

// handler is one of reflect's hook handlers found in a host's configuration file.
type handler struct {
	event        string
	group, index int // positions in hooks.<event> and in the group's "hooks"
	program      string
	codex        install.CodexHook // the handler as Codex identifies it for trust
}

// wired is what one configuration file holds of reflect.
type wired struct {
	path     string
	project  bool
	events   []string
	handlers []handler
}

// wiring checks that harness runs reflect's hooks on every event reflect handles, that the
// binary they name exists, and for Codex that hooks are enabled and reflect's are trusted.
func (d *doctor) wiring(harness string) {
	fix := d.reflect("install " + harness)
	user, err := install.ConfigPath(harness, false, "")
	if err != nil {
		d.add(Finding{Check: harness, Severity: Warn, Message: err.Error(), Fix: fix})
		return
	}
	paths := []string{user}
	if d.o.Cwd != "" {
		if p, err := install.ConfigPath(harness, true, d.o.Cwd); err == nil && p != user {
			paths = append(paths, p)
		}
	}
	var found []wired
	for i, p := range paths {
		w, err := readWiring(p, harness)
		if err != nil {
			d.add(Finding{Check: harness, Severity: Error, Message: fmt.Sprintf("cannot read the hooks: %v", err),
				Fix: "correct " + p + " where the error says, then " + fix})
			return
		}
		if len(w.events) > 0 {
			w.project = i > 0
			found = append(found, w)
		}
	}
	if len(found) == 0 && !hostPresent(harness) {
		home, err := install.HostHome(harness)
		if err != nil {
			home = filepath.Dir(user)
		}
		d.add(Finding{Check: harness, Severity: OK, Message: fmt.Sprintf("%s is not set up here (no %s, no %s on PATH)", hostName(harness), home, strings.Join(install.HostBinaries(harness), " or "))})
		return
	}
	if len(found) == 0 {
		d.add(Finding{Check: harness, Severity: Warn, Fix: fix,
			Message: fmt.Sprintf("reflect's hooks are not in %s: %s sessions are not captured or recalled", user, hostName(harness))})
		return
	}
	for _, w := range found {
		fix := fix
		if w.project {
			fix += " --project"
		}
		want := install.Events(harness)
		var missing []string
		for _, ev := range want {
			if !slices.Contains(w.events, ev.Name) {
				missing = append(missing, ev.Name)
			}
		}
		if len(missing) > 0 {
			d.add(Finding{Check: harness, Severity: Warn, Fix: fix,
				Message: fmt.Sprintf("hooks wired in %s for %d of %d events (missing %s)", w.path, len(want)-len(missing), len(want), strings.Join(missing, ", "))})
		} else {
			d.add(Finding{Check: harness, Severity: OK, Message: fmt.Sprintf("hooks wired in %s (%d events)", w.path, len(want))})
		}
		d.binaries(harness, w, fix)
		if harness == install.Codex {
			d.codex(w)
		}
		if harness == install.Gemini {
			if off, why := install.GeminiHooksDisabled(w.path); off {
				d.add(Finding{Check: harness, Severity: Error, Fix: "edit " + w.path + " (hooksConfig), or /hooks enable-all in Gemini CLI",
					Message: fmt.Sprintf("Gemini CLI runs none of reflect's hooks: %s in %s", why, w.path)})
			}
		}
	}
}

// hostPresent says whether the host looks installed: its directory exists or its command is
// on PATH.
func hostPresent(harness string) bool {
	found, _ := install.Present(harness)
	return found
}

// readWiring finds reflect's hooks in a host's configuration file. Which events hold them is
// install's own judgement (an uninstall dry run, which writes nothing and refuses the files
// install refuses); the handlers' positions and programs are then read from the same JSON.
func readWiring(path, harness string) (wired, error) {
	w := wired{path: path}
	res, err := install.Uninstall(install.Options{Harness: harness, Path: path, DryRun: true})
	if err != nil {
		return w, err
	}
	w.events = res.Removed
	if len(w.events) == 0 {
		return w, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return w, err
	}
	if harness == install.Opencode {
		if bin, _ := install.OpencodePluginBinary(data); bin != "" {
			for i, ev := range w.events {
				w.handlers = append(w.handlers, handler{event: ev, index: i, program: bin})
			}
		}
		return w, nil
	}
	if hs, ok := flatHandlers(data, harness, w.events); ok {
		w.handlers = hs
		return w, nil
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Command       string       `json:"command"`
				Timeout       *json.Number `json:"timeout"`
				TimeoutSec    *json.Number `json:"timeoutSec"`
				Async         bool         `json:"async"`
				StatusMessage *string      `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	json.Unmarshal(data, &doc) // a value of an unexpected shape is skipped; install has vetted the file
	for _, ev := range w.events {
		for gi, g := range doc.Hooks[ev] {
			for hi, h := range g.Hooks {
				prog, ok := install.HookProgram(h.Command, harness)
				if !ok {
					continue
				}
				ch := install.CodexHook{Event: ev, Matcher: g.Matcher, Command: h.Command, Async: h.Async, StatusMessage: h.StatusMessage}
				for _, t := range []*json.Number{h.Timeout, h.TimeoutSec} {
					if t == nil || ch.Timeout != nil {
						continue
					}
					if n, err := t.Int64(); err == nil {
						ch.Timeout = &n
					}
				}
				w.handlers = append(w.handlers, handler{event: ev, group: gi, index: hi, program: prog, codex: ch})
			}
		}
	}
	return w, nil
}

// binaries checks that every program w's handlers run exists and can be executed.
func (d *doctor) binaries(harness string, w wired, fix string) {
	var progs []string
	for _, h := range w.handlers {
		if !slices.Contains(progs, h.program) {
			progs = append(progs, h.program)
		}
	}
	for _, prog := range progs {
		path, problem := resolve(prog)
		switch {
		case problem != "":
			d.add(Finding{Check: "binary", Severity: Error, Fix: fix + "   (run it with the reflect the hooks should use)",
				Message: fmt.Sprintf("%s hooks run %s, which %s: every hook fails", hostName(harness), prog, problem)})
		case path == "":
			d.add(Finding{Check: "binary", Severity: OK, Message: fmt.Sprintf("%s hooks run %s (not checked: the host expands it)", hostName(harness), prog)})
		default:
			d.add(Finding{Check: "binary", Severity: OK, Message: fmt.Sprintf("%s hooks run %s", hostName(harness), path)})
			if !slices.Contains(d.engines, path) {
				d.engines = append(d.engines, path)
				d.engine(path, hostName(harness)+" hooks run")
			}
		}
	}
}

// resolve finds the executable a hook's program names, as a shell would: a path is taken as
// it is (~ is the home directory), a bare name is looked up on PATH. A program holding a
// variable ($CLAUDE_PLUGIN_ROOT) is expanded by the host and not checked ("", "").
func resolve(prog string) (path, problem string) {
	if strings.Contains(prog, "$") {
		return "", ""
	}
	if rest, ok := strings.CutPrefix(prog, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			prog = filepath.Join(home, rest)
		}
	}
	if !strings.ContainsAny(prog, `/\`) {
		p, err := exec.LookPath(prog)
		if err != nil {
			return "", "is not on PATH"
		}
		return p, ""
	}
	fi, err := os.Stat(prog)
	switch {
	case err != nil:
		return "", "does not exist"
	case fi.IsDir():
		return "", "is a directory"
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "", "is not executable"
	}
	return prog, ""
}

// codex checks what Codex needs besides hooks.json: hooks not switched off in config.toml,
// and each of reflect's handlers trusted in /hooks as it is now (Codex silently skips a
// handler that was never trusted, or whose definition changed since: it records trust as
// [hooks.state."<file>:<event_snake>:<group>:<handler>"] trusted_hash = "sha256:…" and runs
// the handler only while that hash is the one install.CodexHookHash computes, as Codex does).
// With Codex on PATH, a setup in which Codex runs none of reflect's hooks is an error; a
// handler left untrusted beside trusted ones is a warning, since a Codex that does not know
// an event (SessionEnd, before mid-2026) never lists it in /hooks.
func (d *doctor) codex(w wired) {
	home, err := install.HostHome(install.Codex)
	if err != nil || len(w.handlers) == 0 {
		return
	}
	severe := Warn
	if _, err := exec.LookPath("codex"); err == nil {
		severe = Error
	}
	cfg := filepath.Join(home, "config.toml")
	if off, key := install.CodexHooksDisabled(cfg); off {
		d.add(Finding{Check: "codex", Severity: severe, Message: fmt.Sprintf("Codex hooks are disabled in %s (%s = false under [features]): Codex runs none of reflect's hooks", cfg, key),
			Fix: fmt.Sprintf("set %s = true under [features] in %s (or remove the line)", key, cfg)})
	}
	var state struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
				Enabled     *bool  `toml:"enabled"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if data, err := os.ReadFile(cfg); err == nil {
		if err := toml.Unmarshal(data, &state); err != nil {
			d.add(Finding{Check: "codex", Severity: severe, Message: fmt.Sprintf("cannot tell whether reflect's hooks are trusted: %s: %v", cfg, err),
				Fix: "correct " + cfg + " where the error says"})
			return
		}
	}
	const trustFix = "codex, then type /hooks and trust reflect's hooks"
	var untrusted, modified, disabled []string
	for _, h := range w.handlers {
		st, ok := state.Hooks.State[install.CodexTrustKey(w.path, h.event, h.group, h.index)]
		switch {
		case ok && st.Enabled != nil && !*st.Enabled:
			disabled = append(disabled, h.event)
		case !ok || st.TrustedHash == "":
			untrusted = append(untrusted, h.event)
		case st.TrustedHash != install.CodexHookHash(h.codex):
			modified = append(modified, h.event)
		}
	}
	if len(disabled) > 0 {
		d.add(Finding{Check: "codex", Severity: Warn, Fix: "codex, then type /hooks and enable reflect's hooks",
			Message: fmt.Sprintf("reflect's %s hooks are disabled in Codex (%s)", strings.Join(disabled, ", "), cfg)})
	}
	if len(modified) > 0 {
		d.add(Finding{Check: "codex", Severity: severe, Fix: trustFix,
			Message: fmt.Sprintf("reflect's %s hooks changed since they were trusted in Codex (the trusted_hash in %s is not the hooks' hash): Codex skips them silently", strings.Join(modified, ", "), cfg)})
	}
	switch {
	case len(untrusted) == len(w.handlers):
		d.add(Finding{Check: "codex", Severity: severe, Fix: trustFix,
			Message: "reflect's hooks are not trusted in Codex yet: Codex skips them silently"})
	case len(untrusted) > 0:
		d.add(Finding{Check: "codex", Severity: Warn, Fix: trustFix,
			Message: fmt.Sprintf("%d of %d reflect hooks are not trusted in Codex (%s): Codex skips them silently (a Codex that does not know an event does not list it in /hooks)", len(untrusted), len(w.handlers), strings.Join(untrusted, ", "))})
	case len(modified)+len(disabled) == 0:
		d.add(Finding{Check: "codex", Severity: OK, Message: fmt.Sprintf("reflect's hooks are trusted (%s)", cfg)})
	}
}

// repository opens the knowledge repository and checks HEAD, its objects, the work tree and
// the learnings. It returns the repository when it opens, and whether what HEAD holds can be
// read.
func (d *doctor) repository(ctx context.Context) (*gitstore.Repo, bool) {
	r, err := gitstore.Open(d.o.Home)
	switch {
	case errors.Is(err, gitstore.ErrNotInitialised):
		d.add(Finding{Check: "repo", Severity: Error, Message: fmt.Sprintf("no knowledge repository at %s", d.o.Home), Fix: d.reflect("init")})
		return nil, false
	case err != nil:
		d.add(Finding{Check: "repo", Severity: Error, Message: fmt.Sprintf("%s cannot be opened: %v", d.o.Home, err), Fix: d.reflect("init")})
		return nil, false
	}
	d.settings(r)
	head, err := r.Head()
	switch {
	case err != nil:
		d.add(Finding{Check: "repo", Severity: Error, Message: fmt.Sprintf("%s: %v", r.Root(), err), Fix: "git -C " + q(r.Root()) + " checkout main"})
		return nil, false
	case head.IsZero():
		d.add(Finding{Check: "repo", Severity: Error, Message: fmt.Sprintf("%s has no commit yet", r.Root()),
			Fix: fmt.Sprintf("mv %s %s && %s", q(r.Root()), q(r.Root()+".empty"), d.reflect("init"))})
		return nil, false
	}
	files, err := r.Walk("")
	if err != nil {
		d.add(Finding{Check: "repo", Severity: OK, Message: fmt.Sprintf("%s opens (HEAD %s)", r.Root(), head.String()[:7])})
		d.add(Finding{Check: "objects", Severity: Error, Message: "HEAD's tree cannot be read: " + err.Error(), Fix: d.fixObjects(r)})
		return r, false
	}
	n := 0
	for _, f := range files {
		if _, ok := learnings.IDFromPath(f.Path); ok {
			n++
		}
	}
	files = d.paths(r, files)
	dirty, objects := d.objects(ctx, r, files)
	state := "healthy"
	if objects.Severity != OK {
		state = "opens"
	}
	d.add(Finding{Check: "repo", Severity: OK, Message: fmt.Sprintf("%s %s (%s, HEAD %s)", r.Root(), state, count(n, "learning"), head.String()[:7])})
	d.add(objects)
	if objects.Severity != OK {
		return r, false
	}
	d.worktree(ctx, r, dirty)
	all, bad, err := learnings.LoadAll(r)
	if err != nil {
		d.add(Finding{Check: "learnings", Severity: Error, Message: err.Error(), Fix: d.fixObjects(r)})
		return r, false
	}
	if len(bad) > 0 {
		var lines []string
		for _, e := range bad {
			lines = append(lines, strings.Split(e.Error(), "\n")...)
		}
		d.add(Finding{Check: "learnings", Severity: Warn, Details: lines,
			Message: fmt.Sprintf("%d of %d learning files are invalid: search and recall skip them", len(bad), len(all)+len(bad)),
			Fix:     fmt.Sprintf("correct each file in %s where its line says, then git -C %s commit -am 'learnings: fix'", r.Root(), q(r.Root()))})
	} else {
		d.add(Finding{Check: "learnings", Severity: OK, Message: fmt.Sprintf("every learning parses (%d)", len(all))})
	}
	var notes []string
	for _, l := range all {
		for _, w := range l.Warnings {
			notes = append(notes, l.RelPath()+": "+w)
		}
	}
	if len(notes) > 0 {
		d.add(Finding{Check: "learnings", Severity: Warn, Details: notes,
			Message: fmt.Sprintf("%s hold what a reviewer should know", count(len(notes), "learning")),
			Fix:     fmt.Sprintf("%s ID, or correct the file in %s and commit", d.reflect("edit"), r.Root())})
	}
	if dups, err := learnings.DuplicateIDs(r); err == nil && len(dups) > 0 {
		var lines []string
		for id, paths := range dups {
			lines = append(lines, id+": "+strings.Join(paths, ", "))
		}
		sort.Strings(lines)
		d.add(Finding{Check: "ids", Severity: Error, Details: lines,
			Message: fmt.Sprintf("%s claimed by more than one file: commands refuse the id and recall may show either", count(len(dups), "id")),
			Fix:     fmt.Sprintf("git -C %s rm the file that should not be there, and commit", q(r.Root()))})
	}
	d.learnings = len(all)
	return r, true
}

// paths checks that every file of HEAD is one reflect would accept from a remote: a path git
// checks out safely everywhere, a regular or executable file. A symlink, a gitlink or a
// .git-like path committed by hand (git add) is an error: sync refuses to take one, so the
// other laptops could not sync this one's history. It returns the files whose content can be
// read back (gitlinks have none here).
func (d *doctor) paths(r *gitstore.Repo, files []gitstore.File) []gitstore.File {
	var bad []string
	kept := files[:0:0]
	for _, f := range files {
		switch err := gitstore.VerifyPath(f.Path); {
		case err != nil:
			bad = append(bad, err.Error())
		case f.Mode != filemode.Regular && f.Mode != filemode.Executable:
			bad = append(bad, fmt.Sprintf("%s: a %s", f.Path, gitstore.FileKind(f.Mode)))
		}
		if f.Mode != filemode.Submodule {
			kept = append(kept, f)
		}
	}
	if len(bad) > 0 {
		d.add(Finding{Check: "paths", Severity: Error, Details: bad,
			Message: fmt.Sprintf("%s reflect would refuse from a remote (the other laptops' syncs will stop on them)", count(len(bad), "file")),
			Fix:     fmt.Sprintf("git -C %s rm --cached each one, commit, then reflect sync", q(r.Root()))})
	}
	return kept
}

// settings checks that both settings files load, and names the keys they hold that reflect
// ignores: a local key in the synced reflect.toml was written by someone who may not choose
// it for this machine.
func (d *doctor) settings(r *gitstore.Repo) {
	shared, local := filepath.Join(r.Root(), config.FileName), r.LocalSettingsPath()
	var ce *config.Error
	if err := r.SettingsError(); err != nil {
		fix := fmt.Sprintf("correct %s where the error says, then git -C %s commit -am 'reflect.toml: fix' (or reflect config set KEY VALUE)", shared, r.Root())
		if errors.As(err, &ce) && ce.File == local {
			fix = fmt.Sprintf("correct %s where the error says (or reflect config set KEY VALUE)", local)
		}
		d.add(Finding{Check: "settings", Severity: Error, Fix: fix,
			Message: err.Error() + " (hooks use the defaults for that file; commands other than sync, config and doctor refuse to run)"})
		return
	}
	if w := r.SettingsWarnings(); len(w) > 0 {
		var lines, keys []string
		for _, x := range w {
			lines = append(lines, x.String())
			keys = append(keys, x.Key)
		}
		d.add(Finding{Check: "settings", Severity: Warn, Details: lines,
			Message: fmt.Sprintf("%s ignored: set in the wrong settings file", strings.Join(keys, ", ")),
			Fix:     fmt.Sprintf("remove them from %s and commit; set a local key on each machine with reflect config set KEY VALUE", shared)})
		return
	}
	if removed, clear := r.RemovedSettings(); len(removed) > 0 {
		d.add(Finding{Check: "settings", Severity: Warn,
			Message: fmt.Sprintf("reflect.toml set %s, which are local to each machine: they were removed, not carried over, since this memory has a remote and whoever can push to it writes reflect.toml", strings.Join(removed, ", ")),
			Fix:     "reflect config set KEY VALUE for the ones you chose (said once: doctor will not repeat it)"})
		if err := clear(); err != nil {
			d.add(Finding{Check: "settings", Severity: Warn, Message: "cannot clear the list of removed settings: " + err.Error()})
		}
		return
	}
	if _, err := os.Stat(local); errors.Is(err, os.ErrNotExist) {
		d.add(Finding{Check: "settings", Severity: Warn, Message: fmt.Sprintf("no %s yet: the next reflect command moves the local keys of reflect.toml there (or, when the memory has a remote, removes them)", local),
			Fix: d.reflect("config list")})
		return
	}
	d.add(Finding{Check: "settings", Severity: OK, Message: fmt.Sprintf("%s (shared) and %s (this machine) load", config.FileName, local)})
}

// change is a file of the work tree that differs from HEAD.
type change struct{ path, what string }

// objects reads every blob of HEAD (Walk has read HEAD's commit and every tree), checks that
// each one's content hashes to its id and compares it with the work tree file; then, when git
// is installed, runs git fsck over the whole repository. It returns the files that differ
// from HEAD, and its finding.
func (d *doctor) objects(ctx context.Context, r *gitstore.Repo, files []gitstore.File) ([]change, Finding) {
	var broken []string
	var dirty []change
	for _, p := range r.Verify(files) {
		if p.Corrupt != "" {
			broken = append(broken, p.Path+": "+p.Corrupt)
		} else {
			dirty = append(dirty, change{p.Path, p.Work})
		}
	}
	msg := fmt.Sprintf("HEAD's %s read back intact", count(len(files), "file"))
	if git, ok := d.git(); ok && len(broken) == 0 {
		out, err := d.run(ctx, git, r.Root(), "fsck", "--no-progress", "--no-dangling")
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			msg += fmt.Sprintf("; git fsck gave no verdict within %s", d.o.GitTimeout)
		case err != nil:
			broken = append(broken, firstLines(out, 10)...)
			if len(broken) == 0 {
				broken = append(broken, "git fsck: "+err.Error())
			}
		default:
			msg += "; git fsck finds nothing"
		}
	}
	if len(broken) > 0 {
		return nil, Finding{Check: "objects", Severity: Error, Details: broken, Fix: d.fixObjects(r),
			Message: fmt.Sprintf("the repository is corrupt (%s)", count(len(broken), "problem"))}
	}
	return dirty, Finding{Check: "objects", Severity: OK, Message: msg}
}

// fixObjects is what to do about a corrupt repository: clone it again from the remote, or
// look at what git fsck says.
func (d *doctor) fixObjects(r *gitstore.Repo) string {
	if url := r.Remote(r.Config().Sync.Remote); url != "" {
		return fmt.Sprintf("mv %s %s && %s", q(r.Root()), q(r.Root()+".broken"), d.reflect("init --from "+q(memsync.RedactURL(url))))
	}
	return fmt.Sprintf("git -C %s fsck --full   (then restore the damaged files from a backup)", q(r.Root()))
}

// worktree reports the files that differ from HEAD; with git installed, git status adds what
// reading HEAD's files cannot see (untracked files, staged changes). git runs without
// optional locks, so it never rewrites .git/index.
func (d *doctor) worktree(ctx context.Context, r *gitstore.Repo, dirty []change) {
	// a write cut short (a killed process, a full disk) leaves its paths between HEAD and
	// what it was writing: reflect's own next write settles them, a commit by hand must not
	interrupted, err := r.InterruptedWrite()
	if err != nil {
		d.add(Finding{Check: "worktree", Severity: Error, Message: "the journal of reflect's writes cannot be read, so every write stops: " + err.Error(),
			Fix: "remove the file the message names, once no reflect process is running"})
	}
	if git, ok := d.git(); ok {
		out, err := d.run(ctx, git, r.Root(), "--no-optional-locks", "status", "--porcelain", "--untracked-files=all")
		if err == nil {
			for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if len(line) <= 3 {
					continue
				}
				p := strings.Trim(line[3:], `"`)
				if !slices.ContainsFunc(dirty, func(c change) bool { return c.path == p }) {
					dirty = append(dirty, change{p, porcelain(line[:2])})
				}
			}
		}
	}
	if len(interrupted) > 0 {
		var details []string
		for _, p := range interrupted {
			if i := slices.IndexFunc(dirty, func(c change) bool { return c.path == p }); i >= 0 {
				p += " (" + dirty[i].what + ")"
			}
			details = append(details, p)
		}
		dirty = slices.DeleteFunc(dirty, func(c change) bool { return slices.Contains(interrupted, c.path) })
		d.add(Finding{Check: "worktree", Severity: Warn, Details: details,
			Message: fmt.Sprintf("a reflect write was interrupted (its process was killed, or its disk filled) with %s half-written: the next reflect write completes or undoes it; do not commit them by hand", count(len(interrupted), "file")),
			Fix:     d.reflect("doctor --repair")})
	}
	if len(dirty) == 0 {
		if len(interrupted) == 0 && err == nil {
			d.add(Finding{Check: "worktree", Severity: OK, Message: "clean: the work tree matches HEAD"})
		}
		return
	}
	var details []string
	for _, c := range dirty {
		details = append(details, c.path+" ("+c.what+")")
	}
	d.add(Finding{Check: "worktree", Severity: Warn, Details: details,
		Message: fmt.Sprintf("uncommitted changes (%d): reflect never overwrites them, and search cannot see them", len(dirty)),
		Fix:     fmt.Sprintf("git -C %s add -A && git -C %s commit -m 'memory: edits by hand'", q(r.Root()), q(r.Root()))})
}

// porcelain names a `git status --porcelain` code.
func porcelain(xy string) string {
	switch {
	case xy == "??":
		return "untracked"
	case strings.Contains(xy, "D"):
		return "deleted"
	case strings.Contains(xy, "A"):
		return "added"
	case xy[1] == ' ':
		return "staged"
	}
	return "modified"
}

func (d *doctor) git() (string, bool) {
	if d.o.NoGit {
		return "", false
	}
	p, err := exec.LookPath("git")
	return p, err == nil
}

// run runs git in dir within GitTimeout and returns its combined output.
func (d *doctor) run(ctx context.Context, git, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.o.GitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), ctx.Err()
	}
	return string(out), err
}

func firstLines(s string, n int) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… %d more lines", len(lines)-n))
	}
	return lines
}

// index checks that the search index exists, opens, and reflects HEAD's learnings.
func (d *doctor) index(r *gitstore.Repo) {
	fix := d.reflect("reindex")
	st, err := index.Inspect(r)
	switch {
	case err != nil:
		d.add(Finding{Check: "index", Severity: Warn, Message: "cannot be inspected: " + err.Error(), Fix: fix})
	case !st.Exists:
		d.add(Finding{Check: "index", Severity: Warn, Message: "missing: search and recall scan the files until it is built", Fix: fix})
	case st.Problem != "":
		d.add(Finding{Check: "index", Severity: Warn, Message: "cannot be opened: " + st.Problem, Fix: fix})
	case !st.Fresh:
		d.add(Finding{Check: "index", Severity: Warn, Message: fmt.Sprintf("stale: %s not indexed yet (the next search catches up)", count(st.Behind, "changed learning")), Fix: fix})
	case st.Learnings != uint64(d.learnings):
		d.add(Finding{Check: "index", Severity: Warn, Message: fmt.Sprintf("holds %d learnings where HEAD has %d", st.Learnings, d.learnings), Fix: fix})
	default:
		d.add(Finding{Check: "index", Severity: OK, Message: fmt.Sprintf("up to date (%s)", count(int(st.Learnings), "learning"))})
	}
}

// remote checks that the remote answers. An unreachable remote is an error when sync is
// automatic (every session start and drain tries it), a warning otherwise.
func (d *doctor) remote(ctx context.Context, r *gitstore.Repo) {
	sc := r.Config().Sync
	name := sc.Remote
	if name == "" {
		name = "origin"
	}
	set := d.reflect("remote set URL")
	if name != "origin" {
		set = d.reflect("remote --name " + name + " set URL")
	}
	if r.Remote(name) == "" {
		if sc.Auto {
			d.add(Finding{Check: "remote", Severity: Warn, Fix: set,
				Message: fmt.Sprintf("sync.auto is on but remote %q is not set: nothing is synced", name)})
		} else {
			d.add(Finding{Check: "remote", Severity: OK, Message: "local only (no remote)"})
		}
		return
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.RemoteTimeout)
	defer cancel()
	url, err := memsync.Reach(ctx, r, name)
	if err == nil {
		d.add(Finding{Check: "remote", Severity: OK, Message: fmt.Sprintf("%s reachable (%s)", name, url)})
		return
	}
	sev, auto := Warn, "sync is manual"
	if sc.Auto {
		sev, auto = Error, "sync.auto is on"
	}
	fix := set + "   (the remote is " + url + ")"
	if errors.Is(err, memsync.ErrAuth) {
		fix = "export REFLECT_GIT_TOKEN=<token> (https) or ssh-add (ssh), then " + d.reflect("sync")
	}
	d.add(Finding{Check: "remote", Severity: sev, Message: fmt.Sprintf("%s (%s): %v", name, auto, err), Fix: fix})
}

// teams checks each team memory's clone from what is on this machine (team.Check): no
// network, so a team's remote is not asked whether it has more.
func (d *doctor) teams(r *gitstore.Repo) {
	for _, name := range team.Folders(r) {
		h := team.Check(r, name)
		f := Finding{Check: "team", Severity: OK}
		switch {
		case h.Problem != "":
			// team.Check names reflect plainly; a fix here names it as this run was called
			f.Severity, f.Message, f.Fix = Error, "team "+name+": "+h.Problem, strings.ReplaceAll(h.Fix, "reflect team ", d.reflect("team "))
		case !h.Fetched:
			f.Severity, f.Message, f.Fix = Warn, fmt.Sprintf("team %s (%s): never pulled, so recall reads nothing of it", name, h.URL), d.reflect("team sync "+name)
		case h.Behind > 0:
			more := ""
			if !h.BehindComplete {
				more = " or more"
			}
			f.Severity, f.Fix = Warn, d.reflect("team sync "+name)
			f.Message = fmt.Sprintf("team %s (%s): %s%s behind what was last fetched (a sync that refused what came in stays behind; it says why)", name, h.URL, count(h.Behind, "commit"), more)
		default:
			f.Message = fmt.Sprintf("team %s (%s): clone intact, up to date with what was last fetched", name, h.URL)
		}
		d.add(f)
	}
	for _, dir := range team.Leftovers(r) {
		d.add(Finding{Check: "team", Severity: Warn, Message: "a removed team's clone is still at " + dir + ": its removal failed to delete it (the next team removal tries again)", Fix: "rm -rf " + q(dir)})
	}
}

// queue checks for captures the drain gave up on and for entry files that do not parse.
func (d *doctor) queue(r *gitstore.Repo) {
	items, bad, err := queue.List(r)
	if err != nil {
		d.add(Finding{Check: "queue", Severity: Error, Message: err.Error(), Fix: d.fixObjects(r)})
		return
	}
	var failed []string
	pending := 0
	for _, it := range items {
		if it.Failed {
			failed = append(failed, fmt.Sprintf("%s: %s", it.Entry.ID, it.Entry.Error))
		} else {
			pending++
		}
	}
	if len(failed) > 0 {
		d.add(Finding{Check: "queue", Severity: Warn, Details: failed, Fix: d.reflect("queue retry --all"),
			Message: fmt.Sprintf("%s in %s: the drain gave up on them", count(len(failed), "failed capture"), queue.FailedDir)})
	}
	if len(bad) > 0 {
		var details, paths []string
		for _, e := range bad {
			details = append(details, e.Error())
			// a path a sync brought: quoted, it is one word of the fix whatever it holds
			if pe := (*queue.ParseError)(nil); errors.As(e, &pe) {
				paths = append(paths, q(pe.Path))
			}
		}
		d.add(Finding{Check: "queue", Severity: Warn, Details: details,
			Message: fmt.Sprintf("%s the drain cannot read (it skips them)", count(len(bad), "queue file")),
			Fix:     fmt.Sprintf("git -C %s rm -q %s && git -C %s commit -m 'queue: drop unreadable entries'", q(r.Root()), strings.Join(paths, " "), q(r.Root()))})
	}
	if len(failed) == 0 && len(bad) == 0 {
		d.add(Finding{Check: "queue", Severity: OK, Message: fmt.Sprintf("%d pending, none failed", pending)})
	}
}

// drain checks the pause of LLM draining and today's LLM use against its caps (80% warns).
func (d *doctor) drain(r *gitstore.Repo) {
	if p := drainstate.Paused(r); p != nil {
		d.add(Finding{Check: "drain", Severity: Warn, Fix: d.reflect("queue retry --all") + "   (after fixing the cause)",
			Message: fmt.Sprintf("LLM draining paused since %s (%s): %s", p.Since.Local().Format("2006-01-02 15:04"), p.Extractor, p.Reason)})
	} else {
		d.add(Finding{Check: "drain", Severity: OK, Message: "not paused (extractor " + r.Config().Drain.Extractor + ")"})
	}
	cfg := r.Config().Drain
	u := drainstate.UsageOn(r, d.o.Now)
	var near []string
	var keys []string
	caps := drainstate.Caps(cfg, u)
	for _, c := range caps {
		if c.Near() {
			state := "close to the cap"
			if c.Reached() {
				state = "cap reached: LLM draining waits for tomorrow"
			}
			near = append(near, fmt.Sprintf("%d of %d %s today (%s, %s)", c.Used, c.Max, c.What, c.Key, state))
			keys = append(keys, c.Key)
		}
	}
	if len(near) > 0 {
		d.add(Finding{Check: "caps", Severity: Warn, Message: strings.Join(near, "; "),
			Fix: fmt.Sprintf("reflect config set %s N (or wait for tomorrow)", strings.Join(keys, " and "))})
		return
	}
	d.add(Finding{Check: "caps", Severity: OK, Message: fmt.Sprintf("today %d of %s LLM calls, ~%d of %s input tokens",
		caps[0].Used, caps[0].MaxText(), caps[1].Used, caps[1].MaxText())})
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// flatHandlers reads reflect's handlers from a host file whose events list handlers
// directly (Cursor: command; Copilot CLI: exec and args); ok is false for other hosts.
func flatHandlers(data []byte, harness string, events []string) (hs []handler, ok bool) {
	if harness != install.Cursor && harness != install.Copilot {
		return nil, false
	}
	var doc struct {
		Hooks map[string][]struct {
			Command string   `json:"command"`
			Bash    string   `json:"bash"`
			Exec    string   `json:"exec"`
			Args    []string `json:"args"`
		} `json:"hooks"`
	}
	json.Unmarshal(data, &doc) // install has vetted the file
	for _, ev := range events {
		for i, h := range doc.Hooks[ev] {
			prog, found := "", false
			switch {
			case h.Exec != "" && len(h.Args) >= 2 && h.Args[0] == "hook" && h.Args[1] == harness:
				prog, found = install.HookProgram(h.Exec+" hook "+harness, harness)
				prog = h.Exec
			case h.Command != "":
				prog, found = install.HookProgram(h.Command, harness)
			case h.Bash != "":
				cmd, _, _ := strings.Cut(h.Bash, " hook "+harness)
				prog, found = install.HookProgram(cmd+" hook "+harness, harness)
			}
			if found {
				hs = append(hs, handler{event: ev, index: i, program: prog})
			}
		}
	}
	return hs, true
}
