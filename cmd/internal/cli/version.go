package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set by the release build: -ldflags "-X github.com/reflect-memory/reflect/cmd/internal/cli.version=…"
// (and .commit, .date), for reflect and reflect-engine alike (.goreleaser.yaml).
var (
	version = ""
	commit  = ""
	date    = ""
)

type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Date    string `json:"date,omitempty"`
	Go      string `json:"go"`
}

// build reports the stamped version, else what the Go toolchain recorded (the module version
// for `go install …@v1.2.3`, the VCS revision for a build from a checkout).
func build() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "(devel)"
	}
	return b
}

func (a *App) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print reflect's version",
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := build()
			if a.JSON() {
				return a.PrintJSON(b)
			}
			a.Printf("reflect %s", b.Version)
			if b.Commit != "" {
				a.Printf(" (%s)", b.Commit)
			}
			a.Printf(" %s\n", b.Go)
			return nil
		},
	}
}

// Version is this build's version, as reflect version prints it.
func Version() string { return build().Version }
