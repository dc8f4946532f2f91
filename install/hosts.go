package install

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The hosts besides Claude Code and Codex (../shared/reference/more-hosts.md).
//
//   - Gemini CLI keeps Claude Code's layout in its settings.json (hooks.<Event>[] groups
//     with a "hooks" list of {type, command, timeout}), but its own event names and timeouts
//     in milliseconds (§E.2).
//   - Cursor's hooks.json is {"version": 1, "hooks": {"<event>": [{command, timeout}]}}:
//     entries straight in the event's list, timeouts in seconds (§H.2).
//   - Copilot CLI reads every *.json in ~/.copilot/hooks/ (and .github/hooks/ of a
//     repository); reflect writes its own, reflect.json, in the documented shape:
//     {"version": 1, "hooks": {"<event>": [{type, exec, args, timeoutSec}]}}, the event named
//     in args because the camelCase payloads carry none (§F.2, §F.6).
const (
	Gemini  = "gemini"
	Copilot = "copilot"
	Cursor  = "cursor"
)

// Hosts are the hosts `reflect install` wires, in the order --all reports them.
var Hosts = []string{Claude, Codex, Gemini, Copilot, Cursor, Opencode}

// KnownHost says whether reflect can be installed into host.
func KnownHost(host string) bool { return Events(host) != nil }

// HostName is how a host is called in messages.
func HostName(host string) string {
	switch host {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	case Gemini:
		return "Gemini CLI"
	case Copilot:
		return "GitHub Copilot CLI"
	case Cursor:
		return "Cursor"
	case Opencode:
		return "opencode"
	}
	return host
}

// hostEvents are the other hosts' events reflect handles, in install order. Gemini's
// timeouts are in milliseconds, the others' in seconds. Gemini CLI does not wait for
// SessionEnd and fires PreCompress asynchronously; reflect's own deadlines (1 s recall,
// 500 ms capture) are far inside every one of these.
func hostEvents(host string) []Event {
	switch host {
	case Gemini:
		return []Event{{"SessionStart", 10000}, {"BeforeAgent", 10000}, {"AfterTool", 10000},
			{"PreCompress", 30000}, {"AfterAgent", 30000}, {"SessionEnd", 5000}}
	case Copilot:
		// userPromptSubmitted: Copilot drops its output, but a prompt still arms nothing
		// and commits "remember:" notes and corrections
		return []Event{{"sessionStart", 10}, {"userPromptSubmitted", 10}, {"postToolUse", 10},
			{"postToolUseFailure", 10}, {"preCompact", 30}, {"agentStop", 30}, {"sessionEnd", 10}}
	case Cursor:
		return []Event{{"sessionStart", 10}, {"beforeSubmitPrompt", 10}, {"postToolUse", 10},
			{"postToolUseFailure", 10}, {"preCompact", 30}, {"stop", 30}, {"sessionEnd", 10}}
	case Opencode:
		return opencodeEvents
	}
	return nil
}

// flat says whether host's file lists handlers straight under each event (Cursor, Copilot
// CLI) rather than in matcher groups (Claude Code, Codex, Gemini CLI).
func flat(host string) bool { return host == Cursor || host == Copilot }

// hostFile is where host keeps its hooks: the folder (under the host's home for the user,
// under the repository's top for --project) and the file.
func hostFile(host string) (projectDir, file string) {
	switch host {
	case Claude:
		return ".claude", "settings.json"
	case Codex:
		return ".codex", "hooks.json"
	case Gemini:
		return ".gemini", "settings.json"
	case Copilot:
		return filepath.Join(".github", "hooks"), "reflect.json"
	case Cursor:
		return ".cursor", "hooks.json"
	case Opencode:
		return filepath.Join(".opencode", "plugins"), "reflect.js"
	}
	return "", ""
}

// hostHomeOf is the host's own directory and the variable that moves it.
func hostHomeOf(host string) (env, dir string) {
	switch host {
	case Claude:
		return "CLAUDE_CONFIG_DIR", ".claude"
	case Codex:
		return "CODEX_HOME", ".codex"
	case Gemini:
		return "GEMINI_CLI_HOME", ".gemini" // GEMINI_CLI_HOME replaces ~, not ~/.gemini
	case Copilot:
		return "COPILOT_HOME", ".copilot"
	case Cursor:
		return "", ".cursor"
	case Opencode:
		return "XDG_CONFIG_HOME", filepath.Join(".config", "opencode") // $XDG_CONFIG_HOME/opencode
	}
	return "", ""
}

// userFile is the file under the host's home: Copilot CLI's hooks live in hooks/.
func userFile(host, home string) string {
	_, file := hostFile(host)
	switch host {
	case Copilot:
		return filepath.Join(home, "hooks", file)
	case Opencode:
		return filepath.Join(home, "plugins", file)
	}
	return filepath.Join(home, file)
}

// HostBinaries are the commands a host installs on PATH.
func HostBinaries(host string) []string {
	switch host {
	case Gemini:
		return []string{"gemini"}
	case Copilot:
		return []string{"copilot"}
	case Cursor:
		return []string{"cursor-agent", "cursor"}
	}
	return []string{host}
}

// Present says whether host looks installed here, and how it was found: its directory
// exists, or one of its commands is on PATH.
func Present(host string) (bool, string) {
	if home, err := HostHome(host); err == nil {
		if fi, err := os.Stat(home); err == nil && fi.IsDir() {
			return true, home
		}
	}
	for _, b := range HostBinaries(host) {
		if p, err := exec.LookPath(b); err == nil {
			return true, p
		}
	}
	return false, ""
}

// flatEntry is one of reflect's handlers in a flat file.
func flatEntry(host, cmd, binary, event string, timeout int) *value {
	h := newObject()
	if host == Copilot {
		h.set("type", newString("command"))
		h.set("exec", newString(binary))
		h.set("args", newArray(newString("hook"), newString(Copilot), newString(event)))
		h.set("timeoutSec", newInt(timeout))
		return h
	}
	h.set("command", newString(cmd))
	h.set("timeout", newInt(timeout))
	return h
}

// flatReflect says whether a flat file's handler is reflect's for host: Cursor's command
// runs `reflect hook cursor`; Copilot's execs reflect with `hook copilot …`, or runs it
// through bash/command.
func flatReflect(h *value, host string) bool {
	if h == nil || h.kind != kObject {
		return false
	}
	if host == Copilot {
		if e := h.get("exec"); e != nil && e.kind == kString {
			a := h.get("args")
			return isReflectProgram(e.str) && a != nil && a.kind == kArray && len(a.arr) >= 2 &&
				a.arr[0].kind == kString && a.arr[0].str == "hook" && a.arr[1].kind == kString && a.arr[1].str == Copilot
		}
		for _, k := range []string{"bash", "command"} {
			if c := h.get(k); c != nil && c.kind == kString {
				if prog, rest, ok := strings.Cut(c.str, " hook copilot"); ok && (rest == "" || rest[0] == ' ') && isReflect(prog+" hook copilot", Copilot) {
					return true
				}
			}
		}
		return false
	}
	c := h.get("command")
	return c != nil && c.kind == kString && isReflect(c.str, host)
}

// wireFlat makes sure event ev runs reflect in a flat file, and says whether it "added",
// "updated" or left "unchanged" reflect's entry.
func wireFlat(hooks *value, host string, ev Event, cmd, binary string) string {
	arr := hooks.get(ev.Name)
	if arr == nil {
		arr = newArray()
		hooks.set(ev.Name, arr)
	}
	want := flatEntry(host, cmd, binary, ev.Name, ev.Timeout)
	var found *value
	kept := arr.arr[:0:0]
	dup := false
	for _, h := range arr.arr {
		if flatReflect(h, host) {
			if found != nil {
				dup = true // a second reflect entry would run reflect twice
				continue
			}
			found = h
		}
		kept = append(kept, h)
	}
	arr.arr = kept
	if found == nil {
		arr.arr = append(arr.arr, want)
		return "added"
	}
	changed := dup
	for _, m := range want.obj {
		cur := found.get(m.key)
		if !sameValue(cur, m.val) {
			found.set(m.key, m.val)
			changed = true
		}
	}
	if changed {
		return "updated"
	}
	return "unchanged"
}

// sameValue says whether two scalar or array values are equal, whatever their layout.
func sameValue(a, b *value) bool {
	if a == nil || b == nil || a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kString:
		return a.str == b.str
	case kNumber:
		return string(a.num) == string(b.num)
	case kArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !sameValue(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// unwireFlat removes reflect's entries for host from every event of a flat file, and the
// events left empty; it returns the events it unwired.
func unwireFlat(hooks *value, host string) []string {
	var removed []string
	keptEvents := hooks.obj[:0:0]
	for _, m := range hooks.obj {
		kept := m.val.arr[:0:0]
		gone := false
		for _, h := range m.val.arr {
			if flatReflect(h, host) {
				gone = true
				continue
			}
			kept = append(kept, h)
		}
		m.val.arr = kept
		if gone {
			removed = append(removed, m.key)
			if len(kept) == 0 {
				continue
			}
		}
		keptEvents = append(keptEvents, m)
	}
	hooks.obj = keptEvents
	return removed
}

// flatOnlyVersion says whether what is left of a flat file is only the "version" install
// wrote: with the backup saying install created the file, uninstall removes it.
func flatOnlyVersion(root *value) bool {
	return len(root.obj) == 1 && root.obj[0].key == "version"
}

// hostsHint is the list of hosts for error messages.
func hostsHint() string { return strings.Join(Hosts, ", ") }

func unknownHost(host string) error {
	return fmt.Errorf("unknown harness %q (want one of %s)", host, hostsHint())
}

// GeminiHooksDisabled reads a Gemini CLI settings.json and says whether it switches hooks
// off ("hooksConfig": {"enabled": false}; hooks are on by default since v0.28), or lists
// reflect's command under hooksConfig.disabled.
func GeminiHooksDisabled(settings string) (bool, string) {
	data, err := os.ReadFile(settings)
	if err != nil {
		return false, ""
	}
	var s struct {
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(data, &s) != nil {
		return false, ""
	}
	if e := s.HooksConfig.Enabled; e != nil && !*e {
		return true, "hooksConfig.enabled is false"
	}
	for _, d := range s.HooksConfig.Disabled {
		if isReflect(d, Gemini) {
			return true, "hooksConfig.disabled lists " + d
		}
	}
	return false, ""
}
