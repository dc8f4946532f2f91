package hooks

import (
	"context"
	"strings"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
)

// rememberedAgain counts a `remember: …` note seen again when it is already a current
// learning of the project (or a global one): the same title and the same note, once case
// and spacing are set aside. The same prompt sent three times made three learnings, and a
// hostile run had built up 66. The candidates are found by their exact title
// (learnings.FindByTitle), never through the search index, which a hook does not open. A
// learning another author wrote and nobody reviewed (provenance.Unreviewed) is not counted:
// the commit would be this user's, so the note is written as a learning of the user's own.
// It reports whether it counted one; a failure to look is logged and the note written.
func (e *event) rememberedAgain(ctx context.Context, title, note string) (bool, error) {
	found, err := learnings.FindByTitle(e.repo, e.project(), title)
	if err != nil {
		e.log.Warn("look for the remembered note among the learnings", "err", err)
		return false, nil
	}
	for _, old := range found {
		if !learnings.SameText(rememberedNote(old.Body), note) || provenance.Unreviewed(e.repo, old.ID) {
			continue
		}
		_, _, err := learnings.Change(ctx, e.repo, []string{old.ID}, func(ls []*learnings.Learning) (string, error) {
			ls[0].SeenAgain(e.now, learnings.Sighting{})
			return "learn: " + ls[0].Title + " (seen again, remember in " + queue.Short(e.SessionID) + ")", nil
		})
		if err != nil {
			return false, err
		}
		e.report.Learned = old.ID
		return true, nil
	}
	return false, nil
}

// rememberedNote is the note a remember learning's body holds: the body less the line that
// says where it was captured (onPrompt's e.said()), which names a session and a day.
func rememberedNote(body string) string {
	body = strings.TrimSpace(body)
	if i := strings.LastIndex(body, "\n\n_Captured from "); i >= 0 {
		body = body[:i]
	}
	return body
}
