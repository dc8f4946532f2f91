package cli

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/hooks"
)

func (a *App) statuslineCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "statusline",
		Short: "Print a status-line fragment for Claude Code (🧠 3 recalled · 1 queued)",
		Long: `Reads the JSON Claude Code sends a status-line command on stdin (it works without any)
and prints one short line: what reflect recalled for this session and how many captured
sessions wait for the drain. It never fails: without a repository it says so in the line.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var in struct {
				SessionID string `json:"session_id"`
			}
			if data, err := readPiped(a.Stdin, 1<<20); err == nil && len(data) > 0 {
				json.Unmarshal(data, &in) // anything unreadable: no session filter
			}
			home, err := a.HomeDir()
			var r *gitstore.Repo
			if err == nil {
				r, err = gitstore.Open(home)
			}
			if err != nil {
				if a.JSON() {
					return a.PrintJSON(map[string]string{"error": "reflect is not set up: run reflect init"})
				}
				a.Printf("🧠 off (reflect init)\n")
				return nil
			}
			st := hooks.ReadStatus(r, in.SessionID)
			st.LLMCalls, st.LLMCap = drainstate.UsageOn(r, time.Now()).Calls, r.Config().Drain.MaxCallsPerDay
			if a.JSON() {
				return a.PrintJSON(st)
			}
			a.Printf("%s\n", st.Line())
			return nil
		},
	}
}

// readPiped reads stdin only when it is not a terminal, so a person running the command by
// hand is not left waiting for input.
func readPiped(in io.Reader, limit int64) ([]byte, error) {
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(in, limit))
}
