package learnings

import "slices"

// Filter picks learnings by their fields, as reflect list and reflect view offer it: an
// empty field keeps every value, and Status "all" keeps every status.
type Filter struct {
	Project, Kind, Confidence, Tag, Status string
}

// Keep says whether l passes f.
func (f Filter) Keep(l *Learning) bool {
	return (f.Project == "" || l.Project == f.Project) &&
		(f.Kind == "" || string(l.Kind) == f.Kind) &&
		(f.Confidence == "" || string(l.Confidence) == f.Confidence) &&
		(f.Status == "all" || string(l.Status) == f.Status) &&
		(f.Tag == "" || slices.Contains(l.Tags, f.Tag))
}
