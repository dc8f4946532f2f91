package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/atomicfile"
	"github.com/reflect-memory/reflect/internal/shellquote"
)

// Harnesses reflect can be installed into.
const (
	Claude = "claude"
	Codex  = "codex"
)

// Event is a hook event reflect handles, with the timeout it is installed with, in the unit
// the host's file takes (seconds; Gemini CLI: milliseconds).
type Event struct {
	Name    string
	Timeout int
}

// Events returns the events reflect handles on harness, in install order, or nil for an unknown
// harness. SessionEnd gets a short timeout: Claude Code gives SessionEnd hooks 1.5 s unless a
// hook's timeout raises it; Codex clamps it to 3 s (and warns on every start when it is higher).
func Events(harness string) []Event {
	switch harness {
	case Claude:
		return []Event{{"SessionStart", 10}, {"UserPromptSubmit", 10}, {"PostToolUse", 10},
			{"PostToolUseFailure", 10}, {"PreCompact", 30}, {"Stop", 30}, {"SessionEnd", 5}}
	case Codex:
		return []Event{{"SessionStart", 10}, {"UserPromptSubmit", 10}, {"PostToolUse", 10},
			{"PreCompact", 30}, {"Stop", 30}, {"SessionEnd", 3}}
	}
	return hostEvents(harness)
}

// Command is the shell command the host runs for harness: the binary, shell-quoted when needed,
// then `hook claude` or `hook codex`.
func Command(binary, harness string) string {
	return shellquote.Quote(binary) + " hook " + harness
}

// isReflect says whether command is one of reflect's hook commands for harness: the program's
// base name is reflect and its arguments are `hook <harness>`.
func isReflect(command, harness string) bool {
	_, ok := HookProgram(command, harness)
	return ok
}

// HookProgram returns the program a hook command for harness runs, unquoted, and whether
// the command is one of reflect's (the program's base name is reflect and its arguments are
// `hook <harness>`).
func HookProgram(command, harness string) (prog string, ok bool) {
	prog, ok = strings.CutSuffix(strings.TrimSpace(command), " hook "+harness)
	if !ok {
		return "", false
	}
	prog = strings.TrimSpace(prog)
	if len(prog) >= 2 && (prog[0] == '\'' || prog[0] == '"') && prog[len(prog)-1] == prog[0] {
		prog = strings.ReplaceAll(prog[1:len(prog)-1], `'\''`, `'`)
	}
	return prog, isReflectProgram(prog)
}

// isReflectProgram says whether a program's base name is reflect.
func isReflectProgram(prog string) bool {
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	return base == "reflect" || base == "reflect.exe"
}

// Options say what to install or uninstall, and where.
type Options struct {
	Harness string // Claude or Codex
	Path    string // the configuration file (see ConfigPath)
	Binary  string // absolute path of the reflect binary
	DryRun  bool   // compute and report the change, write nothing
	Home    string // knowledge repository to initialise on install when there is none; "" for none
	// StatusLine also wires `reflect statusline` as Claude Code's status line, only when the
	// user has none of their own (otherwise Result.Notes says how to add the fragment).
	StatusLine bool
}

// Result is what an install or uninstall did (or, with DryRun, would do).
type Result struct {
	Harness     string   `json:"harness"`
	Path        string   `json:"path"`
	Command     string   `json:"command,omitempty"`
	Added       []string `json:"added,omitempty"`     // events wired
	Updated     []string `json:"updated,omitempty"`   // events whose reflect entry changed
	Unchanged   []string `json:"unchanged,omitempty"` // events already wired as wanted
	Removed     []string `json:"removed,omitempty"`   // events unwired
	Changed     bool     `json:"changed"`
	Created     bool     `json:"created,omitempty"` // the file did not exist
	Deleted     bool     `json:"deleted,omitempty"` // uninstall removed the file install had created
	Backup      string   `json:"backup,omitempty"`  // backup of the file as it was
	DryRun      bool     `json:"dry_run,omitempty"`
	Diff        string   `json:"diff,omitempty"`
	Home        string   `json:"home,omitempty"`
	HomeCreated bool     `json:"home_created,omitempty"`
	Notes       []string `json:"notes,omitempty"`      // what the user must do or know
	StatusLine  string   `json:"statusline,omitempty"` // added | unchanged | foreign | removed
}

// statusLineCommand is the status-line command for binary: the hook command's program.
func statusLineCommand(binary string) string {
	return strings.TrimSuffix(Command(binary, "claude"), " hook claude") + " statusline"
}

// isReflectStatusLine reports whether a statusLine value runs reflect's fragment alone.
func isReflectStatusLine(v *value) bool {
	if v == nil || v.kind != kObject {
		return false
	}
	c := v.get("command")
	if c == nil || c.kind != kString {
		return false
	}
	prog, ok := strings.CutSuffix(strings.TrimSpace(c.str), " statusline")
	return ok && isReflect(prog+" hook claude", "claude")
}

// wireStatusLine adds reflect's status line when there is none and reports what it did.
func wireStatusLine(root *value, binary string, res *Result) {
	cur := root.get("statusLine")
	switch {
	case cur == nil:
		sl := newObject()
		sl.set("type", newString("command"))
		sl.set("command", newString(statusLineCommand(binary)))
		sl.set("padding", newInt(0))
		root.set("statusLine", sl)
		res.StatusLine = "added"
	case isReflectStatusLine(cur):
		res.StatusLine = "unchanged"
	default:
		res.StatusLine = "foreign"
		res.Notes = append(res.Notes, "You already have a status line; reflect left it as it is. To show reflect's "+
			"fragment in it, print the output of `"+statusLineCommand(binary)+"` from your status-line command "+
			"(pass it the same JSON on stdin), e.g. in a shell script: input=$(cat); echo \"$(printf '%s' \"$input\" | "+
			statusLineCommand(binary)+") …your own fields…\"")
	}
}

// BackupSuffix is appended to a configuration file's path for its backup.
const BackupSuffix = ".reflect-backup"

// loaded is a configuration file as read.
type loaded struct {
	data    []byte
	exists  bool
	doc     *document
	root    *value // doc.root
	mode    fs.FileMode
	reflect bool // the file held some of reflect when read
}

func load(path string) (*loaded, error) {
	l := &loaded{mode: 0o644}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.doc = &document{root: newObject(), foot: "\n", st: defaultStyle}
		l.root = l.doc.root
		return l, nil
	case err != nil:
		return nil, err
	}
	l.data, l.exists = data, true
	if fi, err := os.Stat(path); err == nil {
		l.mode = fi.Mode().Perm()
	}
	if len(bytes.TrimSpace(data)) == 0 {
		l.doc = &document{root: newObject(), foot: "\n", st: defaultStyle}
		l.root = l.doc.root
		return l, nil
	}
	doc, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	if doc.root.kind != kObject {
		ln, col := position(data, skipSpace(data, 0))
		return nil, &SyntaxError{Path: path, Line: ln, Col: col, Reason: "the top-level value is not a JSON object"}
	}
	l.doc, l.root = doc, doc.root
	l.reflect = holdsReflect(doc.root)
	return l, nil
}

// holdsReflect says whether a configuration holds any of reflect: a hook handler for either
// host, or the status line.
func holdsReflect(root *value) bool {
	if isReflectStatusLine(root.get("statusLine")) {
		return true
	}
	h := root.get("hooks")
	if h == nil || h.kind != kObject {
		return false
	}
	for _, m := range h.obj {
		for _, g := range m.val.arr {
			for _, host := range Hosts {
				if flatReflect(g, host) {
					return true
				}
			}
			if hs := handlers(g); hs != nil {
				for _, hd := range hs.arr {
					for _, host := range Hosts {
						if reflectHandler(hd, host) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// hooksOf returns the "hooks" object of root (nil when absent), refusing a wrong shape.
func hooksOf(path string, root *value) (*value, error) {
	h := root.get("hooks")
	if h == nil {
		return nil, nil
	}
	if h.kind != kObject {
		return nil, &SyntaxError{Path: path, Reason: `"hooks" is not an object`}
	}
	for _, m := range h.obj {
		if m.val.kind != kArray {
			return nil, &SyntaxError{Path: path, Reason: fmt.Sprintf(`"hooks.%s" is not an array`, m.key)}
		}
	}
	return h, nil
}

// handlers returns the handler objects of a matcher group ("hooks" array), or nil.
func handlers(group *value) *value {
	if hs := group.get("hooks"); hs != nil && hs.kind == kArray {
		return hs
	}
	return nil
}

func reflectHandler(h *value, harness string) bool {
	c := h.get("command")
	return h.kind == kObject && c != nil && c.kind == kString && isReflect(c.str, harness)
}

func handler(command string, timeout int) *value {
	h := newObject()
	h.set("type", newString("command"))
	h.set("command", newString(command))
	h.set("timeout", newInt(timeout))
	return h
}

// Install wires reflect's hooks into the configuration file opts.Path.
func Install(ctx context.Context, opts Options) (*Result, error) {
	events := Events(opts.Harness)
	if events == nil {
		return nil, unknownHost(opts.Harness)
	}
	if opts.Harness == Opencode {
		return installOpencode(ctx, opts)
	}
	l, err := load(opts.Path)
	if err != nil {
		return nil, err
	}
	hooks, err := hooksOf(opts.Path, l.root)
	if err != nil {
		return nil, err
	}
	cmd := Command(opts.Binary, opts.Harness)
	res := &Result{Harness: opts.Harness, Path: opts.Path, Command: cmd, Created: !l.exists, DryRun: opts.DryRun}
	if hooks == nil {
		if flat(opts.Harness) && l.root.get("version") == nil {
			l.root.set("version", newInt(1)) // both hosts require it in their files
		}
		hooks = newObject()
		l.root.set("hooks", hooks)
	}
	if opts.StatusLine && opts.Harness == "claude" {
		wireStatusLine(l.root, opts.Binary, res)
	}
	for _, ev := range events {
		var did string
		if flat(opts.Harness) {
			did = wireFlat(hooks, opts.Harness, ev, cmd, opts.Binary)
		} else {
			did = wire(hooks, ev, cmd, opts.Harness)
		}
		switch did {
		case "added":
			res.Added = append(res.Added, ev.Name)
		case "updated":
			res.Updated = append(res.Updated, ev.Name)
		default:
			res.Unchanged = append(res.Unchanged, ev.Name)
		}
	}
	if err := commit(l, opts, res, l.doc.encode(), false); err != nil {
		return nil, err
	}
	return res, initHome(ctx, opts, res)
}

// initHome creates the knowledge repository opts.Home names when there is none (not on a
// dry run), and records it in res.
func initHome(ctx context.Context, opts Options, res *Result) error {
	if opts.Home == "" || opts.DryRun {
		return nil
	}
	r, created, err := gitstore.Init(ctx, opts.Home, gitstore.InitOptions{})
	if err != nil {
		return fmt.Errorf("initialise the knowledge repository: %w", err)
	}
	res.Home, res.HomeCreated = r.Root(), created
	return nil
}

// wire makes sure event ev runs cmd with ev's timeout, and says whether it "added", "updated"
// or left "unchanged" reflect's entry.
func wire(hooks *value, ev Event, cmd, harness string) string {
	arr := hooks.get(ev.Name)
	if arr == nil {
		arr = newArray()
		hooks.set(ev.Name, arr)
	}
	var found *value
	dup := false
	for _, g := range arr.arr {
		hs := handlers(g)
		if hs == nil {
			continue
		}
		kept := hs.arr[:0:0]
		for _, h := range hs.arr {
			if reflectHandler(h, harness) {
				if found == nil {
					found = h
				} else { // a second reflect entry would run reflect twice
					dup = true
					continue
				}
			}
			kept = append(kept, h)
		}
		hs.arr = kept
	}
	if dup {
		dropEmptyGroups(arr)
	}
	if found == nil {
		g := newObject()
		g.set("hooks", newArray(handler(cmd, ev.Timeout)))
		arr.arr = append(arr.arr, g)
		return "added"
	}
	c, t := found.get("command"), found.get("timeout")
	if !dup && c.str == cmd && t != nil && t.kind == kNumber && string(t.num) == fmt.Sprint(ev.Timeout) {
		return "unchanged"
	}
	if c.str != cmd {
		found.set("command", newString(cmd))
	}
	if t == nil || t.kind != kNumber || string(t.num) != fmt.Sprint(ev.Timeout) {
		found.set("timeout", newInt(ev.Timeout))
	}
	return "updated"
}

// dropEmptyGroups removes the groups of arr whose handler list is empty.
func dropEmptyGroups(arr *value) {
	kept := arr.arr[:0]
	for _, g := range arr.arr {
		if hs := handlers(g); hs != nil && len(hs.arr) == 0 {
			continue
		}
		kept = append(kept, g)
	}
	arr.arr = kept
}

// Uninstall removes reflect's hooks (for opts.Harness, on every event) from opts.Path, then the
// groups, event keys and "hooks" key that became empty. When install had created the file and
// nothing else is left in it, the file is removed.
func Uninstall(opts Options) (*Result, error) {
	if Events(opts.Harness) == nil {
		return nil, unknownHost(opts.Harness)
	}
	if opts.Harness == Opencode {
		return uninstallOpencode(opts)
	}
	l, err := load(opts.Path)
	if err != nil {
		return nil, err
	}
	res := &Result{Harness: opts.Harness, Path: opts.Path, DryRun: opts.DryRun}
	if !l.exists {
		return res, nil
	}
	hooks, err := hooksOf(opts.Path, l.root)
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		return res, nil
	}
	if flat(opts.Harness) {
		if res.Removed = unwireFlat(hooks, opts.Harness); len(res.Removed) == 0 {
			return res, nil
		}
		if len(hooks.obj) == 0 {
			l.root.del("hooks")
		}
		empty := len(l.root.obj) == 0 || flatOnlyVersion(l.root)
		if err := commit(l, opts, res, l.doc.encode(), empty && createdByInstall(opts.Path)); err != nil {
			return nil, err
		}
		return res, afterUninstall(l, opts)
	}
	keptEvents := hooks.obj[:0:0]
	for _, m := range hooks.obj {
		removed := false
		keptGroups := m.val.arr[:0:0]
		for _, g := range m.val.arr {
			hs := handlers(g)
			if hs == nil {
				keptGroups = append(keptGroups, g)
				continue
			}
			keptH := hs.arr[:0:0]
			for _, h := range hs.arr {
				if reflectHandler(h, opts.Harness) {
					removed = true
					continue
				}
				keptH = append(keptH, h)
			}
			if len(keptH) == 0 && len(hs.arr) > 0 {
				continue // the group held only reflect
			}
			hs.arr = keptH
			keptGroups = append(keptGroups, g)
		}
		m.val.arr = keptGroups
		if removed {
			res.Removed = append(res.Removed, m.key)
			if len(keptGroups) == 0 {
				continue
			}
		}
		keptEvents = append(keptEvents, m)
	}
	if opts.Harness == "claude" && isReflectStatusLine(l.root.get("statusLine")) {
		l.root.del("statusLine")
		res.StatusLine = "removed"
	}
	if len(res.Removed) == 0 && res.StatusLine != "removed" {
		return res, nil
	}
	hooks.obj = keptEvents
	if len(hooks.obj) == 0 {
		l.root.del("hooks")
	}
	if err := commit(l, opts, res, l.doc.encode(), len(l.root.obj) == 0 && createdByInstall(opts.Path)); err != nil {
		return nil, err
	}
	return res, afterUninstall(l, opts)
}

// afterUninstall drops the empty backup of a file that, uninstalled, holds nothing of reflect
// (another host's hooks may share the file).
func afterUninstall(l *loaded, opts Options) error {
	if opts.DryRun || holdsReflect(l.root) {
		return nil
	}
	return dropEmptyBackup(opts.Path)
}

// createdByInstall says whether the backup records that the file did not exist before install
// (an install that creates the file writes an empty backup).
func createdByInstall(path string) bool {
	fi, err := os.Stat(path + BackupSuffix)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}

// commit writes out (or, with remove, deletes the file) unless nothing changed or this is a
// dry run; it fills res's Changed, Diff, Backup and Deleted. The backup is the file as it was
// before reflect: written when there is none or when the file holds nothing of reflect, and
// never replaced by a version reflect changed, so that the user's original survives any
// number of installs and uninstalls.
func commit(l *loaded, opts Options, res *Result, out []byte, remove bool) error {
	if l.exists && bytes.Equal(out, l.data) && !remove {
		return nil
	}
	res.Changed = true
	after := out
	if remove {
		after = nil
	}
	var before []byte
	if l.exists {
		before = l.data
	}
	res.Diff = Diff(opts.Path, before, after)
	if opts.DryRun {
		res.Deleted = remove
		return nil
	}
	if l.exists {
		if err := checkWritable(opts.Path, l.mode); err != nil {
			return err
		}
	}
	// the file a link names is written (in its own directory) and the link stays; the
	// backup stays beside the name the host reads, where uninstall looks for it
	target, err := resolve(opts.Path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o755); err != nil {
		return err
	}
	backup := opts.Path + BackupSuffix
	_, err = os.Lstat(backup)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && !l.reflect:
		if err := atomicfile.Write(backup, l.data, l.mode); err != nil {
			return fmt.Errorf("write backup: %w", err)
		}
		if l.exists { // an empty backup records that the file did not exist
			res.Backup = backup
		}
	case err != nil:
		return fmt.Errorf("backup: %w", err)
	default:
		if fi, err := os.Stat(backup); err == nil && fi.Size() > 0 {
			res.Backup = backup // kept: the file as it was before reflect
		}
	}
	if remove {
		if err := os.Remove(target); err != nil {
			return err
		}
		res.Deleted = true
		return dropEmptyBackup(opts.Path)
	}
	return atomicfile.Write(target, out, l.mode)
}

// dropEmptyBackup removes path's backup when it is empty: it only recorded that the file did
// not exist before reflect, which an uninstall that leaves nothing of reflect has no more use
// for (a later install writes a backup of the file as it is then).
func dropEmptyBackup(path string) error {
	if !createdByInstall(path) {
		return nil
	}
	if err := os.Remove(path + BackupSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the empty backup: %w", err)
	}
	return nil
}
