// Command reflect-engine runs every command of reflect, including those that need the search
// engine (bleve), sqlite or the MCP SDK, which the lean reflect hands to it. It is installed
// beside reflect; users run reflect, not this.
package main

import (
	"os"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/cmd/internal/enginecmd"
)

func main() { os.Exit(cli.Main(enginecmd.Engine{})) }
