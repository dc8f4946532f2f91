package sync

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
)

// What arrives from a remote is written by whoever can push to it: a teammate, a compromised
// laptop, a mistaken force-push. Before anything of it is written here, every file it changed
// is checked as git checks a path it checks out (gitstore.VerifyPath), for its kind (only
// regular and executable files: a symlink could point out of the memory, a gitlink names a
// repository reflect would never fetch) and its size; a learning must sit at a valid project
// key and claim an id no other file claims. One refused file stops the sync before it writes
// or pushes anything.

// Size caps on what a remote may bring, by where it lives.
const (
	maxQueueBytes = 4 << 20 // a queue entry: a digest is at most 1 MiB (config caps it), with its metadata
	maxOtherBytes = 1 << 20 // reflect.toml and whatever else a person keeps at the root
)

// Caps on what one sync may bring in all. Git packs a file of zeros, or many files alike,
// into almost nothing: 300 files of 1 MB under junk/ made a 184 KB remote and a 299 MB
// checkout on every laptop, each file under its own cap. What reflect reads is bounded by
// what a memory holds (a first sync of 100,000 learnings of ~1.5 KB brings ~150 MB); what it
// never reads (files outside learnings/, queue/, handoffs/ and reflect.toml) is bounded far
// lower.
var (
	maxSyncBytes  int64 = 256 << 20 // every file one sync adds or changes, as checked out
	maxOtherFiles       = 200       // files reflect does not read, added or changed by one sync
	maxOtherTotal int64 = 16 << 20  // and their bytes
)

// RefusedError is a file the remote holds that this machine will not write.
type RefusedError struct {
	Path   string
	Reason string
	Commit plumbing.Hash // the commit that brought it, when the walk found it
	Author string
}

func (e *RefusedError) Error() string {
	by := ""
	if !e.Commit.IsZero() {
		by = fmt.Sprintf(" (brought by commit %s by %s)", short(e.Commit), e.Author)
	}
	return fmt.Sprintf("refused what the remote holds: %s: %s%s; nothing was written or pushed: remove it on the remote (git rm, commit, push) and sync again", e.Path, e.Reason, by)
}

// checkIncoming checks the files the remote changed since base (theirs), in the tree they
// lead to (remoteTree) merged with what this side holds (localTree).
func checkIncoming(r *gitstore.Repo, theirs []gitstore.Change, localHead, localTree, remoteTree, remote, base plumbing.Hash) error {
	refuse := func(c gitstore.Change, format string, args ...any) error {
		e := &RefusedError{Path: c.Path, Reason: fmt.Sprintf(format, args...)}
		stop := func(id plumbing.Hash) bool { return id == base }
		if o, err := r.Origins(remote, map[string]plumbing.Hash{c.Path: c.To}, stop, 10_000); err == nil {
			if o, ok := o[c.Path]; ok {
				e.Commit, e.Author = o.Commit, fmt.Sprintf("%s <%s>", o.Author, o.Email)
			}
		}
		return e
	}
	added := map[string]string{}   // id → path of a learning the remote added
	var newPaths []gitstore.Change // the paths the remote added
	var total, otherTotal int64    // the bytes it brings, and those of files reflect does not read
	others := 0
	var largest gitstore.Change
	var largestSize int64
	for _, c := range theirs {
		if c.To.IsZero() {
			continue
		}
		if err := gitstore.VerifyPath(c.Path); err != nil {
			return refuse(c, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("path %q: ", c.Path)))
		}
		if c.Mode != filemode.Regular && c.Mode != filemode.Executable {
			return refuse(c, "a %s; reflect writes only regular files", gitstore.FileKind(c.Mode))
		}
		limit := int64(maxOtherBytes)
		id, isLearning := learnings.IDFromPath(c.Path)
		switch {
		case isLearning:
			limit = learnings.MaxFileBytes
			key := strings.TrimSuffix(strings.TrimPrefix(path.Dir(c.Path), learnings.Dir+"/"), "/")
			if err := learnings.ValidProjectKey(key); err != nil {
				return refuse(c, "learnings/%s is not a project key reflect makes: %v", key, err)
			}
			if c.From.IsZero() {
				added[id] = c.Path
			}
		case strings.HasPrefix(c.Path, "queue/"):
			limit = maxQueueBytes
		}
		n, err := r.BlobSize(c.To)
		if err != nil {
			return err
		} else if n > limit {
			return refuse(c, "%d bytes, over the %d a file there may hold", n, limit)
		}
		total += n
		if n > largestSize {
			largest, largestSize = c, n
		}
		if !isLearning && !strings.HasPrefix(c.Path, queue.Dir+"/") && !strings.HasPrefix(c.Path, handoff.Dir+"/") && c.Path != config.FileName {
			others++
			otherTotal += n
			if others > maxOtherFiles || otherTotal > maxOtherTotal {
				return refuse(c, "one of %d files (%d bytes) outside %s/, %s/ and %s/ this sync would bring, over the %d files or %d bytes one sync may bring there",
					others, otherTotal, learnings.Dir, queue.Dir, handoff.Dir, maxOtherFiles, maxOtherTotal)
			}
		}
		if base != localHead {
			if err := clash(r, c, localTree); err != nil {
				return refuse(c, "%v", err)
			}
		}
		if c.From.IsZero() {
			newPaths = append(newPaths, c)
		}
	}
	if total > maxSyncBytes {
		return refuse(largest, "the largest of the files this sync would bring, %d bytes in all, over the %d one sync may bring", total, maxSyncBytes)
	}
	if len(newPaths) == 0 {
		return nil
	}
	gone := deletedBy(theirs)
	// One walk of each tree (only when the remote added a path) serves both checks of what it
	// added: checking each added path against its folder's entries was quadratic (20,000
	// added against 20,000 took 7.5 s a tree).
	for _, tree := range []plumbing.Hash{remoteTree, localTree} {
		files, err := r.WalkTree(tree, "")
		if err != nil {
			return err
		}
		folded := make(map[string][]string, len(files)) // every file, lower-cased, to its paths
		dirs := map[string]string{}                     // every folder of a file that stays, lower-cased, to a spelling
		var claimed, claimer string                     // an added learning's id another file that stays holds
		for _, f := range files {
			k := strings.ToLower(f.Path)
			folded[k] = append(folded[k], f.Path)
			if !gone[f.Path] {
				// its folders' ancestors are in already when it is (a few folders a file)
				for d := path.Dir(f.Path); d != "." && dirs[strings.ToLower(d)] == ""; d = path.Dir(d) {
					dirs[strings.ToLower(d)] = d
				}
			}
			id, ok := learnings.IDFromPath(f.Path)
			if p, dup := added[id]; ok && dup && p != f.Path && claimed == "" && !gone[f.Path] {
				claimed, claimer = f.Path, p
			}
		}
		// a new path that only the case of its letters tells from another (REFLECT.TOML, a
		// learning's LRN-… or Learnings/…) is that file on macOS and Windows: written, it
		// would overwrite it there, and the memory would stop syncing on a dirty tree
		for _, c := range newPaths {
			for _, other := range folded[strings.ToLower(c.Path)] {
				if other != c.Path && !gone[other] && !inKeyOnly(c.Path, other) {
					return refuse(c, "the same file as %s on a disk that ignores case (macOS, Windows)", other)
				}
			}
			// nor may a file take a folder's name in another case (Queue beside queue/), nor a
			// folder a file's: one of them could not be written there
			if d, ok := dirs[strings.ToLower(c.Path)]; ok {
				return refuse(c, "a file named as the folder %s on a disk that ignores case (macOS, Windows)", d)
			}
			for d := path.Dir(c.Path); d != "."; d = path.Dir(d) {
				for _, other := range folded[strings.ToLower(d)] {
					if !gone[other] {
						return refuse(c, "in a folder named as the file %s on a disk that ignores case (macOS, Windows)", other)
					}
				}
			}
		}
		// an added learning must not claim the id of a file that stays: recall and every
		// command would take one for the other
		if claimed != "" {
			for _, c := range newPaths {
				if c.Path == claimer {
					id, _ := learnings.IDFromPath(claimer)
					return refuse(c, "claims id %s, which %s already has", id, claimed)
				}
			}
		}
	}
	return nil
}

// inKeyOnly says whether paths a and b, equal but for case, differ only in the folders
// between the first and the file's name: a project key, whose owner two laptops may spell
// differently (Acme/web, acme/web), and under which a handoff is named for its branch alone.
// Those two folders are one on macOS and Windows and lose nothing there; a file's own name or
// the top folder in another case overwrites a file.
func inKeyOnly(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) || len(as) < 3 {
		return false
	}
	return as[0] == bs[0] && as[len(as)-1] == bs[len(bs)-1]
}

// clash finds where a file the remote brings meets this side's tree the other way round: a
// directory here where the remote has a file, or a file here where the remote has a
// directory on its path. Neither side can win without losing the other's content.
func clash(r *gitstore.Repo, c gitstore.Change, localTree plumbing.Hash) error {
	if mode, ok, err := r.Entry(localTree, c.Path); err != nil {
		return err
	} else if ok && mode == filemode.Dir {
		return fmt.Errorf("a file on the remote, a directory here")
	}
	for dir := path.Dir(c.Path); dir != "."; dir = path.Dir(dir) {
		if mode, ok, err := r.Entry(localTree, dir); err != nil {
			return err
		} else if ok && mode != filemode.Dir {
			return fmt.Errorf("%s is a file here and a directory on the remote", dir)
		}
	}
	return nil
}

// deletedBy is the set of paths the remote's changes delete: a file outside it stays. (A
// scan of the changes for each file was 1.4 s a tree for a first sync of 20,000 learnings.)
func deletedBy(theirs []gitstore.Change) map[string]bool {
	gone := map[string]bool{}
	for _, c := range theirs {
		if c.To.IsZero() {
			gone[c.Path] = true
		}
	}
	return gone
}

// sharedSettings checks the reflect.toml the remote brings: a file this reflect rejects is
// not taken (the local copy is kept, and the sync says why), and the local keys it holds are
// named (they are ignored wherever it is read). A clone that follows its remote (follow) takes
// the file as it is and leaves it unused: its keys hold their defaults.
func sharedSettings(r *gitstore.Repo, theirs []gitstore.Change, follow bool) (keep bool, notes []string, err error) {
	for _, c := range theirs {
		if c.Path != config.FileName || c.To.IsZero() {
			continue
		}
		data, err := r.ReadBlob(c.To)
		if err != nil {
			return false, nil, err
		}
		_, warnings, perr := config.ParseShared(config.FileName, data)
		for _, w := range warnings {
			notes = append(notes, fmt.Sprintf("the remote's %s sets %s, which is local to each machine: ignored here", config.FileName, w.Key))
		}
		if perr != nil {
			what := "kept this machine's copy"
			if follow {
				what = "not used here, its keys keep their defaults"
			}
			return true, append(notes, fmt.Sprintf("the remote's %s does not load (%v): %s", config.FileName, perr, what)), nil
		}
	}
	return false, notes, nil
}

// recordArrivals remembers, for every learning and queue entry that came in, the commit that
// made its new version and who wrote it (see package provenance): a queue entry is drained
// here into learnings, which are then theirs as much as one they pushed.
func recordArrivals(r *gitstore.Repo, theirs []gitstore.Change, remote, base plumbing.Hash, now time.Time) error {
	want := map[string]plumbing.Hash{}
	for _, c := range theirs {
		if _, ok := learnings.IDFromPath(c.Path); ok && !c.To.IsZero() {
			want[c.Path] = c.To
		} else if strings.HasPrefix(c.Path, queue.Dir+"/") && strings.HasSuffix(c.Path, ".json") && !c.To.IsZero() {
			want[c.Path] = c.To
		}
	}
	if base.IsZero() && len(want) == 0 {
		return provenance.MarkBuilt(r, now) // a first sync of an empty memory: nothing to record
	}
	if len(want) == 0 {
		return nil
	}
	stop := func(id plumbing.Hash) bool { return id == base }
	origins, err := r.Origins(remote, want, stop, 10_000)
	if err != nil {
		return err
	}
	recs := map[string]provenance.Record{}
	for p, blob := range want {
		id, learning := learnings.IDFromPath(p)
		rec := provenance.Record{Path: p, Blob: blob.String(), Arrived: now.UTC()}
		if o, ok := origins[p]; ok {
			rec.Commit, rec.Author, rec.Email, rec.When = o.Commit.String(), o.Author, o.Email, o.When.UTC()
			// a merge by someone else reviews what it brought in; a hand edit does not: its
			// author wrote the version it made, and "edit: " is a subject anyone can write
			if o.MergedBy != "" && o.MergedBy != o.Email {
				rec.Reviewed = o.MergedBy
			}
		}
		if !learning {
			data, err := r.ReadBlob(blob)
			e, perr := queue.Parse(p, data)
			if err != nil || perr != nil {
				continue // not an entry the drain can read: nothing is made of it
			}
			rec.Machine, id = e.Machine, e.ID
			if !strings.EqualFold(rec.Email, r.Identity()) {
				// another author's: no bucket to read
			} else if old, ok, _ := provenance.Of(r, id); ok && old.Email != rec.Email {
				// this user's laptop moved another author's entry (to queue/failed, back by
				// queue retry): the capture is still theirs
				continue
			}
		} else if l, _, err := learnings.Read(r, p, blob); err == nil {
			rec.Machine = l.Source.Machine
		}
		recs[id] = rec
	}
	if err := provenance.Save(r, recs); err != nil {
		return err
	}
	if base.IsZero() { // everything this clone holds came in here: its records are complete
		return provenance.MarkBuilt(r, now)
	}
	return nil
}

// fetched is what a fetch may add: the pack files that were not there before it, and the
// tracking ref it moves. When the sync refuses what came, drop takes both back, so that
// nothing of the refused history stays in the repository (git fsck --strict checks every
// object, reachable or not, and would report a tree that holds ".GIT").
type fetched struct {
	packDir  string
	before   map[string]bool
	g        *gogit.Repository
	tracking plumbing.ReferenceName
	old      *plumbing.Reference
}

func quarantine(root string, g *gogit.Repository, tracking string) *fetched {
	f := &fetched{packDir: filepath.Join(root, ".git", "objects", "pack"), before: map[string]bool{}, g: g,
		tracking: plumbing.ReferenceName(tracking)}
	names, _ := filepath.Glob(filepath.Join(f.packDir, "pack-*"))
	for _, n := range names {
		f.before[n] = true
	}
	f.old, _ = g.Reference(f.tracking, false)
	return f
}

func (f *fetched) drop() error {
	if f.old != nil {
		if err := f.g.Storer.SetReference(f.old); err != nil {
			return err
		}
	} else if err := f.g.Storer.RemoveReference(f.tracking); err != nil {
		return err
	}
	names, _ := filepath.Glob(filepath.Join(f.packDir, "pack-*"))
	for _, n := range names {
		if !f.before[n] {
			if err := os.Remove(n); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}
