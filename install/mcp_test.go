package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bin = "/usr/local/bin/reflect"

func TestCodexMCP(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		installed    string // "" when install must refuse
		wantErr      string
		uninstalled  string // after an uninstall of installed; "" means before
	}{
		{name: "new file", before: "",
			installed: "[mcp_servers.reflect]\ncommand = \"/usr/local/bin/reflect\"\nargs = [\"mcp\"]\n"},
		{name: "no final newline", before: "model = \"o3\"",
			installed:   "model = \"o3\"\n\n[mcp_servers.reflect]\ncommand = \"/usr/local/bin/reflect\"\nargs = [\"mcp\"]\n",
			uninstalled: "model = \"o3\"\n"},
		{name: "in the middle, subtable and user keys kept on update",
			before:      "[mcp_servers.reflect]\ncommand = \"/old/reflect\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.reflect.env]\nA = \"1\"\n\n# the docs server\n[mcp_servers.docs]\ncommand = \"docs\"\n",
			installed:   "[mcp_servers.reflect]\ncommand = \"/usr/local/bin/reflect\"\nargs = [\"mcp\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.reflect.env]\nA = \"1\"\n\n# the docs server\n[mcp_servers.docs]\ncommand = \"docs\"\n",
			uninstalled: "\n# the docs server\n[mcp_servers.docs]\ncommand = \"docs\"\n"},
		{name: "quoted header", before: "[mcp_servers.\"reflect\"]\ncommand = \"/opt/reflect\"\nargs = [\"mcp\"]\n",
			installed:   "[mcp_servers.\"reflect\"]\ncommand = \"/usr/local/bin/reflect\"\nargs = [\"mcp\"]\n",
			uninstalled: ""},
		{name: "dotted keys are not edited", before: "[mcp_servers]\nreflect.command = \"/opt/reflect\"\nreflect.args = [\"mcp\"]\n",
			wantErr: "is not written as a [mcp_servers.reflect] table"},
		{name: "another server named reflect", before: "[mcp_servers.reflect]\ncommand = \"npx\"\nargs = [\"reflect-server\"]\n",
			wantErr: `runs "npx", not reflect's server`},
		{name: "bad toml", before: "a = \nb = 1\n", wantErr: "config.toml:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if tc.before != "" {
				os.WriteFile(path, []byte(tc.before), 0o600)
			}
			_, err := InstallMCP(context.Background(), Options{Harness: Codex, Path: path, Binary: bin})
			got, _ := os.ReadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("install: err %v, want %q", err, tc.wantErr)
				}
				if string(got) != tc.before {
					t.Fatalf("a refused install changed the file:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.installed {
				t.Fatalf("installed:\n%s\nwant:\n%s", got, tc.installed)
			}
			if s, err := ReadMCP(Codex, path); err != nil || s == nil || s.Command != bin {
				t.Fatalf("ReadMCP: %+v %v", s, err)
			}
			if again, err := InstallMCP(context.Background(), Options{Harness: Codex, Path: path, Binary: bin}); err != nil || again.Changed {
				t.Fatalf("a second install changed something: %+v %v", again, err)
			}
			if fi, _ := os.Stat(path); tc.before != "" && fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v", fi.Mode())
			}
			if _, err := UninstallMCP(Options{Harness: Codex, Path: path}); err != nil {
				t.Fatal(err)
			}
			want := tc.uninstalled
			if want == "" && !strings.Contains(tc.name, "quoted") {
				want = tc.before
			}
			got, err = os.ReadFile(path)
			switch {
			case tc.before == "" && !errors.Is(err, os.ErrNotExist):
				t.Fatalf("the file install created is still there: %q", got)
			case tc.before != "" && string(got) != want:
				t.Fatalf("uninstalled:\n%q\nwant:\n%q", got, want)
			}
		})
	}
}

func TestClaudeMCP(t *testing.T) {
	for _, tc := range []struct{ name, before, wantErr string }{
		{name: "no file"},
		{name: "tabs and other servers", before: "{\n\t\"mcpServers\": {\n\t\t\"x\": {\"command\": \"x\"}\n\t},\n\t\"theme\": \"dark\"\n}\n"},
		{name: "no servers yet", before: "{\"theme\":\"dark\"}"},
		{name: "mcpServers is not an object", before: "{\"mcpServers\": []}", wantErr: `"mcpServers" is not an object`},
		{name: "foreign reflect", before: "{\"mcpServers\": {\"reflect\": {\"command\": \"uvx\", \"args\": [\"reflect\"]}}}", wantErr: `runs "uvx"`},
		{name: "not json", before: "{\"a\": }", wantErr: ".claude.json:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude.json")
			if tc.before != "" {
				os.WriteFile(path, []byte(tc.before), 0o600)
			}
			_, err := InstallMCP(context.Background(), Options{Harness: Claude, Path: path, Binary: bin})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := ReadMCP(Claude, path)
			if err != nil || s == nil || s.Command != bin || strings.Join(s.Args, " ") != "mcp" {
				t.Fatalf("ReadMCP: %+v %v", s, err)
			}
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), `"stdio"`) {
				t.Fatalf("installed:\n%s", data)
			}
			if tc.before != "" && strings.Contains(tc.before, "\t") && !strings.Contains(string(data), "\t\t\"reflect\": {") {
				t.Fatalf("the file's indentation was not kept:\n%s", data)
			}
			if _, err := UninstallMCP(Options{Harness: Claude, Path: path}); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if tc.before == "" {
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("the file install created is still there: %s", after)
				}
				return
			}
			if string(after) != tc.before {
				t.Fatalf("uninstall gave\n%q\nwant\n%q", after, tc.before)
			}
		})
	}
}
