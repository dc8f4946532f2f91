package history

import (
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// ProjectOf is the project key of a directory, as learnings name projects: from its git
// remote (so every clone and worktree of a repository shares it), local/<name> for a
// repository without a remote, learnings.Global outside git. A session's directory may be
// gone (a removed worktree, another laptop's path): then remote names the project when the
// transcript recorded one (Codex does), else the directory's name does (local/<name>, what
// a repository without a remote would give).
func ProjectOf(dir, remote string) string {
	if dir != "" {
		if key, err := workspace.ProjectKey(dir); err == nil && key != "" {
			return key
		}
	}
	if remote != "" {
		if key, err := learnings.NormalizeRemote(remote); err == nil {
			return key
		}
	}
	if dir == "" {
		return learnings.Global
	}
	name := filepath.Base(filepath.Clean(filepath.FromSlash(strings.ReplaceAll(dir, `\`, "/"))))
	if name == "" || name == "." || name == string(filepath.Separator) {
		return learnings.Global
	}
	if key, err := learnings.NormalizeRemote("/" + name); err == nil {
		return key
	}
	return learnings.Global
}
