package learnings

import (
	"fmt"
	"slices"
	"time"
)

// Archive retires l; it reports whether anything changed (an archived or superseded
// learning is left as it is).
func (l *Learning) Archive(now time.Time) bool {
	if l.Status != StatusCurrent {
		return false
	}
	l.Status = StatusArchived
	l.Updated = now.UTC().Truncate(time.Second)
	return true
}

// Supersede marks old as replaced by newer, and records the link on both. It reports
// whether anything changed: superseding again by the same learning changes nothing.
func Supersede(old, newer *Learning, now time.Time) (bool, error) {
	if old.Status == StatusSuperseded && old.SupersededBy == newer.ID && slices.Contains(newer.Supersedes, old.ID) {
		return false, nil
	}
	switch {
	case old.ID == newer.ID:
		return false, &FieldError{Path: old.RelPath(), Field: "superseded_by", Msg: "a learning cannot supersede itself"}
	case newer.Status != StatusCurrent:
		return false, &FieldError{Path: newer.RelPath(), Field: "status",
			Msg: fmt.Sprintf("%s is %s; only a current learning can supersede another", newer.ID, newer.Status)}
	case old.Status == StatusSuperseded && old.SupersededBy != newer.ID:
		return false, &FieldError{Path: old.RelPath(), Field: "superseded_by",
			Msg: fmt.Sprintf("%s is already superseded by %s", old.ID, old.SupersededBy)}
	}
	now = now.UTC().Truncate(time.Second)
	old.Status, old.SupersededBy, old.Updated = StatusSuperseded, newer.ID, now
	if !slices.Contains(newer.Supersedes, old.ID) {
		newer.Supersedes = append(newer.Supersedes, old.ID)
		newer.Updated = now
	}
	return true, nil
}
