package drain

import "strings"

// IsDrainCommit says whether a commit subject is one a drain wrote (commitMessage): "drain:
// …", or "learn: TITLE (from HARNESS session ID, EXTRACTOR)" when an entry made one learning.
// A manual add ("learn: … (manual)") or a hook's correction ("learn: … (correction in …)")
// is not.
func IsDrainCommit(subject string) bool {
	return strings.HasPrefix(subject, "drain: ") ||
		strings.HasPrefix(subject, "learn: ") && strings.HasSuffix(subject, ")") && strings.Contains(subject, " (from ")
}

// DrainedLearnings is how many new learnings a drain commit's subject says it made: one for
// "learn:", N for "drain: N new, …", none otherwise.
func DrainedLearnings(subject string) int {
	switch {
	case !IsDrainCommit(subject):
		return 0
	case strings.HasPrefix(subject, "learn: "):
		return 1
	}
	var n int
	for _, c := range strings.TrimPrefix(subject, "drain: ") {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
