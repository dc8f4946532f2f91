package install

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/workspace"
)

// ConfigPath returns the hook configuration file of harness: for the user,
// $CLAUDE_CONFIG_DIR/settings.json (else ~/.claude/settings.json) or $CODEX_HOME/hooks.json
// (else ~/.codex/hooks.json); with project, .claude/settings.json or .codex/hooks.json at the
// top of the git work tree holding cwd (else in cwd).
func ConfigPath(harness string, project bool, cwd string) (string, error) {
	dir, file := hostFile(harness)
	if file == "" {
		return "", unknownHost(harness)
	}
	if project {
		abs, err := filepath.Abs(cwd)
		if err != nil {
			return "", err
		}
		top := abs
		if w, _ := workspace.Read(abs, 0); w.Root != "" {
			top = w.Root
		}
		return filepath.Join(top, dir, file), nil
	}
	home, err := HostHome(harness)
	if err != nil {
		return "", err
	}
	return userFile(harness, home), nil
}

// InRepository says whether dir is inside a git work tree: where --project settings belong.
func InRepository(dir string) bool {
	w, _ := workspace.Read(dir, 0)
	return w.Root != ""
}

// HostHome is the host's own directory: $CLAUDE_CONFIG_DIR or ~/.claude, $CODEX_HOME or
// ~/.codex, $GEMINI_CLI_HOME/.gemini or ~/.gemini, $COPILOT_HOME or ~/.copilot, ~/.cursor.
func HostHome(harness string) (string, error) {
	env, dir := hostHomeOf(harness)
	if dir == "" {
		return "", unknownHost(harness)
	}
	if d := os.Getenv(env); env != "" && d != "" {
		switch harness {
		case Gemini:
			d = filepath.Join(d, dir)
		case Opencode:
			d = filepath.Join(d, "opencode")
		}
		return filepath.Abs(d)
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home directory; set %s: %w", env, err)
	}
	return filepath.Join(u, dir), nil
}

// CodexTrustNote is what a Codex user must do before new hooks run.
const CodexTrustNote = "Codex runs new hooks only after you trust them: open Codex, type /hooks, and trust the reflect hooks."

// CodexHooksDisabled reads Codex's config.toml and says whether hooks are switched off
// (`[features] hooks = false`, or the older `codex_hooks = false`). A missing or unreadable
// file means they are not.
func CodexHooksDisabled(configToml string) (bool, string) {
	data, err := os.ReadFile(configToml)
	if err != nil {
		return false, ""
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if strings.HasPrefix(line, "[") {
			section = strings.TrimSpace(strings.Trim(line, "[]"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.Trim(strings.TrimSpace(k), `"`), strings.TrimSpace(v)
		if section == "" {
			k, ok = strings.CutPrefix(k, "features.")
			if !ok {
				continue
			}
		} else if section != "features" {
			continue
		}
		if (k == "hooks" || k == "codex_hooks") && v == "false" {
			return true, k
		}
	}
	return false, ""
}

// CodexNotes returns what the user must know after installing into Codex whose home is
// codexHome.
func CodexNotes(codexHome string) []string {
	var notes []string
	cfg := filepath.Join(codexHome, "config.toml")
	if off, key := CodexHooksDisabled(cfg); off {
		notes = append(notes, fmt.Sprintf("Codex hooks are disabled in %s (%s = false under [features]): set it to true, or remove the line, to enable them.", cfg, key))
	}
	return append(notes, CodexTrustNote)
}
