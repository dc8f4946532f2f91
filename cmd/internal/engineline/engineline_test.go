package engineline

import (
	"strings"
	"testing"
)

// HandsOff decides, before the tree is built, which command lines reflect-engine runs.
func TestHandsOff(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"search oauth", true},
		{"--home /m search oauth", true},
		{"--home=/m --format json -v search", true},
		{"history import --all-history", true},
		{"team add acme git@x:y.git", true},
		{"team sync --quiet", true},
		{"internal after-write", true},
		{"--home /m internal index", true},
		{"team list", false},
		{"internal fill-pool", false},
		{"add --title search --body x", false},
		{"list --project search", false},
		{"hook claude", false},
		{"version", false},
		{"", false},
		{"--home search list", false}, // --home takes a value, even one named like a command
		{"history", true},
		{"--format json history search x", true},
		{"team", false},        // the lean tree has team; only two of its commands are the engine's
		{"searching x", false}, // a word, not a prefix of one
		{"internal indexes", false},
	} {
		if got := HandsOff(strings.Fields(tt.line)); got != tt.want {
			t.Errorf("HandsOff(%q) = %v; want %v", tt.line, got, tt.want)
		}
	}
}

// Runs adds shell completion to HandsOff.
func TestRuns(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"__complete se", true},
		{"__completeNoDesc hook cl", true},
		{"completion bash", true},
		{"search x", true},
		{"version", false},
		{"add --title completion", false},
		{"", false},
	} {
		if got := Runs(strings.Fields(tt.line)); got != tt.want {
			t.Errorf("Runs(%q) = %v; want %v", tt.line, got, tt.want)
		}
	}
}
