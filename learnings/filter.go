package learnings

import (
	"slices"
	"strings"
)

// Filter picks learnings by their fields, as reflect list and reflect view offer it: an
// empty field keeps every value, and Status "all" keeps every status. Kind, confidence and
// status match in any case, as their Parse functions read them (--status Current listed
// nothing when they were compared as they were typed).
type Filter struct {
	Project, Kind, Confidence, Tag, Status string
}

// Keep says whether l passes f.
func (f Filter) Keep(l *Learning) bool {
	return (f.Project == "" || l.Project == f.Project) &&
		(f.Kind == "" || strings.EqualFold(string(l.Kind), strings.TrimSpace(f.Kind))) &&
		(f.Confidence == "" || strings.EqualFold(string(l.Confidence), strings.TrimSpace(f.Confidence))) &&
		(strings.EqualFold(strings.TrimSpace(f.Status), StatusAll) || strings.EqualFold(string(l.Status), strings.TrimSpace(f.Status))) &&
		(f.Tag == "" || slices.Contains(l.Tags, f.Tag))
}
