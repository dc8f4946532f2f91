package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/mcp"
)

func (a *app) mcpCmd() *cobra.Command {
	var cwd string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory to an agent as MCP tools over stdin and stdout",
		Long: `Serves the memory as five MCP tools (memory_search, memory_get, memory_recall,
memory_remember, history_search) to the agent that started it, over stdin and stdout.
reflect install claude --mcp or reflect install codex --mcp registers it with the host.
The default scope is the project of the directory it runs in (--cwd to choose another).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cwd == "" {
				cwd, _ = os.Getwd()
			}
			if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
				return flagErrorf("--cwd %s: not a directory", cwd)
			}
			r, err := a.repo()
			if err != nil {
				return err
			}
			// stdout carries the protocol: what goes wrong is logged to the repository's log
			// (and stderr, which hosts keep, with --verbose)
			log := slog.New(slog.NewMultiHandler(a.log.Handler(), hooks.OpenLog(r).Handler())).With("cmd", "mcp")
			s, err := mcp.New(mcp.Options{Repo: r, Cwd: cwd, Version: build().Version, Log: log})
			if err != nil {
				return err
			}
			return s.Run(cmd.Context(), &sdk.IOTransport{Reader: readCloser{a.stdin}, Writer: writeCloser{a.stdout}})
		},
	}
	cmd.Flags().StringVar(&cwd, "cwd", "", "the directory whose project is the default scope (default: this one)")
	return cmd
}

// readCloser and writeCloser let the command's streams carry the protocol: closing them is
// the process's business, not the server's.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// installMCP registers (add) or unregisters reflect's MCP server with harness.
func (a *app) installMCP(cmd *cobra.Command, harness string, project, force, dryRun, add bool) error {
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
		if opts.Home, err = a.homeDir(); err != nil {
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
	if a.json() {
		return a.printJSON(res)
	}
	switch {
	case res.DryRun && !res.Changed:
		a.printf("%s: nothing to change (dry run)\n", res.Path)
		return nil
	case res.DryRun:
		a.printf("%s(dry run: nothing written)\n", res.Diff)
		return nil
	case add && !res.Changed:
		a.printf("reflect's MCP server already registered in %s\n", res.Path)
	case add:
		a.printf("Registered reflect's MCP server in %s\n  %s\n", res.Path, res.Command)
	case !res.Changed:
		a.printf("reflect's MCP server is not registered in %s\n", res.Path)
	default:
		a.printf("Removed reflect's MCP server from %s\n", res.Path)
		if res.Deleted {
			a.printf("deleted %s (install had created it)\n", res.Path)
		}
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
