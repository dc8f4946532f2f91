package learnings

import (
	"slices"
	"testing"
	"time"
)

func TestUnion(t *testing.T) {
	for _, tc := range []struct{ a, b, want []string }{
		{nil, nil, nil},
		{[]string{"go"}, nil, []string{"go"}},
		{nil, []string{"ci"}, []string{"ci"}},
		{[]string{"go", "ci"}, []string{"ci", "docker", "go", "make"}, []string{"go", "ci", "docker", "make"}},
	} {
		got := Union(tc.a, tc.b)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Union(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if len(tc.a) > 0 && len(got) > len(tc.a) && &got[0] == &tc.a[0] {
			t.Errorf("Union(%v, %v) wrote into a's array", tc.a, tc.b)
		}
	}
}

func TestSeenAgain(t *testing.T) {
	l := &Learning{Seen: 2, Tags: []string{"go"}, Triggers: []string{"go test"}, Source: Source{Files: []string{"a.go"}}}
	now := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	l.SeenAgain(now, Sighting{Tags: []string{"ci", "go"}, Entities: []string{"GOFLAGS"}, Files: []string{"b.go"}})
	if l.Seen != 3 || !l.Updated.Equal(now.Truncate(time.Second)) || l.Updated.Location() != time.UTC {
		t.Errorf("seen %d, updated %v", l.Seen, l.Updated)
	}
	if !slices.Equal(l.Tags, []string{"go", "ci"}) || !slices.Equal(l.Entities, []string{"GOFLAGS"}) ||
		!slices.Equal(l.Triggers, []string{"go test"}) || !slices.Equal(l.Source.Files, []string{"a.go", "b.go"}) {
		t.Errorf("lists: %v %v %v %v", l.Tags, l.Entities, l.Triggers, l.Source.Files)
	}
}
