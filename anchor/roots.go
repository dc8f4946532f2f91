package anchor

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// rootsState is the local record of where each project's work tree is on this machine:
// the drain anchors a session's files in its project's repository, and a queue entry names
// only the project key (a directory of one machine means nothing on another, and one
// written by a remote must not choose where reflect reads). Never committed.
const rootsState = "state/roots.json"

// maxRoots bounds the record; the projects seen longest ago go first.
const maxRoots = 200

type roots struct {
	Projects map[string]string `json:"projects"` // project key → work tree root
	Order    []string          `json:"order"`    // keys, most recently seen last
}

func readRoots(r *gitstore.Repo) roots {
	var rs roots
	if data, err := r.ReadState(rootsState); err == nil && data != nil {
		_ = json.Unmarshal(data, &rs) // a damaged record is a new one
	}
	if rs.Projects == nil {
		rs.Projects = map[string]string{}
	}
	return rs
}

// Remember records that ws's project lives at its work tree, and was seen last. It writes
// only when that is news: a recall calls it on every session start and the record is read
// far more often than it changes.
func Remember(r *gitstore.Repo, ws workspace.Workspace) error {
	if ws.Root == "" || ws.Project == learnings.Global {
		return nil
	}
	rs := readRoots(r)
	if rs.Projects[ws.Project] == ws.Root && len(rs.Order) > 0 && rs.Order[len(rs.Order)-1] == ws.Project {
		return nil
	}
	rs.Projects[ws.Project] = ws.Root
	order := rs.Order[:0]
	for _, k := range rs.Order {
		if k != ws.Project {
			order = append(order, k)
		}
	}
	rs.Order = append(order, ws.Project)
	for len(rs.Order) > maxRoots {
		delete(rs.Projects, rs.Order[0])
		rs.Order = rs.Order[1:]
	}
	data, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return err
	}
	// without WriteState's fsyncs: a session start writes it when the project's checkout is
	// not the one it last saw (two worktrees of one repository, taken in turn) or another
	// project was seen last (two projects taken in turn), and there the
	// durable write was 0.8 ms of the hook's 5–6 ms in bench -recall, which alternates two
	// checkouts of one project. A crash may lose it; the next session start in each project
	// writes it again, and until then the learnings the drain writes of that project get no
	// anchors (drain.openProject) and doctor and the viewer check none of its anchors.
	return r.WriteVolatileState(rootsState, data)
}

// Find returns the workspace of project on this machine: the directory Remember recorded
// (or dir, when it is in the project), read again and checked to still be that project.
func Find(r *gitstore.Repo, project, dir string) (workspace.Workspace, bool) {
	return findIn(readRoots(r), project, dir)
}

// findIn is Find in the roots record rs.
func findIn(rs roots, project, dir string) (workspace.Workspace, bool) {
	var tries []string
	if dir != "" {
		tries = append(tries, dir)
	}
	if root := rs.Projects[project]; root != "" && filepath.IsAbs(root) {
		tries = append(tries, root)
	}
	for _, d := range tries {
		if ws, err := workspace.Read(d, 0); err == nil && ws.Root != "" && ws.Project == project {
			return ws, true
		}
	}
	return workspace.Workspace{}, false
}

// Latest returns the work tree of the project seen last (Remember), read again and checked
// to still be that project.
func Latest(r *gitstore.Repo) (workspace.Workspace, bool) {
	rs := readRoots(r)
	if len(rs.Order) == 0 {
		return workspace.Workspace{}, false
	}
	return findIn(rs, rs.Order[len(rs.Order)-1], "")
}

// Projects lists the projects this machine knows the work tree of, sorted.
func Projects(r *gitstore.Repo) []string {
	var out []string
	for k := range readRoots(r).Projects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
