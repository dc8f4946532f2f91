package drain

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
)

// Local state of the drain, under .git/reflect (never committed, this machine only).
const (
	pauseFile     = "drain/paused.json"
	lastDrainFile = "drain/last.json"
	usageDir      = "usage/"
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

func setPause(r *gitstore.Repo, p Pause) error {
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

func addUsage(r *gitstore.Repo, t time.Time, add Usage) error {
	u := UsageOn(r, t)
	u.Calls += add.Calls
	u.InputTokens += add.InputTokens
	data, _ := json.Marshal(u)
	return r.WriteState(usageDir+u.Day+".json", data)
}

// LastDrain reads what the last drain on this machine did (nil when none ran).
func LastDrain(r *gitstore.Repo) *Report {
	data, err := r.ReadState(lastDrainFile)
	if err != nil || len(data) == 0 {
		return nil
	}
	var rep Report
	if json.Unmarshal(data, &rep) != nil {
		return nil
	}
	return &rep
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
