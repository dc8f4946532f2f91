// Package workspace reads the directory an agent works in — the project, not the memory: the
// git repository it belongs to (following the "gitdir:" file of a linked worktree or a
// submodule, and a worktree's commondir), the project key learnings are filed under, the
// branch, HEAD, and the subjects of the latest commits and the files they touched. It reads git's files itself, no git
// process (a hook has milliseconds), and walks up from the directory once. It is the one
// place that finds a workspace's .git and the one that computes its project key; everyone
// else asks it. It never writes. What it read of a commit it keeps for the life of the
// process (readCommits).
package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/gcfg"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/reflect-memory/reflect/internal/bounded"
	"github.com/reflect-memory/reflect/internal/gitobjects"
	"github.com/reflect-memory/reflect/learnings"
)

// Workspace is what reflect knows of a directory an agent works in.
type Workspace struct {
	Dir     string // the directory asked about (a file's directory when a file was named)
	Root    string // the work tree it belongs to; "" outside git
	GitDir  string // its git directory (a worktree's own, under the main repository's)
	Project string // the learnings project key; learnings.Global outside git
	Branch  string // the current branch; "" when detached or outside git
	Head    string // the commit HEAD names; "" when unborn or outside git
	// Subjects are the subjects of the latest commits of HEAD's first-parent line, newest
	// first, merges left out: only when Read was asked for some.
	Subjects []string
	// Files are the paths those commits touched, newest commit first, each once (at most
	// 40; none of a commit that touched over 100; what 10 ms of reading finds).
	Files  []string
	common string // where config and refs live: the main repository's git directory
}

// Read describes dir: its repository, project key, branch and HEAD, and the subjects of up
// to subjects latest commits with the files they touched. The error says why the project key could not be worked out (a
// directory that does not exist, a .git file that names nothing, a config that does not
// parse); what could be read is returned with it, Project then being Global.
func Read(dir string, subjects int) (Workspace, error) {
	w := Workspace{Project: learnings.Global}
	if dir == "" {
		return w, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return w, fmt.Errorf("project key of %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return w, fmt.Errorf("project key: %w", err)
	}
	if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	w.Dir = abs
	if w.Root, w.GitDir, err = find(abs); err != nil {
		return w, fmt.Errorf("project key of %s: %w", dir, err)
	}
	if w.Root == "" {
		return w, nil
	}
	w.Branch, w.Head = w.head()
	project, err := w.projectKey()
	if err != nil {
		return w, fmt.Errorf("project key of %s: %w", dir, err)
	}
	w.Project = project
	if subjects > 0 && w.Head != "" {
		w.Subjects = w.subjects(subjects)
	}
	return w, nil
}

// ProjectKey returns the project key of dir (or of a file's directory): its repository's
// remote (origin, else the alphabetically first remote with a url) normalised by
// learnings.NormalizeRemote; local/<name of the work tree> when there is no remote;
// learnings.Global, with a nil error, outside git. Linked worktrees and submodules are
// followed through their .git files. It reads only the .git entries and the repository's
// config file, well under a millisecond.
func ProjectKey(dir string) (string, error) {
	w, err := Read(dir, 0)
	if err != nil {
		return "", err
	}
	return w.Project, nil
}

// find walks up from dir to the work tree root that holds a .git entry and returns it with
// the git directory, or empty strings when there is none.
func find(dir string) (root, gitDir string, err error) {
	for {
		p := filepath.Join(dir, ".git")
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return dir, p, nil
		case err == nil:
			// A worktree or submodule: .git is a file "gitdir: <path>".
			b, err := os.ReadFile(p)
			if err != nil {
				return "", "", fmt.Errorf("read %s: %w", p, err)
			}
			target, ok := strings.CutPrefix(string(bytes.TrimSpace(b)), "gitdir:")
			if !ok {
				return "", "", fmt.Errorf("read %s: not a gitdir file", p)
			}
			return dir, resolve(dir, strings.TrimSpace(target)), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", "", fmt.Errorf("find git repository: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", nil
		}
		dir = parent
	}
}

func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// commonDir is where the repository's config and refs live: for a linked worktree, the main
// repository's git directory (its commondir file), else the git directory itself.
func (w *Workspace) commonDir() (string, error) {
	if w.common != "" {
		return w.common, nil
	}
	w.common = w.GitDir
	b, err := os.ReadFile(filepath.Join(w.GitDir, "commondir"))
	switch {
	case err == nil:
		w.common = resolve(w.GitDir, string(bytes.TrimSpace(b)))
	case !errors.Is(err, fs.ErrNotExist):
		return w.common, err
	}
	return w.common, nil
}

// Objects is the repository's objects directory (for a linked worktree, the main
// repository's), "" outside git.
func (w *Workspace) Objects() string {
	if w.GitDir == "" {
		return ""
	}
	common, _ := w.commonDir()
	return filepath.Join(common, "objects")
}

// projectKey names the project after its remote, else after the repository (for a linked
// worktree, the main repository, not the worktree).
func (w *Workspace) projectKey() (string, error) {
	common, err := w.commonDir()
	if err != nil {
		return "", err
	}
	name := filepath.Base(w.Root)
	if common != w.GitDir {
		name = filepath.Base(common)
		if name == ".git" {
			name = filepath.Base(filepath.Dir(common))
		}
	}
	remote, err := remoteURL(filepath.Join(common, "config"))
	if err != nil {
		return "", err
	}
	if remote == "" {
		return learnings.LocalKey(name), nil
	}
	return learnings.NormalizeRemote(remote)
}

// remoteURL returns the url of remote origin in a git config file, else of the
// alphabetically first remote that has one, else "".
func remoteURL(config string) (string, error) {
	f, err := os.Open(config)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read git config: %w", err)
	}
	defer f.Close()
	urls := map[string]string{}
	err = gcfg.ReadWithCallback(f, func(section, sub, key, value string, _ bool) error {
		if strings.EqualFold(section, "remote") && sub != "" && strings.EqualFold(key, "url") && value != "" && urls[sub] == "" {
			urls[sub] = value
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read git config %s: %w", config, err)
	}
	if u, ok := urls["origin"]; ok {
		return u, nil
	}
	names := make([]string, 0, len(urls))
	for n := range urls {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "", nil
	}
	return urls[names[0]], nil
}

// head reads the branch HEAD points to and its commit (a detached HEAD: no branch, the
// commit it holds), from the loose ref or packed-refs.
func (w *Workspace) head() (branch, commit string) {
	data, err := os.ReadFile(filepath.Join(w.GitDir, "HEAD"))
	if err != nil {
		return "", ""
	}
	h := strings.TrimSpace(string(data))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return "", h
	}
	branch = strings.TrimPrefix(ref, "refs/heads/")
	common, _ := w.commonDir()
	if data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
		return branch, strings.TrimSpace(string(data))
	}
	if f, err := os.Open(filepath.Join(common, "packed-refs")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if id, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
				return branch, id
			}
		}
	}
	return branch, ""
}

// Bounds on reading the files recent commits touched: a hook has milliseconds, and a commit
// that touches hundreds of files (a vendoring, a formatting pass) says nothing about a topic.
const (
	maxFiles       = 40
	maxCommitFiles = 100
	filesBudget    = 10 * time.Millisecond
)

// subjects reads the subjects of up to n commits back from HEAD along first parents, and
// the files those commits touched (see Files).
func (w *Workspace) subjects(n int) []string {
	if _, err := w.commonDir(); err != nil {
		return nil
	}
	// the object store alone, each object looked up in the pack indexes in place: go-git's
	// storage loads every index whole and maps every offset back to its id on the first
	// delta it reads (93 ms of a SessionStart hook in a project of 400,000 objects, 79% of
	// it there; package gitobjects)
	repo := gitobjects.Open(w.Objects())
	defer repo.Close()
	ctx, cancel := context.WithTimeout(context.Background(), filesBudget)
	defer cancel()
	var out []string
	seen := map[string]bool{}
	id := plumbing.NewHash(w.Head)
	// cut: a newer commit's files were left out (the budget ran out, or the files were
	// enough), so an older one's are too, even when they are at hand: Files is what the
	// latest commits touched, newest first
	cut := false
	// each commit's tree is diffed against its parent's, and the parent's against its own:
	// what one diff read the next is given (half the trees read)
	rd := &reads{repo: repo, commits: map[plumbing.Hash]*object.Commit{}, trees: map[plumbing.Hash]map[string]object.TreeEntry{}}
	for walked := 0; len(out) < n && walked < maxWalk; walked++ {
		cr, ok := readCommits.Get(id)
		if !ok {
			c, err := rd.commit(id)
			if err != nil {
				break
			}
			cr = commitRead{}
			cr.subject, _, _ = strings.Cut(strings.TrimSpace(c.Message), "\n")
			if len(c.ParentHashes) > 0 {
				cr.parent = c.ParentHashes[0]
			}
			switch {
			case merge(cr.subject):
				readCommits.Put(id, cr) // a merge's files are not asked for
			case cut || len(w.Files) >= maxFiles || ctx.Err() != nil:
				cut = true
			default:
				var whole bool
				if cr.files, whole = touched(ctx, rd, c); whole {
					readCommits.Put(id, cr)
				} else {
					cut = cut || ctx.Err() != nil
				}
			}
		}
		if !merge(cr.subject) {
			out = append(out, cr.subject)
			for _, f := range cr.files {
				if !cut && !seen[f] && len(w.Files) < maxFiles {
					seen[f] = true
					w.Files = append(w.Files, f)
				}
			}
		}
		if cr.parent.IsZero() {
			break
		}
		id = cr.parent
	}
	return out
}

// maxWalk bounds the commits subjects reads back from HEAD: a branch whose first parents are
// all merges (a pull request merged with a merge commit, every time) has no subject to give,
// and was read back to its first commit at every session start.
const maxWalk = 50

// merge says whether a commit's subject is none or a merge's: it says nothing of the work.
func merge(subject string) bool { return subject == "" || strings.HasPrefix(subject, "Merge ") }

// commitRead is what subjects reads of a commit: its subject, its first parent (zero for a
// first commit) and the files it touched against that parent.
type commitRead struct {
	subject string
	parent  plumbing.Hash
	files   []string
}

// readCommits keeps, for the life of the process, what subjects read of each commit whose
// touched files it could list in full: a commit's subject, parent and files follow from its
// id, so what it holds is never stale. A resident engine (package hooks/resident) answers a
// project's session starts one after another, each reading the same latest commits and
// diffing their trees again: 1 ms of BenchmarkStartHook's 5.1 (4.0 with it, medians of three
// interleaved runs). It empties at 1,024 commits.
var readCommits = bounded.Map[plumbing.Hash, commitRead]{Max: 1024}

// reads are the commits and trees one read of a project's latest commits has read.
type reads struct {
	repo    storer.EncodedObjectStorer
	commits map[plumbing.Hash]*object.Commit
	trees   map[plumbing.Hash]map[string]object.TreeEntry
}

func (rd *reads) commit(id plumbing.Hash) (*object.Commit, error) {
	if c, ok := rd.commits[id]; ok {
		return c, nil
	}
	c, err := object.GetCommit(rd.repo, id)
	if err == nil {
		rd.commits[id] = c
	}
	return c, err
}

// tree is the entries of tree h by name; false when it cannot be read.
func (rd *reads) tree(h plumbing.Hash) (map[string]object.TreeEntry, bool) {
	if m, ok := rd.trees[h]; ok {
		return m, true
	}
	t, err := object.GetTree(rd.repo, h)
	if err != nil {
		return nil, false
	}
	m := make(map[string]object.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	rd.trees[h] = m
	return m, true
}

// touched lists the paths commit c changed against its first parent: nothing when they are
// more than maxCommitFiles or c is a first commit (an import of everything), and then whole;
// not whole when the budget ran out or an object could not be read, which another read may
// not meet. Subtrees with equal ids are not read (go-git's DiffTree reads every subtree of
// each directory it visits: 10 ms for one commit).
func touched(ctx context.Context, rd *reads, c *object.Commit) (files []string, whole bool) {
	if len(c.ParentHashes) == 0 {
		return nil, true
	}
	parent, err := rd.commit(c.ParentHashes[0])
	if err != nil {
		return nil, false
	}
	var out []string
	unread := false
	if !diffPaths(ctx, rd, parent.TreeHash, c.TreeHash, "", &out, &unread) {
		return nil, !unread && ctx.Err() == nil && len(out) > maxCommitFiles
	}
	return out, !unread
}

// diffPaths adds to out the paths of the files that differ between trees a and b (either
// may be zero) under prefix; false when there are too many or the context is done. A tree it
// could not read counts as empty and sets unread.
func diffPaths(ctx context.Context, rd *reads, a, b plumbing.Hash, prefix string, out *[]string, unread *bool) bool {
	if ctx.Err() != nil {
		return false
	}
	entries := func(h plumbing.Hash) map[string]object.TreeEntry {
		if h.IsZero() {
			return nil
		}
		m, ok := rd.tree(h)
		if !ok {
			*unread = true
		}
		return m
	}
	ea, eb := entries(a), entries(b)
	names := make([]string, 0, len(ea)+len(eb))
	for n := range ea {
		names = append(names, n)
	}
	for n := range eb {
		if _, ok := ea[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		x, y := ea[n], eb[n]
		if x.Hash == y.Hash {
			continue
		}
		dirX, dirY := x.Mode == filemode.Dir, y.Mode == filemode.Dir
		if dirX || dirY {
			var ha, hb plumbing.Hash
			if dirX {
				ha = x.Hash
			}
			if dirY {
				hb = y.Hash
			}
			if !diffPaths(ctx, rd, ha, hb, prefix+n+"/", out, unread) {
				return false
			}
			if dirX == dirY || x.Hash.IsZero() || y.Hash.IsZero() {
				continue
			}
		}
		if *out = append(*out, prefix+n); len(*out) > maxCommitFiles {
			return false
		}
	}
	return true
}
