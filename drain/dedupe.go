package drain

// SameLesson reports whether a lesson titled title, with body, is a near-identical sighting of
// an existing learning (oldTitle, oldBody): their analyzed titles share at least 80% of their
// words and the new one says nothing of substance the old one does not (no value, path, flag,
// tool or negation it lacks). It is the rule the drain merges a proposal by, for whatever
// else writes learnings (reflect mcp's memory_remember); why names the differences when the
// titles match but the substance does not.
func SameLesson(oldTitle, oldBody, title, body string) (same bool, why string) {
	if !sameLesson(oldTitle, title) {
		return false, ""
	}
	return sameSubstance(lesson{Title: oldTitle, Body: oldBody}, lesson{Title: title, Body: body})
}
