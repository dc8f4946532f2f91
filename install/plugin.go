package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reflect-memory/reflect/internal/atomicfile"
)

// PluginOptions describe a Claude Code plugin folder.
type PluginOptions struct {
	Dir     string // the plugin folder
	Version string // reflect's version
}

// PluginResult says what WritePlugin wrote.
type PluginResult struct {
	Dir      string   `json:"dir"`
	Manifest string   `json:"manifest"`
	Hooks    string   `json:"hooks"`
	Launcher string   `json:"launcher"` // bin/reflect
	Readme   string   `json:"readme"`
	Command  string   `json:"command"`
	Events   []string `json:"events"`
	Shipped  bool     `json:"shipped,omitempty"` // bin/reflect was the folder's own and was kept
}

// PluginCommand is the command a plugin's hooks run: the plugin's bin/reflect. A marketplace
// serves the same folder to every machine, so the command names no path of the machine that
// wrote it; bin/reflect is a launcher that runs the reflect installed where the plugin is used
// (or a reflect binary the folder ships in its place).
const PluginCommand = `"${CLAUDE_PLUGIN_ROOT}/bin/reflect" hook claude`

// launcherMark is in the launcher's text: a bin/reflect without it is the folder's own.
const launcherMark = "reflect-plugin-launcher"

// launcher runs the reflect of the machine the plugin is installed on. Claude Code puts a
// plugin's bin/ on the agent's PATH, so the launcher skips its own folder when it looks on
// PATH, and a launcher started by a launcher stops: neither can loop.
const launcher = `#!/bin/sh
# ` + launcherMark + `: runs the reflect installed on this machine; this plugin ships no
# binary, so that one folder serves every machine. It runs $REFLECT_BIN when set, else the
# first reflect on PATH (this folder aside), else one in ~/go/bin, ~/.local/bin,
# /opt/homebrew/bin or /usr/local/bin. Without reflect it reads its input and exits 0: a hook
# must never get in the agent's way.
if [ -n "$REFLECT_PLUGIN_LAUNCHER" ]; then
	cat >/dev/null 2>&1
	exit 0
fi
REFLECT_PLUGIN_LAUNCHER=1
export REFLECT_PLUGIN_LAUNCHER
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
if [ -n "$REFLECT_BIN" ] && [ -x "$REFLECT_BIN" ]; then
	exec "$REFLECT_BIN" "$@"
fi
old_ifs=$IFS
IFS=:
for dir in $PATH${GOBIN:+:$GOBIN}:$HOME/go/bin:$HOME/.local/bin:/opt/homebrew/bin:/usr/local/bin; do
	IFS=$old_ifs
	[ -n "$dir" ] || continue
	[ "$(CDPATH= cd -- "$dir" 2>/dev/null && pwd -P)" = "$here" ] && continue
	if [ -f "$dir/reflect" ] && [ -x "$dir/reflect" ]; then
		exec "$dir/reflect" "$@"
	fi
done
cat >/dev/null 2>&1
exit 0
`

// pluginReadme is the plugin folder's README.md.
const pluginReadme = `# reflect for Claude Code

A memory for coding agents, kept in a git repository you own: this plugin wires reflect's hooks
into Claude Code (SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, PreCompact,
Stop, SessionEnd), so sessions are captured and learnings recalled.

**The plugin does not contain reflect.** Its hooks run ` + "`bin/reflect`" + `, a launcher that runs the
reflect installed on the machine where the plugin is used: ` + "`$REFLECT_BIN`" + ` when set, else the
first ` + "`reflect`" + ` on PATH, else one in ~/go/bin, ~/.local/bin, /opt/homebrew/bin or /usr/local/bin.
So install reflect on every machine that uses the plugin and put it on PATH:

    go install github.com/reflect-memory/reflect/cmd/reflect@latest

Then ` + "`reflect init`" + ` (or ` + "`reflect init --from URL`" + ` to share a memory) and ` + "`reflect doctor`" + `. Where
reflect is not installed the hooks do nothing. The launcher is a POSIX shell script; on Windows
use ` + "`reflect install claude`" + ` instead of the plugin. A folder may ship its own reflect binary as
` + "`bin/reflect`" + `: ` + "`reflect install claude --plugin`" + ` then keeps it.

https://github.com/reflect-memory/reflect
`

// WritePlugin writes a Claude Code plugin folder: .claude-plugin/plugin.json, hooks/hooks.json
// (in the settings "hooks" schema), the launcher bin/reflect and README.md. Existing files are
// replaced, except a bin/reflect that is not reflect's launcher (a binary the folder ships).
// Note that a plugin's SessionEnd timeout does not raise Claude Code's 1.5 s SessionEnd budget.
func WritePlugin(opts PluginOptions) (*PluginResult, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	version := opts.Version
	if version == "" || version == "(devel)" {
		version = "0.0.0-dev"
	}
	res := &PluginResult{Dir: dir, Command: PluginCommand,
		Manifest: filepath.Join(dir, ".claude-plugin", "plugin.json"),
		Hooks:    filepath.Join(dir, "hooks", "hooks.json"),
		Launcher: filepath.Join(dir, "bin", "reflect"),
		Readme:   filepath.Join(dir, "README.md")}

	author := newObject()
	author.set("name", newString("reflect"))
	manifest := newObject()
	manifest.set("name", newString("reflect"))
	manifest.set("displayName", newString("reflect"))
	manifest.set("version", newString(version))
	manifest.set("description", newString("A memory for coding agents, kept in a git repository you own: captures sessions and recalls learnings through hooks. Needs reflect installed on PATH."))
	manifest.set("author", author)
	manifest.set("homepage", newString("https://github.com/reflect-memory/reflect"))
	manifest.set("license", newString("MIT"))
	manifest.set("keywords", newArray(newString("memory"), newString("hooks"), newString("git")))

	hooks := newObject()
	for _, ev := range Events(Claude) {
		g := newObject()
		g.set("hooks", newArray(handler(PluginCommand, ev.Timeout)))
		hooks.set(ev.Name, newArray(g))
		res.Events = append(res.Events, ev.Name)
	}
	hooksFile := newObject()
	hooksFile.set("description", newString("reflect: capture Claude Code sessions and recall learnings"))
	hooksFile.set("hooks", hooks)

	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{res.Manifest, encode(manifest), 0o644},
		{res.Hooks, encode(hooksFile), 0o644},
		{res.Readme, []byte(pluginReadme), 0o644},
		{res.Launcher, []byte(launcher), 0o755},
	}
	if cur, err := os.ReadFile(res.Launcher); err == nil && !bytes.Contains(cur, []byte(launcherMark)) {
		files, res.Shipped = files[:3], true
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(f.path, f.data, f.mode); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	return res, nil
}
