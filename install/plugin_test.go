package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// claudeEvents are the hook events of harness-formats §A.3.
var claudeEvents = strings.Fields(`SessionStart Setup UserPromptSubmit UserPromptExpansion
	PreToolUse PermissionRequest PermissionDenied PostToolUse PostToolUseFailure PostToolBatch
	Notification MessageDisplay SubagentStart SubagentStop TaskCreated TaskCompleted Stop
	StopFailure TeammateIdle InstructionsLoaded ConfigChange CwdChanged DirectoryAdded
	FileChanged WorktreeCreate WorktreeRemove PreCompact PostCompact Elicitation
	ElicitationResult SessionEnd`)

// validatePlugin checks a plugin folder against the documented plugin format (§A.6): plugin.json
// is the only file in .claude-plugin/, name is a kebab-case string, the optional fields have
// their types, and hooks/hooks.json follows the settings "hooks" schema (§A.2).
func validatePlugin(dir string) error {
	entries, err := os.ReadDir(filepath.Join(dir, ".claude-plugin"))
	if err != nil {
		return err
	}
	if len(entries) != 1 || entries[0].Name() != "plugin.json" {
		return fmt.Errorf(".claude-plugin holds %v; only plugin.json is allowed", entries)
	}
	var manifest map[string]any
	if err := readJSON(filepath.Join(dir, ".claude-plugin", "plugin.json"), &manifest); err != nil {
		return err
	}
	name, ok := manifest["name"].(string)
	if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return fmt.Errorf("name %v is not a kebab-case string", manifest["name"])
	}
	for _, k := range []string{"displayName", "version", "description", "homepage", "repository", "license"} {
		if v, ok := manifest[k]; ok {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s is not a string", k)
			}
		}
	}
	if a, ok := manifest["author"]; ok {
		am, ok := a.(map[string]any)
		if !ok {
			return fmt.Errorf("author is not an object")
		}
		if _, ok := am["name"].(string); !ok {
			return fmt.Errorf("author.name is not a string")
		}
	}
	if kw, ok := manifest["keywords"]; ok {
		list, ok := kw.([]any)
		if !ok {
			return fmt.Errorf("keywords is not an array")
		}
		for _, k := range list {
			if _, ok := k.(string); !ok {
				return fmt.Errorf("keyword %v is not a string", k)
			}
		}
	}
	var hooksFile map[string]any
	if err := readJSON(filepath.Join(dir, "hooks", "hooks.json"), &hooksFile); err != nil {
		return err
	}
	for k := range hooksFile {
		if k != "description" && k != "hooks" {
			return fmt.Errorf("hooks.json has unknown key %q", k)
		}
	}
	hooks, ok := hooksFile["hooks"].(map[string]any)
	if !ok || len(hooks) == 0 {
		return fmt.Errorf("hooks.json has no hooks object")
	}
	for ev, groups := range hooks {
		if !slices.Contains(claudeEvents, ev) {
			return fmt.Errorf("unknown event %q", ev)
		}
		list, ok := groups.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("%s is not a non-empty array", ev)
		}
		for _, g := range list {
			gm, ok := g.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: group is not an object", ev)
			}
			if m, ok := gm["matcher"]; ok {
				if _, ok := m.(string); !ok {
					return fmt.Errorf("%s: matcher is not a string", ev)
				}
			}
			hs, ok := gm["hooks"].([]any)
			if !ok || len(hs) == 0 {
				return fmt.Errorf("%s: group has no hooks array", ev)
			}
			for _, h := range hs {
				hm, ok := h.(map[string]any)
				if !ok {
					return fmt.Errorf("%s: hook is not an object", ev)
				}
				if hm["type"] != "command" {
					return fmt.Errorf("%s: type %v, want command", ev, hm["type"])
				}
				if c, ok := hm["command"].(string); !ok || c == "" {
					return fmt.Errorf("%s: no command", ev)
				}
				if to, ok := hm["timeout"].(float64); !ok || to <= 0 || to > 600 {
					return fmt.Errorf("%s: timeout %v is not a positive number of seconds", ev, hm["timeout"])
				}
			}
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func TestPlugin(t *testing.T) {
	cases := []struct {
		name    string
		withBin bool // the folder ships its own bin/reflect
	}{
		{"launcher", false},
		{"shipped bin/reflect", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "reflect-plugin")
			own := []byte("#!/bin/sh\necho the folder's own\n")
			if tc.withBin {
				os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
				os.WriteFile(filepath.Join(dir, "bin", "reflect"), own, 0o755)
			}
			res, err := WritePlugin(PluginOptions{Dir: dir, Version: "v1.2.3"})
			if err != nil {
				t.Fatal(err)
			}
			if err := validatePlugin(dir); err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			readJSON(res.Manifest, &m)
			if m["name"] != "reflect" || m["version"] != "v1.2.3" {
				t.Errorf("manifest %v", m)
			}
			// The hooks name no path of this machine: a marketplace serves the folder to all.
			want := `"${CLAUDE_PLUGIN_ROOT}/bin/reflect" hook claude`
			got := reflectEntries(readSettings(t, res.Hooks), Claude)
			for _, ev := range Events(Claude) {
				if w := "command " + want + " " + jsonFloat(float64(ev.Timeout)); !slices.Equal(got[ev.Name], []string{w}) {
					t.Errorf("%s: %q, want %q", ev.Name, got[ev.Name], w)
				}
			}
			hooks, _ := os.ReadFile(res.Hooks)
			if self, _ := os.Executable(); strings.Contains(string(hooks), filepath.Dir(self)) || strings.Contains(string(hooks), os.TempDir()) {
				t.Errorf("hooks.json names a path of this machine:\n%s", hooks)
			}
			readme, err := os.ReadFile(res.Readme)
			if err != nil || !strings.Contains(string(readme), "on PATH") {
				t.Errorf("README.md does not say reflect must be on PATH (%v):\n%s", err, readme)
			}
			bin, _ := os.ReadFile(filepath.Join(dir, "bin", "reflect"))
			if fi, err := os.Stat(filepath.Join(dir, "bin", "reflect")); err != nil || fi.Mode().Perm()&0o111 == 0 {
				t.Errorf("bin/reflect is not executable (%v)", err)
			}
			if tc.withBin != bytes.Equal(bin, own) || res.Shipped != tc.withBin {
				t.Errorf("the folder's own bin/reflect kept: %v, want %v", bytes.Equal(bin, own), tc.withBin)
			}
			// Writing again replaces the files and still validates.
			if _, err := WritePlugin(PluginOptions{Dir: dir}); err != nil {
				t.Fatal(err)
			}
			if err := validatePlugin(dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The launcher runs the reflect on PATH (not itself, though Claude Code puts the plugin's bin/
// on PATH too), passing the arguments and the hook's stdin; $REFLECT_BIN comes first.
func TestPluginLauncher(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := filepath.Join(t.TempDir(), "plugin")
	res, err := WritePlugin(PluginOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fake := func(name string) (bin, out string) {
		d := t.TempDir()
		out = filepath.Join(d, "ran")
		bin = filepath.Join(d, "reflect")
		os.WriteFile(bin, []byte("#!/bin/sh\n{ echo "+name+" \"$@\"; cat; } > '"+out+"'\n"), 0o755)
		return bin, out
	}
	onPath, ranOnPath := fake("path")
	chosen, ranChosen := fake("chosen")
	run := func(env ...string) {
		t.Helper()
		cmd := exec.Command(sh, "-c", `"$PLUGIN/bin/reflect" hook claude`)
		cmd.Env = append([]string{"HOME=" + t.TempDir(), "PLUGIN=" + res.Dir,
			"PATH=" + filepath.Dir(res.Launcher) + ":" + filepath.Dir(onPath) + ":/usr/bin:/bin"}, env...)
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop"}`)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("launcher: %v\n%s", err, out)
		}
	}
	run()
	if got, _ := os.ReadFile(ranOnPath); string(got) != "path hook claude\n{\"hook_event_name\":\"Stop\"}" {
		t.Errorf("the reflect on PATH got %q", got)
	}
	run("REFLECT_BIN=" + chosen)
	if got, _ := os.ReadFile(ranChosen); !strings.HasPrefix(string(got), "chosen hook claude\n") {
		t.Errorf("$REFLECT_BIN got %q", got)
	}
	// Without reflect, or started by a launcher, it exits 0 and prints nothing; it never runs
	// itself, though its folder is on PATH.
	os.Remove(onPath)
	for _, guard := range []string{"", "REFLECT_PLUGIN_LAUNCHER=1"} {
		if _, err := os.Stat("/usr/local/bin/reflect"); err == nil && guard == "" {
			continue // this machine has a reflect the launcher would find
		}
		cmd := exec.Command(sh, "-c", `"$PLUGIN/bin/reflect" hook claude`)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PLUGIN=" + res.Dir, "PATH=" + filepath.Dir(res.Launcher) + ":/usr/bin:/bin", guard}
		cmd.Stdin = strings.NewReader("{}")
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("launcher without reflect (%s): %v %q", guard, err, out)
		}
	}
}

// The validator itself refuses what the format forbids.
func TestValidatePluginRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := WritePlugin(PluginOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), []byte(`{"hooks":{"OnSave":[{"hooks":[{"type":"command","command":"x","timeout":1}]}]}}`), 0o644)
	if err := validatePlugin(dir); err == nil {
		t.Fatal("unknown event accepted")
	}
	os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","timeout":1}]}]}}`), 0o644)
	if err := validatePlugin(dir); err == nil {
		t.Fatal("hook without command accepted")
	}
	os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), []byte(`{"version":"1"}`), 0o644)
	if err := validatePlugin(dir); err == nil {
		t.Fatal("manifest without name accepted")
	}
}
