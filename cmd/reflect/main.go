// Command reflect gives coding agents a memory their user owns, kept in a git repository.
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	// A capture allocates a few MB and exits within milliseconds; at Go's default the first
	// collection starts at 4 MB and cost ~1 ms of every capture. Eight times the headroom
	// lets short commands finish without collecting while long ones still collect in
	// proportion. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	os.Exit(Main())
}
