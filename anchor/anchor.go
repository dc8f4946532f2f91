// Package anchor ties learnings to the code they were learned on. It owns reading a
// project's repository for them: the blob a path has now (HEAD's tree, or the work tree's
// file when the index says it differs), whether a learning's anchors are fresh, drifted or
// orphaned, the rename that explains a file that is gone, the commits that changed a file
// since, and which directory holds a project on this machine (roots.go). It reads the
// project's repository and never writes it; the learnings it judges are untrusted input
// (they may arrive from another person's remote), so every path goes through
// learnings.ParseAnchor and is opened only through an os.Root at the work tree, every file
// read is capped, and no program is run.
package anchor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/reflect-memory/reflect/gitstore/gitindex"
	"github.com/reflect-memory/reflect/internal/gitobjects"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// State is how a learning's files compare with the project now.
type State string

// The states. A learning without anchors, or of another project than the workspace's, is
// Unchecked: nothing says it is stale.
const (
	Unchecked State = ""
	Fresh     State = "fresh"    // every anchored file has the blob it had
	Drifted   State = "drifted"  // a file changed since
	Orphaned  State = "orphaned" // a file is gone (deleted, or renamed)
)

// MaxHashBytes is the largest work-tree file hashed to see whether it changed. A lesson's
// file is a Makefile or a source file; a larger one counts as changed (drifted) rather than
// cost a recall its budget: hashing 8 MB takes ~10 ms here.
const MaxHashBytes = 8 << 20

// maxHashTotal bounds the bytes one Project hashes in all: a recall checks at most a dozen
// learnings, but their anchors may come from someone else's remote and name the project's
// largest files. Past it, what is left is unchecked (errBudget), never guessed.
const maxHashTotal = 32 << 20

var errBudget = errors.New("anchor: hashing budget spent")

// maxIndexBytes is the largest project index read for its stat data: ~600,000 paths. One
// larger costs more to scan than hashing the few files a recall asks about.
const maxIndexBytes = 64 << 20

// ErrNoRepository means the workspace is not in a git work tree.
var ErrNoRepository = errors.New("not in a git repository: anchors need the project's git history")

// Project is a workspace's repository, opened to compare anchors with it.
type Project struct {
	ws      workspace.Workspace
	objects *gitobjects.Store // its objects, looked up in the pack indexes in place
	root    *os.Root

	head    *object.Tree // HEAD's tree; nil when unborn
	headErr error
	loaded  bool

	index      map[string]gitindex.Tracked // the index entries of the paths asked about
	indexMTime time.Time
	indexOK    bool

	cur    map[string]current // what Current found, per path
	hashed int64              // bytes hashed so far (maxHashTotal)
}

type current struct {
	blob  string // "" when the path holds no file
	dirty bool
}

// Open opens the repository of ws (read by workspace.Read).
func Open(ws workspace.Workspace) (*Project, error) {
	if ws.Root == "" {
		return nil, ErrNoRepository
	}
	root, err := os.OpenRoot(ws.Root)
	if err != nil {
		return nil, fmt.Errorf("open the project's work tree: %w", err)
	}
	// go-git's repository would load every pack index whole, and map every offset of a pack
	// back to its id on the first delta it read: 70 ms of a recall in a project of 400,000
	// objects (package gitobjects)
	return &Project{ws: ws, objects: gitobjects.Open(ws.Objects()), root: root, cur: map[string]current{}}, nil
}

// Close releases the work tree handle and the pack files read.
func (p *Project) Close() error {
	if p == nil || p.root == nil {
		return nil
	}
	return errors.Join(p.root.Close(), p.objects.Close())
}

// Workspace is the workspace the project was opened for.
func (p *Project) Workspace() workspace.Workspace { return p.ws }

func (p *Project) headTree() (*object.Tree, error) {
	if p.loaded {
		return p.head, p.headErr
	}
	p.loaded = true
	if p.ws.Head == "" {
		return nil, nil // unborn: every file is new
	}
	c, err := object.GetCommit(p.objects, plumbing.NewHash(p.ws.Head))
	if err != nil {
		p.headErr = fmt.Errorf("read the project's HEAD %s: %w", p.ws.Head, err)
		return nil, p.headErr
	}
	p.head, p.headErr = c.Tree()
	return p.head, p.headErr
}

// TreeAt is the tree of a commit of the project; ok is false when the repository does not
// have it (learned on a commit another machine never pushed).
func (p *Project) TreeAt(commit string) (*object.Tree, bool) {
	if !learnings.ValidObjectID(commit) {
		return nil, false
	}
	c, err := object.GetCommit(p.objects, plumbing.NewHash(commit))
	if err != nil {
		return nil, false
	}
	t, err := c.Tree()
	return t, err == nil
}

// blobIn is the blob id of a file (regular, executable or symlink) at path in t, or "".
func blobIn(t *object.Tree, path string) string {
	if t == nil {
		return ""
	}
	e, err := t.FindEntry(path)
	if err != nil || !e.Mode.IsFile() {
		return ""
	}
	return e.Hash.String()
}

// loadIndex reads the index entries of paths (once; later paths find nothing new, which
// only means their work-tree file is hashed).
func (p *Project) loadIndex(paths []string) {
	if p.index != nil {
		return
	}
	p.index = map[string]gitindex.Tracked{}
	if fi, err := os.Stat(filepath.Join(p.ws.GitDir, "index")); err == nil && fi.Size() > maxIndexBytes {
		return // files are hashed instead, within maxHashTotal
	}
	got, mtime, err := gitindex.FindTracked(p.ws.GitDir, paths)
	if err == nil {
		p.index, p.indexMTime, p.indexOK = got, mtime, true
	}
}

// Prepare reads, in one pass over the project's index, the entries of every path the
// checks to come will ask about.
func (p *Project) Prepare(paths []string) { p.loadIndex(paths) }

// Current is the blob a project file has now and whether it differs from HEAD: HEAD's blob,
// unless the work tree's file is not the one the index recorded (or the index's is not
// HEAD's), in which case the file is hashed. blob is "" when the path holds no file (deleted,
// a directory, never there).
func (p *Project) Current(path string) (blob string, dirty bool, err error) {
	if c, ok := p.cur[path]; ok {
		return c.blob, c.dirty, nil
	}
	head, err := p.headTree()
	if err != nil {
		return "", false, err
	}
	p.loadIndex([]string{path})
	inHead := blobIn(head, path)
	c := current{blob: inHead}
	fi, err := p.root.Lstat(filepath.FromSlash(path))
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && fi.IsDir():
		c.blob, c.dirty = "", inHead != ""
	case err != nil:
		// unreadable (a parent is a file, permissions): the committed state is what we know
	default:
		t, tracked := p.index[path]
		switch {
		case p.indexOK && tracked && t.Unchanged(fi) && !t.Racy(p.indexMTime):
			c.blob = t.ID.String()
		case p.indexOK && !tracked && inHead == "":
			c.blob = "" // an untracked file is not the project's
		default:
			if c.blob, err = p.hash(path, fi); err != nil {
				return "", false, err
			}
		}
		c.dirty = c.blob != inHead
	}
	p.cur[path] = c
	return c.blob, c.dirty, nil
}

// hash is the blob id of the work-tree file at path (a symlink: of its target's name, as git
// stores it). A file over MaxHashBytes or one that cannot be read gets a marker no anchor
// matches.
func (p *Project) hash(path string, fi os.FileInfo) (string, error) {
	const unreadable = "unreadable"
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := p.root.Readlink(filepath.FromSlash(path))
		if err != nil {
			return unreadable, nil
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target))).String(), nil
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxHashBytes {
		return unreadable, nil // a FIFO or device is never opened
	}
	if p.hashed+fi.Size() > maxHashTotal {
		return "", errBudget
	}
	f, err := p.root.Open(filepath.FromSlash(path))
	if err != nil {
		return unreadable, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxHashBytes+1))
	p.hashed += int64(len(data))
	if err != nil || len(data) > MaxHashBytes {
		return unreadable, nil
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data).String(), nil
}

// Check is one anchor compared with the project.
type Check struct {
	Path  string `json:"path"`
	Blob  string `json:"blob"`          // when it was learned
	Now   string `json:"now,omitempty"` // now; empty when the file is gone
	State State  `json:"state"`
	// Dirty: the file differs from HEAD in the work tree (uncommitted).
	Dirty bool `json:"dirty,omitempty"`
	// RenamedTo is where git's rename detection says a gone file went (Renames).
	RenamedTo string `json:"renamed_to,omitempty"`
}

// Freshness is a learning's anchors compared with the project.
type Freshness struct {
	State   State   `json:"state"`
	Anchors []Check `json:"anchors,omitempty"`
}

// Applies reports whether l's anchors are about this project: it has some, and it is a
// learning of the workspace's project (another project's files, or a global lesson's, are
// not this tree's).
func (p *Project) Applies(l *learnings.Learning) bool {
	return len(l.Anchors) > 0 && l.Project == p.ws.Project && p.ws.Project != learnings.Global
}

// Check compares l's anchors with the project now. Unchecked when they are not about it.
func (p *Project) Check(l *learnings.Learning) Freshness {
	if !p.Applies(l) {
		return Freshness{}
	}
	return p.CheckAnchors(l.AnchorList())
}

// CheckAnchors compares anchors with the project now: Orphaned when a file is gone, else
// Drifted when one changed, else Fresh.
func (p *Project) CheckAnchors(as []learnings.Anchor) Freshness {
	f := Freshness{State: Fresh}
	if len(as) == 0 {
		return Freshness{}
	}
	for _, a := range as {
		now, dirty, err := p.Current(a.Path)
		c := Check{Path: a.Path, Blob: a.Blob, Now: now, Dirty: dirty, State: Fresh}
		switch {
		case err != nil:
			return Freshness{} // HEAD unreadable, or the budget spent: say nothing rather than something wrong
		case now == "":
			c.State = Orphaned
		case now != a.Blob:
			c.State = Drifted
		}
		f.Anchors = append(f.Anchors, c)
		if c.State == Orphaned || c.State == Drifted && f.State == Fresh {
			f.State = c.State
		}
	}
	return f
}

// Renames fills in, for the orphaned anchors of f, where git's rename detection (go-git's
// port of it: exact blob first, then content similarity of 50% or more) says the file went
// between the commit the learning was made on and HEAD. It gives up at ctx's deadline.
func (p *Project) Renames(ctx context.Context, commit string, f *Freshness) {
	var gone []int
	for i, c := range f.Anchors {
		if c.State == Orphaned {
			gone = append(gone, i)
		}
	}
	if len(gone) == 0 {
		return
	}
	from, ok := p.TreeAt(commit)
	head, err := p.headTree()
	if !ok || err != nil || head == nil {
		return
	}
	changes, err := object.DiffTreeWithOptions(ctx, from, head, &object.DiffTreeOptions{
		DetectRenames: true, RenameScore: 50, RenameLimit: 200})
	if err != nil {
		return
	}
	for _, ch := range changes {
		if ch.From.Name == "" || ch.To.Name == "" || ch.From.Name == ch.To.Name {
			continue
		}
		for _, i := range gone {
			if f.Anchors[i].Path == ch.From.Name {
				f.Anchors[i].RenamedTo = ch.To.Name
			}
		}
	}
}

// Commit is one commit that changed an anchored file.
type Commit struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
}

// Changes lists the commits of HEAD's history after since that changed path (a rename to
// elsewhere counts), newest first, like `git log --oneline since..HEAD -- path` along first
// parents; at most limit of them, and at most 2,000 commits are read. more says the list
// was cut.
func (p *Project) Changes(since, path string, limit int) (out []Commit, more bool) {
	if p.ws.Head == "" {
		return nil, false
	}
	stop := plumbing.ZeroHash
	if learnings.ValidObjectID(since) {
		stop = plumbing.NewHash(since)
	}
	id := plumbing.NewHash(p.ws.Head)
	for range 2000 {
		if id == stop {
			return out, false
		}
		c, err := object.GetCommit(p.objects, id)
		if err != nil {
			return out, false
		}
		t, _ := c.Tree()
		var parent *object.Tree
		if len(c.ParentHashes) > 0 {
			if pc, err := object.GetCommit(p.objects, c.ParentHashes[0]); err == nil {
				parent, _ = pc.Tree()
			}
		}
		if blobIn(t, path) != blobIn(parent, path) {
			if len(out) == limit {
				return out, true
			}
			subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
			out = append(out, Commit{ID: c.Hash.String(), Subject: subject})
		}
		if len(c.ParentHashes) == 0 {
			return out, false
		}
		id = c.ParentHashes[0]
	}
	return out, true
}

// Resolve anchors paths (relative to the work tree's root, or absolute inside it) to the
// blobs they have now — what `reflect add --anchor` and a re-anchor record. A path that
// names no file of the project is returned in missing with the reason.
func (p *Project) Resolve(paths []string) (as []learnings.Anchor, missing []string) {
	for _, raw := range paths {
		path, err := p.Rel(raw)
		if err != nil {
			missing = append(missing, err.Error())
			continue
		}
		blob, _, err := p.Current(path)
		switch {
		case err != nil:
			missing = append(missing, fmt.Sprintf("%s: %v", raw, err))
		case blob == "" || !learnings.ValidObjectID(blob):
			missing = append(missing, fmt.Sprintf("%s: no such file in the project", raw))
		default:
			as = append(as, learnings.Anchor{Path: path, Blob: blob})
		}
	}
	return as, missing
}

// ResolveAt anchors paths to the blobs they had at a commit of the project (the drain: the
// commit a session ran on). A path the tree did not have then is left out; ok is false when
// the repository does not have the commit.
func (p *Project) ResolveAt(commit string, paths []string) (as []learnings.Anchor, ok bool) {
	t, ok := p.TreeAt(commit)
	if !ok {
		return nil, false
	}
	for _, raw := range paths {
		path, err := p.Rel(raw)
		if err != nil {
			continue
		}
		if b := blobIn(t, path); b != "" {
			as = append(as, learnings.Anchor{Path: path, Blob: b})
		}
	}
	return as, true
}

// Rel turns a path as a person or a session names it — relative to the work tree's root
// (or to the workspace directory, when that is below it), "./" or not, or absolute inside
// the work tree — into the project path an anchor holds. It refuses a path outside the
// project.
func (p *Project) Rel(raw string) (string, error) {
	s := filepath.Clean(filepath.FromSlash(strings.TrimSpace(raw)))
	switch {
	case filepath.IsAbs(s):
	case p.ws.Dir != "" && p.ws.Dir != p.ws.Root:
		// a name relative to where the agent works, when that file exists; else from the root
		if _, err := os.Lstat(filepath.Join(p.ws.Dir, s)); err == nil {
			s = filepath.Join(p.ws.Dir, s)
		} else {
			s = filepath.Join(p.ws.Root, s)
		}
	default:
		s = filepath.Join(p.ws.Root, s)
	}
	rel, err := filepath.Rel(p.ws.Root, s)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return "", fmt.Errorf("%s: not a file of the project at %s", raw, p.ws.Root)
	}
	rel = filepath.ToSlash(rel)
	if _, err := learnings.ParseAnchor(rel + "@" + strings.Repeat("0", 40)); err != nil {
		return "", fmt.Errorf("%s: %v", raw, err)
	}
	return rel, nil
}
