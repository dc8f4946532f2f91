package enginecmd

import (
	"io"
	"log/slog"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/hooks"
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
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cwd == "" {
				cwd, _ = os.Getwd()
			}
			if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
				return cli.FlagErrorf("--cwd %s: not a directory", cwd)
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			// stdout carries the protocol: what goes wrong is logged to the repository's log
			// (and stderr, which hosts keep, with --verbose)
			log := slog.New(slog.NewMultiHandler(a.Log.Handler(), hooks.OpenLog(r).Handler())).With("cmd", "mcp")
			s, err := mcp.New(mcp.Options{Repo: r, Cwd: cwd, Version: cli.Version(), Log: log})
			if err != nil {
				return err
			}
			return s.Run(cmd.Context(), &sdk.IOTransport{Reader: readCloser{a.Stdin}, Writer: writeCloser{a.Stdout}})
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
