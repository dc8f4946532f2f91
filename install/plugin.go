package install

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/reflect-memory/reflect/internal/atomicfile"
)

// PluginOptions describe a Claude Code plugin folder.
type PluginOptions struct {
	Dir     string // the plugin folder
	Binary  string // absolute path of the reflect binary
	Version string // reflect's version
}

// PluginResult says what WritePlugin wrote.
type PluginResult struct {
	Dir      string   `json:"dir"`
	Manifest string   `json:"manifest"`
	Hooks    string   `json:"hooks"`
	Command  string   `json:"command"`
	Events   []string `json:"events"`
}

// PluginCommand is the command a plugin's hooks run: the plugin's own bin/reflect through
// ${CLAUDE_PLUGIN_ROOT} when the folder ships one, else the binary's absolute path (a plugin
// cannot ship the binary of the machine it is installed on).
func PluginCommand(dir, binary string) string {
	if fi, err := os.Stat(filepath.Join(dir, "bin", "reflect")); err == nil && !fi.IsDir() {
		return `"${CLAUDE_PLUGIN_ROOT}/bin/reflect" hook claude`
	}
	return Command(binary, Claude)
}

// WritePlugin writes a Claude Code plugin folder: .claude-plugin/plugin.json and
// hooks/hooks.json, the latter in the settings "hooks" schema. Existing files are replaced.
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
	cmd := PluginCommand(dir, opts.Binary)
	res := &PluginResult{Dir: dir, Command: cmd,
		Manifest: filepath.Join(dir, ".claude-plugin", "plugin.json"),
		Hooks:    filepath.Join(dir, "hooks", "hooks.json")}

	author := newObject()
	author.set("name", newString("reflect"))
	manifest := newObject()
	manifest.set("name", newString("reflect"))
	manifest.set("displayName", newString("reflect"))
	manifest.set("version", newString(version))
	manifest.set("description", newString("A memory for coding agents, kept in a git repository you own: captures sessions and recalls learnings through hooks."))
	manifest.set("author", author)
	manifest.set("homepage", newString("https://github.com/reflect-memory/reflect"))
	manifest.set("license", newString("MIT"))
	manifest.set("keywords", newArray(newString("memory"), newString("hooks"), newString("git")))

	hooks := newObject()
	for _, ev := range Events(Claude) {
		g := newObject()
		g.set("hooks", newArray(handler(cmd, ev.Timeout)))
		hooks.set(ev.Name, newArray(g))
		res.Events = append(res.Events, ev.Name)
	}
	hooksFile := newObject()
	hooksFile.set("description", newString("reflect: capture Claude Code sessions and recall learnings"))
	hooksFile.set("hooks", hooks)

	for path, v := range map[string]*value{res.Manifest: manifest, res.Hooks: hooksFile} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(path, encode(v), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return res, nil
}
