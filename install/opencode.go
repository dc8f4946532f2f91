package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/internal/atomicfile"
)

// Opencode is opencode (more-hosts.md §G): it runs no command hooks, only JavaScript or
// TypeScript plugins from ~/.config/opencode/plugins/ (.opencode/plugins/ in a project).
// reflect installs a plugin of its own, reflect.js, which runs `reflect hook opencode
// EVENT` on the plugin hooks that match reflect's events and pushes what it prints into the
// system prompt. The file is reflect's whole: install writes it, uninstall deletes it, and a
// reflect.js that is not reflect's (its first line says whose it is) is never touched.
const Opencode = "opencode"

// opencodeMarker opens the plugin: how install and uninstall know the file is reflect's.
const opencodeMarker = "// reflect-opencode-plugin:"

// opencodeEvents are the events the plugin sends, for doctor and the install report.
var opencodeEvents = []Event{{"SessionStart", 10}, {"UserPromptSubmit", 10}, {"PostToolUse", 10},
	{"PreCompact", 10}, {"Stop", 10}}

// OpencodePlugin is the plugin that runs binary. spawnSync blocks opencode while reflect
// runs, which its deadlines bound (1 s recall, 500 ms capture); the 10 s time-out only
// guards against a reflect that does not start. The context of a session start and of the
// latest prompt is kept per session and added to every model request of it
// (experimental.chat.system.transform), as opencode's own plugins inject context.
func OpencodePlugin(binary string) []byte {
	bin, _ := json.Marshal(binary)
	return []byte(opencodeMarker + ` written by ` + "`reflect install opencode`" + `; ` + "`reflect uninstall opencode`" + ` removes it.
// It runs reflect's hooks in opencode: recall at a session's first prompt and at every
// prompt, the correction watcher after each tool call, a capture when the session goes idle
// and before a compaction. Edit nothing here: install rewrites it.
import { spawnSync } from "node:child_process"

const REFLECT = ` + string(bin) + `

const run = (event, payload) => {
  try {
    const r = spawnSync(REFLECT, ["hook", "opencode", event], {
      input: JSON.stringify({ ...payload, hook_event_name: event }),
      encoding: "utf8",
      timeout: 10000,
    })
    if (r.status !== 0 || !r.stdout) return ""
    const out = JSON.parse(r.stdout)
    return typeof out.additionalContext === "string" ? out.additionalContext : ""
  } catch {
    return ""
  }
}

export const ReflectPlugin = async ({ directory }) => {
  const started = new Map() // sessionID -> the context of its start
  const prompted = new Map() // sessionID -> the context of its latest prompt
  return {
    "chat.message": async (input, output) => {
      const sid = input.sessionID
      if (!sid) return
      if (!started.has(sid)) started.set(sid, run("SessionStart", { session_id: sid, cwd: directory }))
      const prompt = (output.parts || [])
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      prompted.set(sid, run("UserPromptSubmit", { session_id: sid, cwd: directory, prompt }))
    },
    "experimental.chat.system.transform": async (input, output) => {
      const sid = input.sessionID
      if (!sid) return
      for (const c of [started.get(sid), prompted.get(sid)]) if (c) output.system.push(c)
    },
    "tool.execute.after": async (input, output) => {
      const md = (output && output.metadata) || {}
      run("PostToolUse", {
        session_id: input.sessionID,
        cwd: directory,
        tool_name: input.tool,
        tool_input: input.args || {},
        tool_response: {
          output: String((output && output.output) || ""),
          exit_code: typeof md.exit === "number" ? md.exit : undefined,
        },
      })
    },
    "experimental.session.compacting": async (input) => {
      run("PreCompact", { session_id: input.sessionID, cwd: directory })
    },
    event: async ({ event }) => {
      if (event && event.type === "session.idle" && event.properties && event.properties.sessionID) {
        run("Stop", { session_id: event.properties.sessionID, cwd: directory })
      }
    },
  }
}
`)
}

// OpencodePluginBinary is the reflect a plugin file runs, and whether the file is reflect's.
func OpencodePluginBinary(data []byte) (string, bool) {
	if !bytes.HasPrefix(data, []byte(opencodeMarker)) {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "const REFLECT = "); ok {
			var bin string
			if json.Unmarshal([]byte(strings.TrimSpace(rest)), &bin) == nil {
				return bin, true
			}
		}
	}
	return "", true
}

// ForeignPluginError is a reflect.js in opencode's plugins folder that reflect did not write.
type ForeignPluginError struct{ Path string }

func (e *ForeignPluginError) Error() string {
	return fmt.Sprintf("%s is not reflect's plugin (its first line does not say so); move it away to install reflect's", e.Path)
}

func namesOf(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Name)
	}
	return out
}

// installOpencode writes the plugin file.
func installOpencode(ctx context.Context, opts Options) (*Result, error) {
	want := OpencodePlugin(opts.Binary)
	res := &Result{Harness: Opencode, Path: opts.Path, Command: opts.Binary + " hook opencode", DryRun: opts.DryRun}
	old, err := os.ReadFile(opts.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Created, res.Added = true, namesOf(opencodeEvents)
	case err != nil:
		return nil, err
	default:
		if _, ours := OpencodePluginBinary(old); !ours {
			return nil, &ForeignPluginError{Path: opts.Path}
		}
		if bytes.Equal(old, want) {
			res.Unchanged = namesOf(opencodeEvents)
		} else {
			res.Updated = namesOf(opencodeEvents)
		}
	}
	if !bytes.Equal(old, want) {
		res.Changed = true
		res.Diff = Diff(opts.Path, old, want)
		if !opts.DryRun {
			if err := writePlugin(opts.Path, old != nil, want); err != nil {
				return nil, err
			}
		}
	}
	return res, initHome(ctx, opts, res)
}

// writePlugin writes the plugin file at path (through a link, which stays), refusing one
// made read-only.
func writePlugin(path string, exists bool, data []byte) error {
	mode := fs.FileMode(0o644)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			if err := checkWritable(path, fi.Mode()); err != nil {
				return err
			}
		}
	}
	target, err := resolve(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(target, data, mode)
}

// uninstallOpencode deletes the plugin file when it is reflect's.
func uninstallOpencode(opts Options) (*Result, error) {
	res := &Result{Harness: Opencode, Path: opts.Path, DryRun: opts.DryRun}
	old, err := os.ReadFile(opts.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	if _, ours := OpencodePluginBinary(old); !ours {
		return res, nil // not reflect's: nothing of reflect to remove
	}
	res.Removed, res.Changed, res.Deleted = namesOf(opencodeEvents), true, true
	res.Diff = Diff(opts.Path, old, nil)
	if opts.DryRun {
		return res, nil
	}
	return res, os.Remove(opts.Path)
}
