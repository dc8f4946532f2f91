package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/install"
)

func harnessArg(cmd *cobra.Command, args []string) error {
	if all, _ := cmd.Flags().GetBool("all"); all {
		if len(args) != 0 {
			return FlagErrorf("%s --all wires every host found; name no harness with it", cmd.CommandPath())
		}
		return nil
	}
	if len(args) != 1 || !install.KnownHost(args[0]) {
		return FlagErrorf("%s needs one harness: %s (or --all)", cmd.CommandPath(), strings.Join(install.Hosts, ", "))
	}
	return nil
}

// binaryPath is the absolute path of the running reflect as the user invoked it (not resolved
// through symbolic links, so that an upgrade behind the same path keeps the hooks valid).
func binaryPath() (string, error) {
	arg0 := os.Args[0]
	if strings.ContainsAny(arg0, `/\`) {
		return filepath.Abs(arg0)
	}
	if p, err := exec.LookPath(arg0); err == nil {
		return filepath.Abs(p)
	}
	return os.Executable()
}

// configError reports a configuration file reflect refuses to change (exit 6).
// configError says that a refused configuration file was left as it was.
func (a *App) configError(err error) error {
	var se *install.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w (file left unchanged)", err)
	}
	return err
}

func (a *App) installCmd() *cobra.Command {
	var project, dryRun, statusLine, force, offline, mcpServer, all bool
	var plugin string
	cmd := &cobra.Command{
		Use:   "install claude|codex|gemini|copilot|cursor|opencode|--all [--project [--force]] [--dry-run] [--plugin DIR]",
		Short: "Wire reflect's hooks into Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor or opencode",
		Long: `Adds ` + "`reflect hook HOST`" + ` to every event reflect handles, in
$CLAUDE_CONFIG_DIR/settings.json (else ~/.claude/settings.json), $CODEX_HOME/hooks.json (else
~/.codex/hooks.json), ~/.gemini/settings.json, ~/.copilot/hooks/reflect.json or
~/.cursor/hooks.json, or writes reflect's opencode plugin ~/.config/opencode/plugins/reflect.js;
with --project in the repository's .claude/settings.json, .codex/hooks.json,
.gemini/settings.json, .github/hooks/reflect.json, .cursor/hooks.json or .opencode/plugins/
(outside a git repository only with --force). --all wires every host found on this machine
(its folder, or its command on PATH) and says which it skipped and why. Everything else in the file is kept; a backup (<file>.reflect-backup) is
written before any change; running it twice changes nothing. Creates the knowledge repository
when there is none. --plugin DIR writes a Claude Code plugin folder instead, for any machine:
its hooks run the reflect on that machine's PATH.`,
		Args: harnessArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all {
				if plugin != "" || statusLine || mcpServer {
					return FlagErrorf("--all does not go with --plugin, --statusline or --mcp")
				}
				return a.installAll(cmd, project, force, dryRun, offline)
			}
			if mcpServer {
				if plugin != "" || statusLine || offline {
					return FlagErrorf("--mcp registers the MCP server only; it does not go with --plugin, --statusline or --offline")
				}
				return a.installMCP(cmd, args[0], project, force, dryRun, true)
			}
			if plugin != "" {
				if args[0] != install.Claude {
					return FlagErrorf("--plugin writes a Claude Code plugin; use it with claude")
				}
				if project || dryRun {
					return FlagErrorf("--plugin does not go with --project or --dry-run")
				}
				res, err := install.WritePlugin(install.PluginOptions{Dir: plugin, Version: build().Version})
				if err != nil {
					return err
				}
				if a.JSON() {
					return a.PrintJSON(res)
				}
				a.Printf("Wrote the Claude Code plugin %s\n  %s\n  %s\n  %s\n  %s\n  command: %s\n", res.Dir, res.Manifest, res.Hooks, res.Launcher, res.Readme, res.Command)
				if res.Shipped {
					a.Printf("bin/reflect is the folder's own and was kept: the hooks run it.\n")
				} else {
					a.Printf("The hooks run the reflect on PATH of the machine that uses the plugin (bin/reflect finds it): install reflect there.\n")
				}
				return nil
			}
			bin, err := binaryPath()
			if err != nil {
				return fmt.Errorf("cannot find the reflect binary: %w", err)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			path, err := install.ConfigPath(args[0], project, cwd)
			if err != nil {
				return err
			}
			if project && !force && !install.InRepository(cwd) {
				return notInRepository(cwd, path)
			}
			home, err := a.HomeDir()
			if err != nil {
				return err
			}
			if statusLine && args[0] != install.Claude {
				return FlagErrorf("--statusline is Claude Code's; use it with claude")
			}
			res, err := install.Install(cmd.Context(), install.Options{
				Harness: args[0], Path: path, Binary: bin, DryRun: dryRun, Home: home, StatusLine: statusLine,
			})
			if err != nil {
				return a.configError(err)
			}
			res.Notes = append(res.Notes, hostNotes(args[0])...)
			if !dryRun {
				note, err := a.drainNote(cmd, home, offline)
				if err != nil {
					return err
				}
				res.Notes = append(res.Notes, note)
			}
			return a.report("install", res)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&project, "project", false, "install into the repository's settings instead of the user's")
	f.BoolVar(&dryRun, "dry-run", false, "print the change and write nothing")
	f.StringVar(&plugin, "plugin", "", "write a Claude Code plugin folder at `DIR` instead")
	f.BoolVar(&statusLine, "statusline", false, "also show reflect in Claude Code's status line (only if you have none)")
	f.BoolVar(&force, "force", false, "with --project: write the settings even outside a git repository")
	f.BoolVar(&offline, "offline", false, "keep every session on this machine: the drain uses the offline heuristic, never a model")
	f.BoolVar(&mcpServer, "mcp", false, "register the reflect mcp server instead of the hooks (~/.claude.json or .mcp.json; Codex's config.toml)")
	f.BoolVar(&all, "all", false, "wire every host found on this machine")
	return cmd
}

// drainNote says in one line what the drain will do with the captures, after --offline has
// set this machine's extractor to the heuristic when asked.
func (a *App) drainNote(cmd *cobra.Command, home string, offline bool) (string, error) {
	r, err := gitstore.Open(home)
	if err != nil {
		return "", err
	}
	if offline {
		if _, err := r.SetSetting(cmd.Context(), "drain.extractor", "heuristic"); err != nil {
			return "", err
		}
	}
	ext := r.Config().Drain.Extractor
	if ext == "heuristic" {
		return "drain: the offline heuristic turns captured sessions into learnings; nothing leaves this machine", nil
	}
	host := cmd.Flags().Arg(0)
	if host == "" {
		host = "--all"
	}
	return fmt.Sprintf("drain: %s; to keep every session on this machine: reflect install %s --offline", drainstate.Describe(ext), host), nil
}

func (a *App) uninstallCmd() *cobra.Command {
	var project, dryRun, mcpServer bool
	cmd := &cobra.Command{
		Use:   "uninstall claude|codex|gemini|copilot|cursor|opencode [--project] [--dry-run] [--mcp]",
		Short: "Remove reflect's hooks (or with --mcp its MCP server) from a host",
		Long: `Removes only reflect's own hook entries (and the groups and events they leave empty);
everything else in the file stays as it was. A backup is written before any change.`,
		Args: harnessArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if mcpServer {
				return a.installMCP(cmd, args[0], project, true, dryRun, false)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			path, err := install.ConfigPath(args[0], project, cwd)
			if err != nil {
				return err
			}
			res, err := install.Uninstall(install.Options{Harness: args[0], Path: path, DryRun: dryRun})
			if err != nil {
				return a.configError(err)
			}
			return a.report("uninstall", res)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&project, "project", false, "uninstall from the repository's settings instead of the user's")
	f.BoolVar(&dryRun, "dry-run", false, "print the change and write nothing")
	f.BoolVar(&mcpServer, "mcp", false, "remove the reflect mcp server's registration instead of the hooks")
	return cmd
}

func (a *App) report(verb string, res *install.Result) error {
	if a.JSON() {
		return a.PrintJSON(res)
	}
	if res.DryRun {
		if !res.Changed {
			a.Printf("%s: nothing to change (dry run)\n", res.Path)
			return nil
		}
		a.Printf("%s", res.Diff)
		a.Printf("(dry run: nothing written)\n")
		return nil
	}
	list := func(what string, evs []string) {
		if len(evs) > 0 {
			a.Printf("%s %s\n", what, strings.Join(evs, ", "))
		}
	}
	switch {
	case verb == "install" && !res.Changed:
		a.Printf("reflect hooks already installed in %s\n", res.Path)
	case verb == "install":
		a.Printf("Installed reflect hooks in %s\n", res.Path)
		list("added", res.Added)
		list("updated", res.Updated)
	case !res.Changed:
		a.Printf("no reflect hooks in %s\n", res.Path)
	default:
		a.Printf("Removed reflect hooks from %s\n", res.Path)
		list("removed", res.Removed)
		if res.Deleted {
			a.Printf("deleted %s (install had created it)\n", res.Path)
		}
	}
	switch res.StatusLine {
	case "added":
		a.Printf("status line: reflect statusline\n")
	case "removed":
		a.Printf("status line removed\n")
	}
	a.reportTail(res)
	return nil
}

// reportTail prints what every install or uninstall may add: the backup, the repository it
// initialised, the notes.
func (a *App) reportTail(res *install.Result) {
	if res.Backup != "" {
		a.Printf("backup: %s\n", res.Backup)
	}
	if res.HomeCreated {
		a.Printf("Initialised reflect repository at %s\n", res.Home)
	}
	for _, n := range res.Notes {
		a.Printf("%s\n", n)
	}
}

// notInRepository refuses --project outside a git repository, where no project would
// share the file at path.
func notInRepository(cwd, path string) error {
	return FlagErrorf("--project: %s is in no git repository, so no project would share %s; run it in your project's repository, or add --force to write it here anyway", cwd, path)
}

// hostNotes is what the user must know after installing into host.
func hostNotes(host string) []string {
	switch host {
	case install.Codex:
		if codexHome, err := install.HostHome(install.Codex); err == nil {
			return install.CodexNotes(codexHome)
		}
	case install.Gemini:
		return []string{"Gemini CLI runs project hooks only in a trusted folder, and asks once before it runs new ones."}
	case install.Copilot:
		return []string{"Copilot CLI injects context only at a session start (1.0.11 or later); a prompt still commits remember: notes and corrections."}
	case install.Cursor:
		return []string{"Cursor reloads hooks.json on save; Settings → Hooks shows reflect's runs."}
	case install.Opencode:
		return []string{"opencode loads the plugin when it starts: restart it."}
	}
	return nil
}

// allResult is what `install --all` did, host by host.
type allResult struct {
	Installed []*install.Result `json:"installed"`
	Skipped   []skippedHost     `json:"skipped"`
	Notes     []string          `json:"notes,omitempty"`
}

type skippedHost struct {
	Harness string `json:"harness"`
	Reason  string `json:"reason"`
}

// installAll wires every host found here and says which it skipped and why.
func (a *App) installAll(cmd *cobra.Command, project, force, dryRun, offline bool) error {
	bin, err := binaryPath()
	if err != nil {
		return fmt.Errorf("cannot find the reflect binary: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if project && !force && !install.InRepository(cwd) {
		return FlagErrorf("--project: %s is in no git repository; run it in your project's repository, or add --force", cwd)
	}
	home, err := a.HomeDir()
	if err != nil {
		return err
	}
	out := allResult{Installed: []*install.Result{}, Skipped: []skippedHost{}}
	for _, host := range install.Hosts {
		found, _ := install.Present(host)
		if !found {
			hh, _ := install.HostHome(host)
			out.Skipped = append(out.Skipped, skippedHost{host, fmt.Sprintf("%s is not installed here: no %s, no %s on PATH",
				install.HostName(host), hh, strings.Join(install.HostBinaries(host), " or "))})
			continue
		}
		path, err := install.ConfigPath(host, project, cwd)
		if err != nil {
			out.Skipped = append(out.Skipped, skippedHost{host, err.Error()})
			continue
		}
		res, err := install.Install(cmd.Context(), install.Options{Harness: host, Path: path, Binary: bin, DryRun: dryRun, Home: home})
		if err != nil {
			out.Skipped = append(out.Skipped, skippedHost{host, a.configError(err).Error()})
			continue
		}
		res.Notes = append(res.Notes, hostNotes(host)...)
		out.Installed = append(out.Installed, res)
	}
	if !dryRun && len(out.Installed) > 0 {
		note, err := a.drainNote(cmd, home, offline)
		if err != nil {
			return err
		}
		out.Notes = append(out.Notes, note)
	}
	if a.JSON() {
		if err := a.PrintJSON(out); err != nil {
			return err
		}
	} else {
		for _, res := range out.Installed {
			a.Printf("%s: ", install.HostName(res.Harness))
			if err := a.report("install", res); err != nil {
				return err
			}
		}
		for _, s := range out.Skipped {
			a.Printf("skipped %s: %s\n", s.Harness, s.Reason)
		}
		for _, n := range out.Notes {
			a.Printf("%s\n", n)
		}
	}
	if len(out.Installed) == 0 {
		return fmt.Errorf("no host found to install into (%d skipped)", len(out.Skipped))
	}
	return nil
}

// installMCP registers (add) or unregisters reflect's MCP server with harness.
func (a *App) installMCP(cmd *cobra.Command, harness string, project, force, dryRun, add bool) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	path, err := install.MCPConfigPath(harness, project, cwd)
	if err != nil {
		return err
	}
	opts := install.Options{Harness: harness, Path: path, DryRun: dryRun}
	var res *install.Result
	if add {
		if project && !force && !install.InRepository(cwd) {
			return notInRepository(cwd, path)
		}
		if opts.Binary, err = binaryPath(); err != nil {
			return fmt.Errorf("cannot find the reflect binary: %w", err)
		}
		if opts.Home, err = a.HomeDir(); err != nil {
			return err
		}
		res, err = install.InstallMCP(cmd.Context(), opts)
	} else {
		res, err = install.UninstallMCP(opts)
	}
	if err != nil {
		return a.configError(err)
	}
	if add && !dryRun && res.Changed && project {
		if harness == install.Claude {
			res.Notes = append(res.Notes, "Claude Code asks once whether to use the servers a project's .mcp.json names: approve reflect.")
		} else {
			res.Notes = append(res.Notes, "Codex reads a project's .codex/config.toml only once you trust the project.")
		}
	}
	if add && !dryRun && res.Changed {
		res.Notes = append(res.Notes, "Restart "+install.HostName(harness)+" to load the server; /mcp lists its tools.")
	}
	if a.JSON() {
		return a.PrintJSON(res)
	}
	switch {
	case res.DryRun && !res.Changed:
		a.Printf("%s: nothing to change (dry run)\n", res.Path)
		return nil
	case res.DryRun:
		a.Printf("%s(dry run: nothing written)\n", res.Diff)
		return nil
	case add && !res.Changed:
		a.Printf("reflect's MCP server already registered in %s\n", res.Path)
	case add:
		a.Printf("Registered reflect's MCP server in %s\n  %s\n", res.Path, res.Command)
	case !res.Changed:
		a.Printf("reflect's MCP server is not registered in %s\n", res.Path)
	default:
		a.Printf("Removed reflect's MCP server from %s\n", res.Path)
		if res.Deleted {
			a.Printf("deleted %s (install had created it)\n", res.Path)
		}
	}
	a.reportTail(res)
	return nil
}
