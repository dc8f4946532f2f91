// Package drainstate owns the drain's state on this machine that commands read without
// running a drain (it imports no search engine, so the lean reflect links it): the pause LLM
// draining is under, each day's LLM usage measured against the daily caps, and what
// drain.extractor "auto" runs here.
package drainstate

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
)

// Local state of the drain, under .git/reflect (never committed, this machine only).
const (
	pauseFile = "drain/paused.json"
	usageDir  = "usage/"
)

// Pause says why LLM draining stopped; `reflect queue retry` clears it.
type Pause struct {
	Since     time.Time `json:"since"`
	Extractor string    `json:"extractor"`
	Reason    string    `json:"reason"`
}

// Paused returns the pause in force, or nil.
func Paused(r *gitstore.Repo) *Pause {
	data, err := r.ReadState(pauseFile)
	if err != nil || len(data) == 0 {
		return nil
	}
	var p Pause
	if json.Unmarshal(data, &p) != nil || p.Reason == "" {
		return nil
	}
	return &p
}

// SetPause pauses LLM draining for p.Reason.
func SetPause(r *gitstore.Repo, p Pause) error {
	data, _ := json.Marshal(p)
	return r.WriteState(pauseFile, data)
}

// Resume lifts a pause; it reports whether there was one.
func Resume(r *gitstore.Repo) (bool, error) {
	if Paused(r) == nil {
		return false, nil
	}
	return true, r.WriteState(pauseFile, nil)
}

// DayUsage is what LLM extraction used on one day (this machine).
type DayUsage struct {
	Day         string `json:"day"` // 2006-01-02, local time
	Calls       int    `json:"calls"`
	InputTokens int    `json:"input_tokens"`
}

// UsageOn reads the usage of the day of t.
func UsageOn(r *gitstore.Repo, t time.Time) DayUsage {
	day := t.Format("2006-01-02")
	u := DayUsage{Day: day}
	if data, err := r.ReadState(usageDir + day + ".json"); err == nil && len(data) > 0 {
		json.Unmarshal(data, &u)
		u.Day = day
	}
	return u
}

// AddUsage adds calls and input tokens to the usage of the day of t.
func AddUsage(r *gitstore.Repo, t time.Time, calls, inputTokens int) error {
	u := UsageOn(r, t)
	u.Calls += calls
	u.InputTokens += inputTokens
	data, _ := json.Marshal(u)
	return r.WriteState(usageDir+u.Day+".json", data)
}

// A Cap is one daily limit on LLM use (drain.max_calls_per_day, drain.max_tokens_per_day)
// and how much of it a day used. Max 0 is no limit.
type Cap struct {
	Key  string `json:"key"`  // the setting
	What string `json:"what"` // "LLM calls", "input tokens"
	Used int    `json:"used"`
	Max  int    `json:"max"`
}

// Caps measures a day's usage against cfg's caps.
func Caps(cfg config.Drain, u DayUsage) []Cap {
	return []Cap{
		{Key: "drain.max_calls_per_day", What: "LLM calls", Used: u.Calls, Max: cfg.MaxCallsPerDay},
		{Key: "drain.max_tokens_per_day", What: "input tokens", Used: u.InputTokens, Max: cfg.MaxTokensPerDay},
	}
}

// Reached: LLM draining waits for tomorrow.
func (c Cap) Reached() bool { return c.Max > 0 && c.Used >= c.Max }

// Near: at 80% of the cap or more.
func (c Cap) Near() bool { return c.Max > 0 && c.Used*100 >= c.Max*80 }

// MaxText is the cap as a person reads it.
func (c Cap) MaxText() string {
	if c.Max == 0 {
		return "no cap"
	}
	return fmt.Sprint(c.Max)
}

// CapReached says which cap of cfg the day's usage reached, or "".
func CapReached(cfg config.Drain, u DayUsage) string {
	for _, c := range Caps(cfg, u) {
		if c.Reached() {
			approx := ""
			if c.What == "input tokens" {
				approx = "~"
			}
			return fmt.Sprintf("%s%d of %d %s today (%s)", approx, c.Used, c.Max, c.What, c.Key)
		}
	}
	return ""
}

// AutoCLI is the host CLI drain.extractor "auto" runs for a capture of harness: the host's own
// ("claude" for Claude Code's, "codex" for Codex's) when it is on PATH (lookPath), the other
// one when only that one is, else "" (the heuristic drains).
func AutoCLI(harness string, lookPath func(string) (string, error)) string {
	order := []string{"claude", "codex"}
	if harness == "codex" {
		order = []string{"codex", "claude"}
	}
	for _, name := range order {
		if _, err := lookPath(name); err == nil {
			return name
		}
	}
	return ""
}

// Describe says in one line what the drain will do with extractor name on this machine: for
// auto, which CLI it will run for each host's captures, or that the heuristic drains.
func Describe(name string) string {
	if name != "auto" {
		return name
	}
	claude, codex := AutoCLI("claude-code", exec.LookPath), AutoCLI("codex", exec.LookPath)
	switch {
	case claude == "":
		return "auto: claude -p for Claude Code sessions, codex exec for Codex ones; neither is on PATH here, so the heuristic drains (offline: reflect config set drain.extractor heuristic)"
	case claude == codex:
		return fmt.Sprintf("auto: %s for every session (the only one on PATH), within the daily caps, else the heuristic (offline: reflect config set drain.extractor heuristic)", cliOf(claude))
	}
	return "auto: claude -p for Claude Code sessions, codex exec for Codex ones, within the daily caps, else the heuristic (offline: reflect config set drain.extractor heuristic)"
}

func cliOf(name string) string {
	if name == "codex" {
		return "codex exec"
	}
	return "claude -p"
}
