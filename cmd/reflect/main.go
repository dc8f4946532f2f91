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
	// ... and a soft limit keeps that headroom from growing a long command's heap to nine
	// times what it holds: a provenance rebuild over 1,000 commits of a 10,000-learning
	// memory reached 1.0 GB of RSS without it (~170 MB live), 0.27 GB with it.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
	os.Exit(Main())
}
