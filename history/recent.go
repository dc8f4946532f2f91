package history

import (
	"context"
	"errors"
	"os"
	"sort"
)

// Recent returns the latest sessions, newest first: of project unless global, at most limit.
func (a *Archive) Recent(ctx context.Context, project string, global bool, limit int) ([]Session, error) {
	if _, err := os.Stat(a.statePath()); errors.Is(err, os.ErrNotExist) {
		return nil, ErrEmpty
	}
	st, err := a.loadState() // the catalog has no prompts
	if err != nil {
		return nil, err
	}
	out := []Session{}
	for _, s := range st.Sessions {
		if global || s.Project == project {
			out = append(out, *s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].Key < out[j].Key
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, ctx.Err()
}
