package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const testBinary = "/opt/reflect/bin/reflect"

func eventNames(h string) []string {
	var names []string
	for _, ev := range Events(h) {
		names = append(names, ev.Name)
	}
	return names
}

// settings is the shape of the hooks part of settings.json and hooks.json.
type settings struct {
	Hooks map[string][]struct {
		Matcher *string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func readSettings(t *testing.T, path string) settings {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s settings
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s is not valid JSON after the change: %v", path, err)
	}
	return s
}

// reflectEntries returns, per event, the reflect handlers of s for harness.
func reflectEntries(s settings, harness string) map[string][]string {
	out := map[string][]string{}
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if isReflect(h.Command, harness) {
					tm := -1.0
					if h.Timeout != nil {
						tm = *h.Timeout
					}
					out[ev] = append(out[ev], h.Type+" "+h.Command+" "+jsonFloat(tm))
				}
			}
		}
	}
	return out
}

func indent(unit string, n int) string { return strings.Repeat(unit, n) }

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name, harness, file string // file "" means no file at all
		raw                 string // or this content
		// line is what the installed file must hold (%s: the hook command), in the file's own
		// layout: a handler's command sits six levels deep
		line string
	}{
		{name: "claude settings with foreign hooks", harness: Claude, file: "claude-settings.json", line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "codex hooks.json with foreign hooks", harness: Codex, file: "codex-hooks.json", line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "claude settings minified", harness: Claude, file: "claude-minified.json", line: `{"type":"command","command":"%s","timeout":10}`},
		{name: "claude settings into codex", harness: Codex, file: "claude-settings.json", line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "claude missing file", harness: Claude, line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "codex missing file", harness: Codex, line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "claude empty object", harness: Claude, raw: "{}\n", line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "codex empty object", harness: Codex, raw: "{}\n", line: "\n" + indent("  ", 6) + `"command": "%s",` + "\n"},
		{name: "four spaces", harness: Claude, file: "claude-4-spaces.json", line: "\n" + indent("    ", 6) + `"command": "%s",` + "\n"},
		{name: "tabs", harness: Codex, file: "codex-tabs.json", line: "\n" + indent("\t", 6) + `"command": "%s",` + "\n"},
		{name: "no final newline", harness: Claude, raw: "{\n    \"model\": \"opus\"\n}", line: "\n" + indent("    ", 6) + `"command": "%s",` + "\n"},
		{name: "CRLF", harness: Claude, raw: "{\r\n   \"env\" : {\"A\": \"1\"}\r\n}\r\n", line: "\r\n" + indent("   ", 6) + `"command" : "%s",` + "\r\n"},
		{name: "hooks on one line", harness: Claude, raw: "{\n  \"hooks\": {\"Stop\": [{\"hooks\": []}]}\n}\n", line: `}]}], "PreCompact": [{"hooks": [{"type": "command", "command": "%s", "timeout": 30}]}], "SessionEnd"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf", "settings.json")
			var orig []byte
			switch {
			case tc.file != "":
				var err error
				if orig, err = os.ReadFile(filepath.Join("testdata", tc.file)); err != nil {
					t.Fatal(err)
				}
			case tc.raw != "":
				orig = []byte(tc.raw)
			}
			if orig != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, orig, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts := Options{Harness: tc.harness, Path: path, Binary: testBinary}

			res, err := Install(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || !slices.Equal(res.Added, eventNames(tc.harness)) {
				t.Fatalf("first install: changed %v, added %v", res.Changed, res.Added)
			}
			if orig != nil {
				if backup, err := os.ReadFile(path + BackupSuffix); err != nil || !bytes.Equal(backup, orig) {
					t.Fatalf("backup is not the original (%v)", err)
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
					t.Errorf("mode changed to %v", fi.Mode().Perm())
				}
			}
			installed, _ := os.ReadFile(path)
			if orig == nil {
				orig = []byte("\n") // what the file ends with when install creates it
			}
			if final := func(b []byte) string { return string(b[len(bytes.TrimRight(b, " \t\r\n")):]) }; final(installed) != final(orig) {
				t.Errorf("the file ended in %q, ends in %q now:\n%s", final(orig), final(installed), installed)
			}
			if string(orig) == "\n" {
				orig = nil
			}
			if line := fmt.Sprintf(tc.line, testBinary+" hook "+tc.harness); !strings.Contains(string(installed), line) {
				t.Errorf("no %q in the installed file:\n%s", line, installed)
			}
			if bytes.Contains(orig, []byte("\r\n")) && bytes.Count(installed, []byte("\n")) != bytes.Count(installed, []byte("\r\n")) {
				t.Errorf("a file with CRLF line ends got LF ones:\n%q", installed)
			}
			got := reflectEntries(readSettings(t, path), tc.harness)
			for _, ev := range Events(tc.harness) {
				want := []string{"command " + testBinary + " hook " + tc.harness + " " + jsonFloat(float64(ev.Timeout))}
				if !slices.Equal(got[ev.Name], want) {
					t.Errorf("%s: reflect entries %q, want %q", ev.Name, got[ev.Name], want)
				}
			}
			if tc.harness == Codex && strings.Contains(string(installed), "SessionEnd") {
				if to := Events(Codex)[len(Events(Codex))-1]; to.Name != "SessionEnd" || to.Timeout > 3 {
					t.Errorf("codex SessionEnd timeout %d > 3", to.Timeout)
				}
			}

			// A second install changes nothing, byte for byte.
			res, err = Install(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); res.Changed || !bytes.Equal(again, installed) || len(res.Added)+len(res.Updated) > 0 {
				t.Fatalf("second install changed the file (changed %v, added %v, updated %v)", res.Changed, res.Added, res.Updated)
			}

			res, err = Uninstall(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || len(res.Removed) != len(Events(tc.harness)) {
				t.Fatalf("uninstall: changed %v, removed %v", res.Changed, res.Removed)
			}
			after, err := os.ReadFile(path)
			switch {
			case orig == nil:
				if !errors.Is(err, os.ErrNotExist) || !res.Deleted {
					t.Fatalf("uninstall kept the file install had created (%v):\n%s", err, after)
				}
			case err != nil:
				t.Fatal(err)
			case !bytes.Equal(after, orig):
				t.Fatalf("uninstall did not give back the original:\n%s", Diff(path, orig, after))
			}
			// The backup is still the file as it was before reflect, not the installed one.
			if backup, err := os.ReadFile(path + BackupSuffix); orig != nil && (err != nil || !bytes.Equal(backup, orig)) {
				t.Fatalf("uninstall replaced the backup of the original (%v):\n%s", err, backup)
			}
			// Uninstalling again finds nothing to do.
			if res, err := Uninstall(opts); err != nil || res.Changed {
				t.Fatalf("second uninstall: %v, changed %v", err, res != nil && res.Changed)
			}
		})
	}
}

// An entry from an older install (another path, another timeout) is updated in place, and a
// foreign handler in the same group is kept; uninstall keeps that handler's group.
func TestUpdateOlderEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	orig, _ := os.ReadFile("testdata/claude-old-reflect.json")
	os.WriteFile(path, orig, 0o644)
	opts := Options{Harness: Claude, Path: path, Binary: testBinary}
	res, err := Install(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Updated, []string{"SessionStart", "Stop"}) || len(res.Added) != 5 {
		t.Fatalf("updated %v, added %v", res.Updated, res.Added)
	}
	s := readSettings(t, path)
	if n := len(s.Hooks["SessionStart"]); n != 1 {
		t.Fatalf("SessionStart has %d groups, want the one it had", n)
	}
	if g := s.Hooks["SessionStart"][0].Hooks; len(g) != 2 || g[0].Command != testBinary+" hook claude" || g[1].Command != "echo hello" {
		t.Fatalf("SessionStart group: %+v", g)
	}
	if g := s.Hooks["Stop"][0].Hooks; len(g) != 1 || *g[0].Timeout != 30 {
		t.Fatalf("Stop group: %+v", g)
	}
	if _, err := Uninstall(opts); err != nil {
		t.Fatal(err)
	}
	s = readSettings(t, path)
	if len(s.Hooks) != 1 || len(s.Hooks["SessionStart"][0].Hooks) != 1 || s.Hooks["SessionStart"][0].Hooks[0].Command != "echo hello" {
		t.Fatalf("after uninstall: %+v", s.Hooks)
	}
}

func TestMalformedRefused(t *testing.T) {
	cases := []struct {
		file      string
		line, col int // 0: a shape error with no single place
	}{
		{"truncated.json", 4, 1},
		{"trailing-comma.json", 3, 20},
		{"array.json", 1, 1},
		{"string.json", 2, 3},
		{"two-values.json", 1, 10},
		{"hooks-not-object.json", 0, 0},
		{"event-not-array.json", 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", "malformed", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"install", "uninstall"} {
				dir := t.TempDir()
				path := filepath.Join(dir, "settings.json")
				os.WriteFile(path, orig, 0o644)
				opts := Options{Harness: Claude, Path: path, Binary: testBinary}
				if op == "install" {
					_, err = Install(context.Background(), opts)
				} else {
					_, err = Uninstall(opts)
				}
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("%s: got %v, want a *SyntaxError", op, err)
				}
				if se.Line != tc.line || se.Col != tc.col {
					t.Errorf("%s: %v: want line %d col %d", op, err, tc.line, tc.col)
				}
				if tc.line > 0 && !strings.HasPrefix(err.Error(), path+":") {
					t.Errorf("error %q does not start with the file", err)
				}
				if after, _ := os.ReadFile(path); !bytes.Equal(after, orig) {
					t.Errorf("%s changed the malformed file", op)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Errorf("%s left files behind: %v", op, entries)
				}
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	orig, _ := os.ReadFile("testdata/claude-settings.json")
	os.WriteFile(path, orig, 0o644)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	unchanged := func(what string) {
		t.Helper()
		fi, _ := os.Stat(path)
		data, _ := os.ReadFile(path)
		entries, _ := os.ReadDir(dir)
		if !fi.ModTime().Equal(old) || !bytes.Equal(data, orig) || len(entries) != 1 {
			t.Fatalf("%s wrote something (mtime %v, %d files)", what, fi.ModTime(), len(entries))
		}
	}
	res, err := Install(context.Background(), Options{Harness: Claude, Path: path, Binary: testBinary, DryRun: true, Home: filepath.Join(dir, "memory")})
	if err != nil {
		t.Fatal(err)
	}
	unchanged("install --dry-run")
	if !res.Changed || !strings.Contains(res.Diff, `+            "command": "`+testBinary+` hook claude",`) {
		t.Fatalf("dry-run diff does not show the change:\n%s", res.Diff)
	}
	if strings.Contains(res.Diff, "\n-") {
		t.Fatalf("install removes lines:\n%s", res.Diff)
	}
	if _, err := Install(context.Background(), Options{Harness: Claude, Path: path, Binary: testBinary}); err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(path)
	os.Remove(path + BackupSuffix)
	os.Chtimes(path, old, old)
	orig = installed
	res, err = Uninstall(Options{Harness: Claude, Path: path, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	unchanged("uninstall --dry-run")
	if !res.Changed || !strings.Contains(res.Diff, "-            \"command\": \""+testBinary) {
		t.Fatalf("uninstall dry-run diff:\n%s", res.Diff)
	}
	// A dry run of an install into a missing file creates nothing either.
	missing := filepath.Join(dir, "sub", "settings.json")
	if _, err := Install(context.Background(), Options{Harness: Codex, Path: missing, Binary: testBinary, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("dry run created the directory")
	}
}

func TestCommandAndRecognition(t *testing.T) {
	cases := []struct {
		command, harness string
		reflect          bool
	}{
		{"/usr/local/bin/reflect hook claude", Claude, true},
		{"/usr/local/bin/reflect hook claude", Codex, false},
		{"'/Users/ada/My Tools/reflect' hook codex", Codex, true},
		{`"${CLAUDE_PLUGIN_ROOT}/bin/reflect" hook claude`, Claude, true},
		{"reflect hook claude", Claude, true},
		{"/usr/bin/notreflect hook claude", Claude, false},
		{"/usr/bin/reflect hook claude --verbose", Claude, false},
		{"echo reflect hook claude", Claude, false},
	}
	for _, tc := range cases {
		if got := isReflect(tc.command, tc.harness); got != tc.reflect {
			t.Errorf("isReflect(%q, %s) = %v", tc.command, tc.harness, got)
		}
	}
	for bin, want := range map[string]string{
		"/usr/local/bin/reflect":      "/usr/local/bin/reflect hook claude",
		"/Users/ada/My Tools/reflect": "'/Users/ada/My Tools/reflect' hook claude",
		"/tmp/it's/reflect":           `'/tmp/it'\''s/reflect' hook claude`,
	} {
		if got := Command(bin, Claude); got != want || !isReflect(got, Claude) {
			t.Errorf("Command(%q) = %q, want %q", bin, got, want)
		}
	}
}

func TestConfigPath(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/cfg/claude")
	t.Setenv("CODEX_HOME", "/cfg/codex")
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(sub, 0o755)
	cases := []struct {
		harness string
		project bool
		want    string
	}{
		{Claude, false, "/cfg/claude/settings.json"},
		{Codex, false, "/cfg/codex/hooks.json"},
		{Claude, true, filepath.Join(repo, ".claude", "settings.json")},
		{Codex, true, filepath.Join(repo, ".codex", "hooks.json")},
	}
	for _, tc := range cases {
		if got, err := ConfigPath(tc.harness, tc.project, sub); err != nil || got != tc.want {
			t.Errorf("ConfigPath(%s, %v) = %q, %v; want %q", tc.harness, tc.project, got, err, tc.want)
		}
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", "/home/ada")
	if got, _ := ConfigPath(Claude, false, sub); got != "/home/ada/.claude/settings.json" {
		t.Errorf("default claude path %q", got)
	}
}

func TestCodexNotes(t *testing.T) {
	cases := []struct {
		toml     string
		disabled bool
	}{
		{"", false},
		{"model = \"gpt-5\"\n[features]\nhooks = true\n", false},
		{"model = \"gpt-5\"\n\n[features]\nweb_search = true\nhooks = false  # off for now\n", true},
		{"[features]\ncodex_hooks = false\n", true},
		{"features.hooks = false\n", true},
		{"[profiles.fast]\nhooks = false\n", false},
	}
	for _, tc := range cases {
		home := t.TempDir()
		if tc.toml != "" {
			os.WriteFile(filepath.Join(home, "config.toml"), []byte(tc.toml), 0o644)
		}
		notes := CodexNotes(home)
		if notes[len(notes)-1] != CodexTrustNote {
			t.Errorf("%q: no trust note: %q", tc.toml, notes)
		}
		if got := len(notes) == 2 && strings.Contains(notes[0], "disabled"); got != tc.disabled {
			t.Errorf("%q: notes %q, want disabled=%v", tc.toml, notes, tc.disabled)
		}
	}
}

// What --dry-run prints is a diff patch(1) applies: to a copy of the file, it gives what the
// install or uninstall then writes, byte for byte.
func TestDryRunDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("no patch on PATH")
	}
	four, _ := os.ReadFile("testdata/claude-4-spaces.json")
	settings, _ := os.ReadFile("testdata/claude-settings.json")
	long := "{\n" + strings.Repeat("  \"k\": 1,\n", 40) + "  \"hooks\": {}\n}\n"
	cases := []struct {
		name, harness string
		orig          []byte // nil: no file
	}{
		{"four spaces", Claude, four},
		{"foreign hooks", Claude, settings},
		{"no final newline", Claude, []byte("{\n\t\"model\": \"opus\"\n}")},
		{"long file", Codex, []byte(long)},
		{"no file", Codex, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if tc.orig != nil {
				os.WriteFile(path, tc.orig, 0o644)
			}
			opts := Options{Harness: tc.harness, Path: path, Binary: testBinary}
			for _, op := range []string{"install", "uninstall"} {
				dry := opts
				dry.DryRun = true
				run := func(o Options) (*Result, error) {
					if op == "install" {
						return Install(context.Background(), o)
					}
					return Uninstall(o)
				}
				res, err := run(dry)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(res.Diff, "\n@@ -") {
					t.Fatalf("%s: no hunk header:\n%s", op, res.Diff)
				}
				copyPath := filepath.Join(dir, "copy.json")
				before, _ := os.ReadFile(path)
				os.WriteFile(copyPath, before, 0o644)
				os.WriteFile(filepath.Join(dir, "change.diff"), []byte(res.Diff), 0o644)
				cmd := exec.Command("patch", "--batch", "--silent", "--posix", copyPath, filepath.Join(dir, "change.diff"))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: patch refuses the dry-run diff: %v\n%s\n%s", op, err, out, res.Diff)
				}
				if _, err := run(opts); err != nil {
					t.Fatal(err)
				}
				want, _ := os.ReadFile(path)
				got, _ := os.ReadFile(copyPath)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: the patched copy is not what was written:\n%q\n%q\n%s", op, got, want, res.Diff)
				}
			}
		})
	}
}
