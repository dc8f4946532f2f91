package learnings

import (
	"slices"
	"testing"
)

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
		{"any case", Filter{Kind: "Fix", Confidence: "HIGH", Status: "Current"}, true},
		{"all in any case", Filter{Status: "ALL"}, true},
	} {
		if got := tc.f.Keep(l); got != tc.want {
			t.Errorf("%s: Keep = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseStatusFilter(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []Status
		wantErr string
	}{
		{"current", []Status{StatusCurrent}, ""},
		{" Archived ", []Status{StatusArchived}, ""},
		{"ALL", AllStatuses(), ""},
		{"all", AllStatuses(), ""},
		{"retired", nil, `unknown status "retired": must be one of current, archived, superseded or all`},
		{"", nil, `unknown status "": must be one of current, archived, superseded or all`},
	} {
		got, err := ParseStatusFilter(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseStatusFilter(%q) error = %v, want %s", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseStatusFilter(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
