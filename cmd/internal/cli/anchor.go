package cli

import (
	"os"
	"strings"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/transcript/redact"
	"github.com/reflect-memory/reflect/workspace"
)

// anchorPaths anchors paths, files of the project in the current directory, to their
// current blobs, and returns them with the project's HEAD. A path outside the project, one
// that names no file, or one that holds a secret is a usage error; nothing is written.
func anchorPaths(r *gitstore.Repo, project string, paths []string, what string) ([]learnings.Anchor, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	ws, _ := workspace.Read(cwd, 0)
	if len(paths) == 0 {
		if ws.Project == project {
			return nil, ws.Head, nil
		}
		return nil, "", nil
	}
	if project == learnings.Global {
		return nil, "", FlagErrorf("%s: a global learning is about no project's files", what)
	}
	if ws.Root == "" {
		return nil, "", FlagErrorf("%s: %s is not in a git repository; anchors are files of the project's git tree", what, cwd)
	}
	if ws.Project != project {
		return nil, "", FlagErrorf("%s: the current directory is in project %s, not %s: run it from the project the files belong to", what, ws.Project, project)
	}
	p, err := anchor.Open(ws)
	if err != nil {
		return nil, "", err
	}
	defer p.Close()
	_ = anchor.Remember(r, ws)
	as, missing := p.Resolve(paths)
	if len(missing) > 0 {
		return nil, "", FlagErrorf("%s: %s", what, strings.Join(missing, "; "))
	}
	for _, a := range as {
		// a path is committed as it is: one that looks like a secret is refused, not cut
		if redact.String(a.Path) != a.Path {
			return nil, "", FlagErrorf("%s: %s looks like it holds a secret; it is not written to the memory", what, a.Path)
		}
	}
	return as, ws.Head, nil
}

// fillAnchors anchors the paths a person wrote alone in the anchors list of an edit (no
// "@blob") to the files as they are now in the current directory's project, which must be
// the learning's.
func fillAnchors(r *gitstore.Repo, old *learnings.Learning, edited []byte) ([]byte, error) {
	bare := learnings.BareAnchors(edited)
	if len(bare) == 0 {
		return edited, nil
	}
	as, _, err := anchorPaths(r, old.Project, bare, "anchors")
	if err != nil {
		return nil, &learnings.FieldError{Path: old.RelPath(), Field: "anchors", Msg: strings.TrimPrefix(err.Error(), "anchors: ")}
	}
	full := map[string]string{}
	for i, b := range bare {
		full[b] = as[i].String()
	}
	return learnings.FillAnchors(edited, full), nil
}
