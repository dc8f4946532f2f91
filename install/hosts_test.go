package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHostsRoundTrip: install into each other host's file, with the user's own hooks and
// layout, keeps them; a second install changes nothing; uninstall gives the file back byte
// for byte, and removes a file install created.
func TestHostsRoundTrip(t *testing.T) {
	cases := []struct {
		name, host, orig string
		// check reads the installed file
		check func(t *testing.T, data []byte)
	}{
		{"gemini settings with a foreign hook", Gemini, `{
    "general": {"vimMode": true},
    "hooks": {
        "BeforeTool": [
            {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5000}]}
        ]
    },
    "hooksConfig": {"enabled": true}
}
`, func(t *testing.T, data []byte) {
			var s struct {
				Hooks map[string][]struct {
					Hooks []struct {
						Type, Command string
						Timeout       int
					}
				}
			}
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			for _, ev := range Events(Gemini) {
				g := s.Hooks[ev.Name]
				if len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != testBinary+" hook gemini" || g[0].Hooks[0].Timeout != ev.Timeout || g[0].Hooks[0].Type != "command" {
					t.Errorf("%s: %+v", ev.Name, g)
				}
				if ev.Timeout < 1000 {
					t.Errorf("%s: Gemini's timeouts are milliseconds, got %d", ev.Name, ev.Timeout)
				}
			}
			if !strings.Contains(string(data), "\n        \"BeforeAgent\": [") {
				t.Errorf("the file's four-space layout was not kept:\n%s", data)
			}
		}},
		{"cursor hooks.json with a foreign hook", Cursor, "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"afterFileEdit\": [{\"command\": \"./format.sh\"}],\n\t\t\"stop\": [{\"command\": \"./notify.sh\", \"timeout\": 5}]\n\t}\n}\n",
			func(t *testing.T, data []byte) {
				var s struct {
					Version int
					Hooks   map[string][]struct {
						Command string
						Timeout int
					}
				}
				if err := json.Unmarshal(data, &s); err != nil {
					t.Fatal(err)
				}
				if s.Version != 1 || len(s.Hooks["stop"]) != 2 || s.Hooks["stop"][0].Command != "./notify.sh" {
					t.Errorf("foreign hooks: %+v", s)
				}
				for _, ev := range Events(Cursor) {
					hs := s.Hooks[ev.Name]
					if hs[len(hs)-1].Command != testBinary+" hook cursor" || hs[len(hs)-1].Timeout != ev.Timeout {
						t.Errorf("%s: %+v", ev.Name, hs)
					}
				}
			}},
		{"copilot reflect.json, new", Copilot, "", func(t *testing.T, data []byte) {
			var s struct {
				Version int
				Hooks   map[string][]struct {
					Type, Exec string
					Args       []string
					TimeoutSec int
				}
			}
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			if s.Version != 1 {
				t.Errorf("version %d", s.Version)
			}
			for _, ev := range Events(Copilot) {
				hs := s.Hooks[ev.Name]
				if len(hs) != 1 || hs[0].Type != "command" || hs[0].Exec != testBinary || !slices.Equal(hs[0].Args, []string{"hook", "copilot", ev.Name}) || hs[0].TimeoutSec != ev.Timeout {
					t.Errorf("%s: %+v", ev.Name, hs)
				}
			}
		}},
		{"cursor, new", Cursor, "", nil},
		{"gemini, new", Gemini, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conf", "file.json")
			if tc.orig != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(tc.orig), 0o644)
			}
			opts := Options{Harness: tc.host, Path: path, Binary: testBinary}
			res, err := Install(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed || !slices.Equal(res.Added, eventNames(tc.host)) {
				t.Fatalf("install: changed %v added %v", res.Changed, res.Added)
			}
			data, _ := os.ReadFile(path)
			if tc.check != nil {
				tc.check(t, data)
			}
			if !strings.HasSuffix(string(data), "}\n") {
				t.Errorf("no final newline:\n%s", data)
			}
			again, err := Install(context.Background(), opts)
			if err != nil || again.Changed || !slices.Equal(again.Unchanged, eventNames(tc.host)) {
				t.Fatalf("second install: %+v, %v", again, err)
			}
			if d, _ := os.ReadFile(path); !bytes.Equal(d, data) {
				t.Fatal("a second install changed the file")
			}
			// the dry run of an uninstall says what it would remove and writes nothing
			dry, err := Uninstall(Options{Harness: tc.host, Path: path, DryRun: true})
			if err != nil || !sameSet(dry.Removed, eventNames(tc.host)) || dry.Diff == "" {
				t.Fatalf("dry-run uninstall: %+v, %v", dry, err)
			}
			un, err := Uninstall(opts)
			if err != nil || !sameSet(un.Removed, eventNames(tc.host)) {
				t.Fatalf("uninstall: %+v, %v", un, err)
			}
			after, err := os.ReadFile(path)
			switch {
			case tc.orig == "" && (err == nil || !un.Deleted):
				t.Fatalf("uninstall left the file install created: %q", after)
			case tc.orig != "" && string(after) != tc.orig:
				t.Fatalf("uninstall did not give the file back:\n%s\nwant\n%s", after, tc.orig)
			}
		})
	}
}

// TestHostsOwnEntriesOnly: reflect's entries for one host are not another's, and a Copilot
// file entry running reflect through bash is recognised (and updated to the exec form).
func TestHostsOwnEntriesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	os.WriteFile(path, []byte(`{"version":1,"hooks":{"sessionStart":[{"command":"reflect hook claude"},{"type":"command","bash":"/usr/bin/reflect hook copilot sessionStart","timeoutSec":3}]}}`), 0o644)
	res, err := Install(context.Background(), Options{Harness: Copilot, Path: path, Binary: testBinary})
	if err != nil || !slices.Contains(res.Updated, "sessionStart") {
		t.Fatalf("%+v %v", res, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `{"command":"reflect hook claude"}`) || strings.Count(string(data), `"hook", "copilot", "sessionStart"`)+strings.Count(string(data), `"hook","copilot","sessionStart"`) != 1 {
		t.Fatalf("%s", data)
	}
}

// TestHostPaths: where each host keeps its hooks, for the user and for a repository.
func TestHostPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GEMINI_CLI_HOME", "")
	t.Setenv("COPILOT_HOME", "")
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	for _, tt := range []struct{ host, user, project string }{
		{Gemini, ".gemini/settings.json", ".gemini/settings.json"},
		{Copilot, ".copilot/hooks/reflect.json", ".github/hooks/reflect.json"},
		{Cursor, ".cursor/hooks.json", ".cursor/hooks.json"},
	} {
		if p, err := ConfigPath(tt.host, false, ""); err != nil || p != filepath.Join(home, tt.user) {
			t.Errorf("%s user: %s %v", tt.host, p, err)
		}
		if p, err := ConfigPath(tt.host, true, repo); err != nil || p != filepath.Join(repo, tt.project) {
			t.Errorf("%s project: %s %v", tt.host, p, err)
		}
	}
	t.Setenv("GEMINI_CLI_HOME", "/g")
	t.Setenv("COPILOT_HOME", "/c")
	if p, _ := ConfigPath(Gemini, false, ""); p != "/g/.gemini/settings.json" {
		t.Errorf("GEMINI_CLI_HOME: %s", p)
	}
	if p, _ := ConfigPath(Copilot, false, ""); p != "/c/hooks/reflect.json" {
		t.Errorf("COPILOT_HOME: %s", p)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestOpencodePlugin: install writes reflect's plugin (valid JavaScript, running the binary
// given), a second install changes nothing, a reflect.js that is not reflect's is refused
// and never removed, uninstall deletes reflect's.
func TestOpencodePlugin(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugins", "reflect.js")
	opts := Options{Harness: Opencode, Path: path, Binary: "/opt/re flect/bin/reflect"}
	res, err := Install(context.Background(), opts)
	if err != nil || !res.Changed || !res.Created {
		t.Fatalf("%+v %v", res, err)
	}
	data, _ := os.ReadFile(path)
	if bin, ours := OpencodePluginBinary(data); !ours || bin != opts.Binary {
		t.Fatalf("plugin runs %q (ours %v)", bin, ours)
	}
	if node, err := exec.LookPath("node"); err == nil {
		mjs := filepath.Join(dir, "check.mjs")
		os.WriteFile(mjs, data, 0o644)
		if out, err := exec.Command(node, "--check", mjs).CombinedOutput(); err != nil {
			t.Fatalf("the plugin is not valid JavaScript: %v\n%s", err, out)
		}
	}
	if res, err := Install(context.Background(), opts); err != nil || res.Changed {
		t.Fatalf("second install: %+v %v", res, err)
	}
	if res, err := Uninstall(Options{Harness: Opencode, Path: path, DryRun: true}); err != nil || !res.Deleted {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	if res, err := Uninstall(opts); err != nil || !res.Deleted {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the plugin is still there")
	}
	foreign := []byte("export const Mine = async () => ({})\n")
	os.WriteFile(path, foreign, 0o644)
	var fe *ForeignPluginError
	if _, err := Install(context.Background(), opts); !errors.As(err, &fe) {
		t.Fatalf("a foreign reflect.js: %v", err)
	}
	if res, err := Uninstall(opts); err != nil || res.Changed {
		t.Fatalf("uninstall of a foreign file: %+v %v", res, err)
	}
	if d, _ := os.ReadFile(path); !bytes.Equal(d, foreign) {
		t.Fatal("a foreign reflect.js was changed")
	}
}

// TestGeminiHooksDisabled: hooks switched off, or reflect's command disabled, is seen.
func TestGeminiHooksDisabled(t *testing.T) {
	for _, tt := range []struct {
		settings string
		off      bool
	}{
		{`{"hooksConfig":{"enabled":false}}`, true},
		{`{"hooksConfig":{"enabled":true,"disabled":["/usr/bin/reflect hook gemini"]}}`, true},
		{`{"hooksConfig":{"disabled":["./guard.sh"]}}`, false},
		{`{}`, false},
		{`not json`, false},
	} {
		p := filepath.Join(t.TempDir(), "settings.json")
		os.WriteFile(p, []byte(tt.settings), 0o644)
		if off, why := GeminiHooksDisabled(p); off != tt.off {
			t.Errorf("%s: off %v (%s)", tt.settings, off, why)
		}
	}
}
