//go:generate go test -run TestEngineCommands -update .

// Package enginecmd holds reflect-engine's part of the command tree (package cli owns the
// tree): the commands that need the search engine (bleve), sqlite or the MCP SDK — search,
// reindex, recall, drain, status, doctor, history, mcp, view, demo, team add and sync, and
// the index's internal commands — and the hooks' recall. Only cmd/reflect-engine links it.
package enginecmd

import (
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/hooks"
	"github.com/reflect-memory/reflect/hooks/hookengine"
)

// app is the shared App, with this package's commands as its methods.
type app struct{ *cli.App }

// Engine is reflect-engine's cli.Engine.
type Engine struct{}

// Commands adds the engine's commands to root: beside package cli's, and under its team and
// internal groups.
func (Engine) Commands(c *cli.App, root *cobra.Command) {
	a := &app{c}
	root.AddCommand(a.demoCmd(), a.searchCmd(), a.reindexCmd(), a.recallCmd(), a.drainCmd(), a.statusCmd(),
		a.doctorCmd(), a.historyCmd(), a.mcpCmd(), a.viewCmd())
	for _, c := range root.Commands() {
		switch c.Name() {
		case "team":
			c.AddCommand(a.teamAddCmd(), a.teamSyncCmd())
		case "internal":
			a.internalCmds(c)
		}
	}
}

// Hooks is the hooks' recall and opencode mirror.
func (Engine) Hooks() *hooks.Engine { return hookengine.New() }
