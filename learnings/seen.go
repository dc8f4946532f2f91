package learnings

import (
	"slices"
	"time"
)

// Union is a learning's list field (tags, entities, triggers, files, supersedes) merged with
// another version's: a's values in their order, then those only b holds. The sync's merge,
// the drain, memory_remember and reflect view's merge all merge lists this one way.
func Union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Sighting is what a lesson seen again adds to the learning that already holds it.
type Sighting struct {
	Tags, Entities, Triggers, Files []string
}

// SeenAgain counts l seen once more at now and merges what the sighting adds to its lists;
// its text stays as it is (the drain and memory_remember both count a near-identical lesson
// this way rather than write a second learning).
func (l *Learning) SeenAgain(now time.Time, s Sighting) {
	l.Seen++
	l.Updated = now.UTC().Truncate(time.Second)
	l.Tags = Union(l.Tags, s.Tags)
	l.Entities = Union(l.Entities, s.Entities)
	l.Triggers = Union(l.Triggers, s.Triggers)
	l.Source.Files = Union(l.Source.Files, s.Files)
}
