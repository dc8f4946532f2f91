package workspace

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultBranch is the branch origin/HEAD names (what `git clone` set, or `git remote
// set-head`): the project's default branch, "" when the clone does not record it.
func (w *Workspace) DefaultBranch() string {
	if w.GitDir == "" {
		return ""
	}
	common, err := w.commonDir()
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(common, "refs", "remotes", "origin", "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/remotes/origin/")
	if !ok {
		return ""
	}
	return ref
}
