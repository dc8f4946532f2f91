package install

// Registering `reflect mcp` with the hosts: Claude Code's mcpServers (user scope in
// ~/.claude.json, a project's .mcp.json) and Codex's [mcp_servers.reflect] table in
// config.toml. Both files are the user's and the host's: reflect changes its own entry and
// nothing else, keeps their layout (the JSON tree install uses for hooks; for TOML, the lines
// of reflect's table only), writes the same backup and dry-run diff as for hooks, and an
// uninstall leaves the bytes as they were before the install.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// MCPServerName is the name reflect's server is registered under in every host.
const MCPServerName = "reflect"

// MCPArgs are the arguments the host starts reflect's server with.
var MCPArgs = []string{"mcp"}

// MCPConfigPath returns the file harness registers MCP servers in: for the user,
// $CLAUDE_CONFIG_DIR/.claude.json (else ~/.claude.json) or $CODEX_HOME/config.toml (else
// ~/.codex/config.toml); with project, .mcp.json or .codex/config.toml at the top of the git
// work tree holding cwd (else in cwd).
func MCPConfigPath(harness string, project bool, cwd string) (string, error) {
	if harness != Claude && harness != Codex {
		return "", fmt.Errorf("unknown harness %q (want claude or codex)", harness)
	}
	if project {
		// beside the hooks' project file: <top>/.claude/settings.json, <top>/.codex/hooks.json
		hooks, err := ConfigPath(harness, true, cwd)
		if err != nil {
			return "", err
		}
		if harness == Claude {
			return filepath.Join(filepath.Dir(filepath.Dir(hooks)), ".mcp.json"), nil
		}
		return filepath.Join(filepath.Dir(hooks), "config.toml"), nil
	}
	if harness == Codex {
		home, err := HostHome(Codex)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "config.toml"), nil
	}
	// Claude Code keeps .claude.json in CLAUDE_CONFIG_DIR when that is set, else in the home
	// directory (beside ~/.claude, not in it)
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		return filepath.Join(abs, ".claude.json"), err
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home directory; set CLAUDE_CONFIG_DIR: %w", err)
	}
	return filepath.Join(u, ".claude.json"), nil
}

// MCPServer is a registration of reflect's server as a host's file holds it.
type MCPServer struct {
	Path    string   `json:"path"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// isReflectServer says whether command and args start reflect's server: a program whose base
// name is reflect, run with `mcp`. Another server registered under the name is not reflect's.
func isReflectServer(command string, args []string) bool {
	return isReflectProgram(command) && len(args) > 0 && args[len(args)-1] == "mcp"
}

// ForeignServerError is a server named reflect in the file that is not reflect's: install
// leaves it, and says so.
type ForeignServerError struct {
	Path, Key, Command string
}

func (e *ForeignServerError) Error() string {
	return fmt.Sprintf("%s: %s runs %q, not reflect's server; rename or remove it, then install again", e.Path, e.Key, e.Command)
}

// InstallMCP registers reflect's server (opts.Binary with MCPArgs) in opts.Path, the file
// MCPConfigPath names for opts.Harness, and creates the knowledge repository opts.Home when
// there is none (the server has nothing to serve without it).
func InstallMCP(ctx context.Context, opts Options) (*Result, error) {
	res, err := editMCP(opts, true)
	if err != nil {
		return res, err
	}
	return res, initHome(ctx, opts, res)
}

// UninstallMCP removes reflect's registration from opts.Path, and the file when install
// created it and nothing else is left.
func UninstallMCP(opts Options) (*Result, error) {
	return editMCP(opts, false)
}

func editMCP(opts Options, add bool) (*Result, error) {
	res := &Result{Harness: opts.Harness, Path: opts.Path, DryRun: opts.DryRun, Command: opts.Binary + " " + strings.Join(MCPArgs, " ")}
	var key string
	var l *loaded
	var out []byte
	var changed string
	var err error
	switch opts.Harness {
	case Claude:
		key = "mcpServers." + MCPServerName
		l, out, changed, err = editClaudeMCP(opts, add)
	case Codex:
		key = "mcp_servers." + MCPServerName
		l, out, changed, err = editCodexMCP(opts, add)
	default:
		return nil, fmt.Errorf("unknown harness %q (want claude or codex)", opts.Harness)
	}
	if err != nil {
		return nil, err
	}
	if !add && !l.exists {
		return res, nil
	}
	switch changed {
	case "added":
		res.Added = []string{key}
	case "updated":
		res.Updated = []string{key}
	case "removed":
		res.Removed = []string{key}
	case "unchanged":
		res.Unchanged = []string{key}
	}
	if changed == "" || changed == "unchanged" {
		return res, nil
	}
	remove := !add && len(bytes.TrimSpace(out)) == 0 || !add && opts.Harness == Claude && string(bytes.TrimSpace(out)) == "{}"
	remove = remove && createdByInstall(opts.Path)
	if err := commit(l, opts, res, out, remove); err != nil {
		return nil, err
	}
	if !add && !opts.DryRun {
		// reflect's server was all of reflect this file held
		if err := dropEmptyBackup(opts.Path); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ---- Claude Code: JSON

func editClaudeMCP(opts Options, add bool) (*loaded, []byte, string, error) {
	l, err := load(opts.Path)
	if err != nil {
		return nil, nil, "", err
	}
	servers := l.root.get("mcpServers")
	if servers != nil && servers.kind != kObject {
		return nil, nil, "", &SyntaxError{Path: opts.Path, Reason: `"mcpServers" is not an object`}
	}
	var cur *value
	if servers != nil {
		cur = servers.get(MCPServerName)
	}
	if cur != nil {
		cmd, args := jsonServer(cur)
		if !isReflectServer(cmd, args) {
			if !add {
				return l, nil, "", nil
			}
			return nil, nil, "", &ForeignServerError{Path: opts.Path, Key: "mcpServers." + MCPServerName, Command: cmd}
		}
		l.reflect = true // the backup keeps the file as it was before reflect
	}
	if !add {
		if cur == nil {
			return l, nil, "", nil
		}
		servers.del(MCPServerName)
		if len(servers.obj) == 0 {
			l.root.del("mcpServers")
		}
		return l, l.doc.encode(), "removed", nil
	}
	changed := "added"
	if servers == nil {
		servers = newObject()
		l.root.set("mcpServers", servers)
	}
	if cur != nil {
		if cmd, args := jsonServer(cur); cmd == opts.Binary && slices.Equal(args, MCPArgs) {
			return l, nil, "unchanged", nil
		}
		changed = "updated"
	} else {
		cur = newObject()
	}
	// keys the user added to reflect's entry (env, a timeout) stay
	cur.set("type", newString("stdio"))
	cur.set("command", newString(opts.Binary))
	args := newArray()
	for _, a := range MCPArgs {
		args.arr = append(args.arr, newString(a))
	}
	cur.set("args", args)
	servers.set(MCPServerName, cur)
	return l, l.doc.encode(), changed, nil
}

func jsonServer(v *value) (command string, args []string) {
	if v == nil || v.kind != kObject {
		return "", nil
	}
	if c := v.get("command"); c != nil && c.kind == kString {
		command = c.str
	}
	if a := v.get("args"); a != nil && a.kind == kArray {
		for _, x := range a.arr {
			if x.kind == kString {
				args = append(args, x.str)
			}
		}
	}
	return command, args
}

// ---- Codex: TOML, edited by lines

// codexTable is the header of reflect's table in Codex's config.toml.
var codexTable = "[mcp_servers." + MCPServerName + "]"

func editCodexMCP(opts Options, add bool) (*loaded, []byte, string, error) {
	l := &loaded{mode: 0o644}
	data, err := os.ReadFile(opts.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, nil, "", err
	default:
		l.data, l.exists = data, true
		if fi, err := os.Stat(opts.Path); err == nil {
			l.mode = fi.Mode().Perm()
		}
	}
	cfg, err := readCodexServers(opts.Path, data)
	if err != nil {
		return nil, nil, "", err
	}
	cur, present := cfg[MCPServerName]
	lines := splitKeep(data)
	start, end := codexBlock(lines)
	if present {
		if !isReflectServer(cur.Command, cur.Args) {
			if !add {
				return l, nil, "", nil
			}
			return nil, nil, "", &ForeignServerError{Path: opts.Path, Key: "mcp_servers." + MCPServerName, Command: cur.Command}
		}
		if start < 0 {
			return nil, nil, "", &SyntaxError{Path: opts.Path, Reason: "mcp_servers." + MCPServerName + " is not written as a " + codexTable +
				" table, which is all reflect edits; write it as one, or remove it by hand"}
		}
		l.reflect = true
	}
	if !add {
		if !present {
			return l, nil, "", nil
		}
		// the table, its subtables, and the blank line install put before it
		from := start
		if end == len(lines) {
			for from > 0 && strings.TrimSpace(lines[from-1]) == "" {
				from--
			}
			if from > 0 && !strings.HasSuffix(lines[from-1], "\n") {
				lines[from-1] += "\n"
			}
		}
		out := strings.Join(append(lines[:from:from], lines[end:]...), "")
		return l, []byte(out), "removed", nil
	}
	if present && cur.Command == opts.Binary && slices.Equal(cur.Args, MCPArgs) {
		return l, nil, "unchanged", nil
	}
	cmdLine := "command = " + tomlString(opts.Binary) + "\n"
	argsLine := "args = [" + strings.Join(mapStrings(MCPArgs, tomlString), ", ") + "]\n"
	if present {
		// rewrite the two keys in place; whatever else the user put in the table stays
		body := lines[start+1 : end]
		setKey(&body, "command", cmdLine)
		setKey(&body, "args", argsLine)
		out := strings.Join(lines[:start+1], "") + strings.Join(body, "") + strings.Join(lines[end:], "")
		return l, []byte(out), "updated", nil
	}
	var b strings.Builder
	b.Write(data)
	if len(data) > 0 {
		if !bytes.HasSuffix(data, []byte("\n")) {
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(codexTable + "\n" + cmdLine + argsLine)
	return l, []byte(b.String()), "added", nil
}

type codexServer struct {
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
}

// readCodexServers parses config.toml as Codex would, refusing a file that does not parse
// (naming its line) rather than writing into it.
func readCodexServers(path string, data []byte) (map[string]codexServer, error) {
	var cfg struct {
		Servers map[string]codexServer `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &cfg); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, &SyntaxError{Path: path, Line: row, Col: col, Reason: de.Error()}
		}
		return nil, &SyntaxError{Path: path, Reason: err.Error()}
	}
	return cfg.Servers, nil
}

// splitKeep splits data into lines that keep their line ends.
func splitKeep(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := string(data)
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out, s = append(out, s[:i+1]), s[i+1:]
	}
	return out
}

// codexBlock finds reflect's table: from its header to the next table that is not one of
// its subtables, less the blank lines and comments that lead into that next table. -1 when
// there is none.
func codexBlock(lines []string) (start, end int) {
	start = -1
	for i, ln := range lines {
		if tableName(ln) == "mcp_servers."+MCPServerName {
			start = i
			break
		}
	}
	if start < 0 {
		return -1, -1
	}
	end = len(lines)
	for i := start + 1; i < len(lines); i++ {
		name := tableName(lines[i])
		if name != "" && name != "mcp_servers."+MCPServerName && !strings.HasPrefix(name, "mcp_servers."+MCPServerName+".") {
			end = i
			break
		}
	}
	for end < len(lines) && end > start+1 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return start, end
}

// tableName is the name of the table a header line opens ("" when it opens none), with the
// spaces TOML allows around its dots and brackets taken out; a quoted "reflect" reads as reflect.
func tableName(line string) string {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "#"); i >= 0 && !strings.Contains(t[:i], `"`) {
		t = strings.TrimSpace(t[:i])
	}
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return ""
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")
	t = strings.TrimSuffix(strings.TrimPrefix(t, "["), "]") // [[array of tables]]
	parts := strings.Split(t, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// setKey replaces the line of key in body, or adds it first.
func setKey(body *[]string, key, line string) {
	for i, ln := range *body {
		k, _, ok := strings.Cut(ln, "=")
		if ok && strings.TrimSpace(k) == key {
			(*body)[i] = line
			return
		}
	}
	*body = append([]string{line}, *body...)
}

// tomlString is s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// ReadMCP returns reflect's registration in harness's file at path: nil when there is none
// (or the server named reflect is another one), an error when the file cannot be read.
func ReadMCP(harness, path string) (*MCPServer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cmd string
	var args []string
	switch harness {
	case Claude:
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, nil
		}
		doc, err := parse(path, data)
		if err != nil {
			return nil, err
		}
		s := doc.root.get("mcpServers")
		if s == nil || s.kind != kObject {
			return nil, nil
		}
		cmd, args = jsonServer(s.get(MCPServerName))
	case Codex:
		cfg, err := readCodexServers(path, data)
		if err != nil {
			return nil, err
		}
		cmd, args = cfg[MCPServerName].Command, cfg[MCPServerName].Args
	default:
		return nil, fmt.Errorf("unknown harness %q (want claude or codex)", harness)
	}
	if !isReflectServer(cmd, args) {
		return nil, nil
	}
	return &MCPServer{Path: path, Command: cmd, Args: args}, nil
}
