package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/drain"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/install"
)

func harnessArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 || (args[0] != install.Claude && args[0] != install.Codex) {
		return flagErrorf("%s needs one harness: claude or codex", cmd.CommandPath())
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
func (a *app) configError(err error) error {
	var se *install.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w (file left unchanged)", err)
	}
	return err
}

func (a *app) installCmd() *cobra.Command {
	var project, dryRun, statusLine, force, offline bool
	var plugin string
	cmd := &cobra.Command{
		Use:   "install claude|codex [--project [--force]] [--dry-run] [--plugin DIR]",
		Short: "Wire reflect's hooks into Claude Code or Codex",
		Long: `Adds ` + "`reflect hook claude|codex`" + ` to every event reflect handles, in
$CLAUDE_CONFIG_DIR/settings.json (else ~/.claude/settings.json) or $CODEX_HOME/hooks.json (else
~/.codex/hooks.json); with --project in the repository's .claude/settings.json or
.codex/hooks.json (outside a git repository only with --force). Everything else in the file is kept; a backup (<file>.reflect-backup) is
written before any change; running it twice changes nothing. Creates the knowledge repository
when there is none. --plugin DIR writes a Claude Code plugin folder instead, for any machine:
its hooks run the reflect on that machine's PATH.`,
		Args: harnessArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if plugin != "" {
				if args[0] != install.Claude {
					return flagErrorf("--plugin writes a Claude Code plugin; use it with claude")
				}
				if project || dryRun {
					return flagErrorf("--plugin does not go with --project or --dry-run")
				}
				res, err := install.WritePlugin(install.PluginOptions{Dir: plugin, Version: build().Version})
				if err != nil {
					return err
				}
				if a.json() {
					return a.printJSON(res)
				}
				a.printf("Wrote the Claude Code plugin %s\n  %s\n  %s\n  %s\n  %s\n  command: %s\n", res.Dir, res.Manifest, res.Hooks, res.Launcher, res.Readme, res.Command)
				if res.Shipped {
					a.printf("bin/reflect is the folder's own and was kept: the hooks run it.\n")
				} else {
					a.printf("The hooks run the reflect on PATH of the machine that uses the plugin (bin/reflect finds it): install reflect there.\n")
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
				return flagErrorf("--project: %s is in no git repository, so no project would share %s; run it in your project's repository, or add --force to write it here anyway", cwd, path)
			}
			home, err := a.homeDir()
			if err != nil {
				return err
			}
			if statusLine && args[0] != install.Claude {
				return flagErrorf("--statusline is Claude Code's; use it with claude")
			}
			res, err := install.Install(cmd.Context(), install.Options{
				Harness: args[0], Path: path, Binary: bin, DryRun: dryRun, Home: home, StatusLine: statusLine,
			})
			if err != nil {
				return a.configError(err)
			}
			if args[0] == install.Codex {
				codexHome, err := install.HostHome(install.Codex)
				if err == nil {
					res.Notes = install.CodexNotes(codexHome)
				}
			}
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
	return cmd
}

// drainNote says in one line what the drain will do with the captures, after --offline has
// set this machine's extractor to the heuristic when asked.
func (a *app) drainNote(cmd *cobra.Command, home string, offline bool) (string, error) {
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
	return fmt.Sprintf("drain: %s; to keep every session on this machine: reflect install %s --offline", drain.Describe(ext), cmd.Flags().Arg(0)), nil
}

func (a *app) uninstallCmd() *cobra.Command {
	var project, dryRun bool
	cmd := &cobra.Command{
		Use:   "uninstall claude|codex [--project] [--dry-run]",
		Short: "Remove reflect's hooks from Claude Code or Codex",
		Long: `Removes only reflect's own hook entries (and the groups and events they leave empty);
everything else in the file stays as it was. A backup is written before any change.`,
		Args: harnessArg,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
}

func (a *app) report(verb string, res *install.Result) error {
	if a.json() {
		return a.printJSON(res)
	}
	if res.DryRun {
		if !res.Changed {
			a.printf("%s: nothing to change (dry run)\n", res.Path)
			return nil
		}
		a.printf("%s", res.Diff)
		a.printf("(dry run: nothing written)\n")
		return nil
	}
	list := func(what string, evs []string) {
		if len(evs) > 0 {
			a.printf("%s %s\n", what, strings.Join(evs, ", "))
		}
	}
	switch {
	case verb == "install" && !res.Changed:
		a.printf("reflect hooks already installed in %s\n", res.Path)
	case verb == "install":
		a.printf("Installed reflect hooks in %s\n", res.Path)
		list("added", res.Added)
		list("updated", res.Updated)
	case !res.Changed:
		a.printf("no reflect hooks in %s\n", res.Path)
	default:
		a.printf("Removed reflect hooks from %s\n", res.Path)
		list("removed", res.Removed)
		if res.Deleted {
			a.printf("deleted %s (install had created it)\n", res.Path)
		}
	}
	switch res.StatusLine {
	case "added":
		a.printf("status line: reflect statusline\n")
	case "removed":
		a.printf("status line removed\n")
	}
	if res.Backup != "" {
		a.printf("backup: %s\n", res.Backup)
	}
	if res.HomeCreated {
		a.printf("Initialised reflect repository at %s\n", res.Home)
	}
	for _, n := range res.Notes {
		a.printf("%s\n", n)
	}
	return nil
}
