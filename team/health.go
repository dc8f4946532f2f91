package team

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/shellquote"
	"github.com/reflect-memory/reflect/learnings"
	memsync "github.com/reflect-memory/reflect/sync"
)

// behindLimit bounds the commits Check reads on each side of a team's main: a doctor run
// must not walk a long history twice to say how far behind a clone is.
const behindLimit = 20000

// Health is what this machine alone can say about a team's clone: no network is asked.
type Health struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	URL     string `json:"url,omitempty"` // redacted (memsync.RedactURL)
	Problem string `json:"problem,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// Fetched is false when no pull ever brought the team's main (refs/remotes/origin/main).
	Fetched bool `json:"fetched"`
	// Behind is how many commits the team's main, as last fetched, has that the clone's
	// main does not: a sync whose checks refused what came in stays behind.
	Behind         int  `json:"behind"`
	BehindComplete bool `json:"behind_complete"`
}

// Check looks at team name's clone: it is a git repository reflect opens, its origin remote
// is set (and, for a path, is there), and how far its main is behind what was last fetched.
// Problem says what is wrong, "" when nothing is.
func Check(personal *gitstore.Repo, name string) Health {
	h := Health{Name: name, Dir: Dir(personal, name), BehindComplete: true}
	fi, err := os.Stat(filepath.Join(h.Dir, ".git"))
	if err != nil || !fi.IsDir() || !isClone(h.Dir) {
		h.Problem = "its clone " + h.Dir + " is not a git repository (no .git)"
		if err == nil && fi.IsDir() {
			// what a recall reading the team while it was removed or renamed wrote after
			h.Problem = "its clone " + h.Dir + " is not a git repository (no .git/HEAD)"
		}
		h.Fix = fmt.Sprintf("rm -rf %s && reflect team add %s URL", shellquote.Quote(h.Dir), name)
		return h
	}
	r, err := gitstore.Open(h.Dir)
	if err != nil {
		h.Problem = fmt.Sprintf("its clone %s does not open: %v", h.Dir, err)
		h.Fix = fmt.Sprintf("reflect team remove %s && reflect team add %s URL", name, name)
		return h
	}
	defer r.Close()
	raw := r.Remote("origin")
	h.URL = memsync.RedactURL(raw)
	if raw == "" {
		h.Problem = "its clone has no origin remote: reflect team sync has nowhere to pull from"
		h.Fix = fmt.Sprintf("git -C %s remote add origin URL", shellquote.Quote(h.Dir))
		return h
	}
	if p, ok := localPath(raw, h.Dir); ok {
		if _, err := os.Stat(p); err != nil {
			h.Problem = "its remote is a path on this machine that is not there: " + p
			h.Fix = fmt.Sprintf("git -C %s remote set-url origin URL", shellquote.Quote(h.Dir))
			return h
		}
	}
	head, err := r.Head()
	if err != nil {
		h.Problem = fmt.Sprintf("its main cannot be read: %v", err)
		h.Fix = fmt.Sprintf("reflect team remove %s && reflect team add %s URL", name, name)
		return h
	}
	tracking, err := r.Ref("refs/remotes/origin/main")
	if err != nil {
		h.Problem = fmt.Sprintf("its last fetched main cannot be read: %v", err)
		h.Fix = "reflect team sync " + name
		return h
	}
	if h.Fetched = !tracking.IsZero(); !h.Fetched {
		return h
	}
	if h.Behind, h.BehindComplete, err = r.Behind(head, tracking, behindLimit); err != nil {
		h.Problem = fmt.Sprintf("its history is incomplete: %v", err)
		h.Fix = fmt.Sprintf("reflect team remove %s && reflect team add %s URL", name, name)
	}
	return h
}

// localPath is the directory a remote URL names on this machine, if it names one: a file://
// URL, or a path as git tells one from host:path (learnings.IsLocalPath), "~/" meaning home
// and a relative one taken from the clone at dir, where git runs.
func localPath(remote, dir string) (string, bool) {
	if strings.HasPrefix(remote, "file://") {
		u, err := url.Parse(remote)
		if err != nil {
			return "", false
		}
		return u.Path, true
	}
	if strings.Contains(remote, "://") || !learnings.IsLocalPath(remote) {
		return "", false
	}
	if rest, ok := strings.CutPrefix(remote, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest), true
		}
	}
	if !filepath.IsAbs(remote) && !learnings.IsDrivePath(remote) {
		return filepath.Join(dir, remote), true
	}
	return remote, true
}
