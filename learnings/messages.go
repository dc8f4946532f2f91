package learnings

import "fmt"

// ArchiveMessage is the commit message of archiving l (reflect archive, and the viewer).
func ArchiveMessage(l *Learning, reason string) string {
	msg := "archive: " + l.ID + " " + l.Title
	if reason != "" {
		msg += "\n\nReason: " + reason
	}
	return msg
}

// SupersedeMessage is the commit message of marking old as replaced by newer.
func SupersedeMessage(old, newer *Learning) string {
	return fmt.Sprintf("supersede: %s by %s\n\n%s\n→ %s", old.ID, newer.ID, old.Title, newer.Title)
}
