// Command reflect gives coding agents a memory their user owns, kept in a git repository.
//
// This is the lean executable every hook and most commands start: it does not link the search
// engine (bleve), sqlite or the MCP SDK, and hands the commands that need them to
// reflect-engine, installed beside it (package cli, docs/ARCHITECTURE.md); on Linux, package
// earlyexec does so before the packages of this one have initialised.
package main

import (
	"os"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	_ "github.com/reflect-memory/reflect/cmd/internal/earlyexec" // hands reflect-engine its command lines before the rest initialises
)

func main() { os.Exit(cli.Main(nil)) }
