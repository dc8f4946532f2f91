package learnings

import "testing"

func TestFilterKeep(t *testing.T) {
	l := &Learning{Project: "github.com/o/r", Kind: KindFix, Confidence: ConfidenceHigh, Status: StatusCurrent, Tags: []string{"go", "ci"}}
	for _, tc := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"all statuses, nothing else", Filter{Status: "all"}, true},
		{"every field matches", Filter{Project: "github.com/o/r", Kind: "fix", Confidence: "high", Tag: "ci", Status: "current"}, true},
		{"other project", Filter{Project: "_global", Status: "all"}, false},
		{"other kind", Filter{Kind: "rule", Status: "all"}, false},
		{"other confidence", Filter{Confidence: "low", Status: "all"}, false},
		{"tag it lacks", Filter{Tag: "rust", Status: "all"}, false},
		{"other status", Filter{Status: "archived"}, false},
		{"empty status is no status", Filter{}, false},
	} {
		if got := tc.f.Keep(l); got != tc.want {
			t.Errorf("%s: Keep = %v, want %v", tc.name, got, tc.want)
		}
	}
}
