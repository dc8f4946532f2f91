package recall

import (
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
)

// Origins says where each of ids came from, in the words an injected block uses ("written
// here", "arrived by sync, by … on …, not reviewed"), and whether another author wrote it:
// for what shows learnings outside a recall (reflect mcp's search and get), so that a
// learning someone else pushed never passes for the user's own.
func Origins(repo *gitstore.Repo, ids []string) (describe map[string]string, other map[string]bool) {
	cands := make([]Candidate, 0, len(ids))
	for _, id := range ids {
		cands = append(cands, Candidate{Hit: index.Hit{Doc: index.Doc{ID: id}}})
	}
	from := origins(repo, cands)
	describe, other = map[string]string{}, map[string]bool{}
	for _, id := range ids {
		describe[id], other[id] = from[id].describe(), from[id].Other
	}
	return describe, other
}
