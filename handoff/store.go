package handoff

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Written says what Stage did.
type Written struct {
	Handoff *Handoff
	Path    string
	Blob    plumbing.Hash // of what was staged: the local record that this machine wrote it
	Skipped string        // why nothing was staged
}

// Stage builds the session's handoff from msgs and stages it in tx, unless it would replace
// a handoff it must not: a later session's, or, when this session left nothing to hand off,
// another session's. The file is redacted whole before it is staged. It runs inside a
// capture's commit: a file of the same session is read back (a few KB), nothing else.
func Stage(tx *gitstore.Tx, msgs []transcript.Message, m Meta) (Written, error) {
	if m.Project == "" || m.Project == learnings.Global || m.Session == "" {
		return Written{Skipped: "no project: a session outside git hands nothing off"}, nil
	}
	path := Path(m.Project, m.Branch)
	var prev *Handoff
	if data, err := tx.Read(path); err == nil {
		prev, _ = Parse(path, data) // a file that does not parse is replaced
		if prev != nil && m.Written != nil && !m.Written(path, plumbing.ComputeHash(plumbing.BlobObject, data)) {
			// not written here: whatever session it claims, it is another's (never folded in)
			prev.Session, prev.Harness = "", ""
		}
	} else if !errors.Is(err, gitstore.ErrNotFound) {
		return Written{}, err
	}
	h := Build(msgs, m, prev)
	switch {
	case prev != nil && prev.Session == h.Session && prev.Harness == h.Harness:
		// the session's own handoff follows it, to the end: a to-do done, a failure fixed
	case prev != nil && prev.Updated.After(h.Updated) && !prev.Updated.After(h.Updated.Add(clockSkew)):
		// (one dated further ahead is no later session's but a wrong clock or a pushed
		// file: it would hold the branch's handoff for good, and Pick never injects it)
		return Written{Skipped: fmt.Sprintf("a later session (%s) wrote this handoff", prev.Session)}, nil
	case !h.Useful() && prev != nil:
		return Written{Skipped: fmt.Sprintf("nothing to hand off; the handoff of session %s stays", prev.Session)}, nil
	case !h.Useful():
		return Written{Skipped: "nothing to hand off"}, nil
	}
	data, err := h.Render()
	if err != nil {
		return Written{}, err
	}
	data = redact.Bytes(data)
	tx.Write(path, data)
	return Written{Handoff: h, Path: path, Blob: plumbing.ComputeHash(plumbing.BlobObject, data)}, nil
}

// Read returns the handoff of project and branch in HEAD; nil when there is none.
func Read(r *gitstore.Repo, project, branch string) (*Handoff, plumbing.Hash, error) {
	path := Path(project, branch)
	files, err := r.Walk(path[:strings.LastIndexByte(path, '/')])
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	for _, f := range files {
		if f.Path != path {
			continue
		}
		if n, err := r.BlobSize(f.ID); err != nil {
			return nil, plumbing.ZeroHash, err
		} else if n > MaxFileBytes {
			return nil, plumbing.ZeroHash, fmt.Errorf("%s: %w: %d bytes, over %d", path, ErrNotHandoff, n, MaxFileBytes)
		}
		data, err := r.ReadBlob(f.ID)
		if err != nil {
			return nil, plumbing.ZeroHash, err
		}
		h, err := Parse(path, data)
		return h, f.ID, err
	}
	return nil, plumbing.ZeroHash, nil
}

// Item is a handoff as List finds it.
type Item struct {
	*Handoff
	Path string
	Blob plumbing.Hash
}

// List returns every handoff in HEAD, the latest first; files that do not parse are bad.
func List(r *gitstore.Repo) (items []Item, bad []error, err error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".md") {
			continue
		}
		if n, err := r.BlobSize(f.ID); err != nil {
			return nil, nil, err
		} else if n > MaxFileBytes {
			bad = append(bad, fmt.Errorf("%s: %w: %d bytes, over %d", f.Path, ErrNotHandoff, n, MaxFileBytes))
			continue
		}
		data, err := r.ReadBlob(f.ID)
		if err != nil {
			return nil, nil, err
		}
		h, err := Parse(f.Path, data)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if Path(h.Project, h.Branch) != f.Path {
			bad = append(bad, fmt.Errorf("%s: %w: it says project %q branch %q, whose handoff is %s", f.Path, ErrNotHandoff, h.Project, h.Branch, Path(h.Project, h.Branch)))
			continue
		}
		items = append(items, Item{Handoff: h, Path: f.Path, Blob: f.ID})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Updated.After(items[j].Updated) })
	return items, bad, nil
}

// ErrNone means there is no handoff for the project and branch asked about.
var ErrNone = errors.New("no handoff")

// Clear removes the handoff of project and branch, one commit; its history stays in git.
func Clear(ctx context.Context, r *gitstore.Repo, project, branch string) (*Handoff, error) {
	path := Path(project, branch)
	var gone *Handoff
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		data, err := tx.Read(path)
		if errors.Is(err, gitstore.ErrNotFound) {
			return "", fmt.Errorf("%w for project %s, branch %s (%s)", ErrNone, project, branchName(branch), path)
		} else if err != nil {
			return "", err
		}
		gone, _ = Parse(path, data)
		tx.Delete(path)
		return fmt.Sprintf("handoff: clear %s on %s", project, branchName(branch)), nil
	})
	return gone, err
}
