package sync

import (
	"bufio"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// push moves branch on the remote from old (zero: the remote has no such branch) to local,
// sending the objects local has and old does not. It returns the number of commits sent.
//
// go-git's own push finds those objects by walking everything the remote has, so its cost
// grows with the whole history; this walks only the commits that are new (painting both
// sides by commit date, as git does) and, in each, only the subtrees that differ from its
// parents'. An object it is unsure of is sent again, never left out. When the remote's
// branch is no longer old, it returns errRemoteMoved and sends nothing.
func push(ctx context.Context, s storer.EncodedObjectStorer, url string, auth transport.AuthMethod, branch plumbing.ReferenceName, old, local plumbing.Hash) (int, error) {
	return pushRef(ctx, s, url, auth, branch, old, old, local)
}

// pushRef is push with have, a commit the remote holds (on any branch), standing in for old
// when the objects to send are worked out: a new branch off the remote's main sends only
// what main lacks.
func pushRef(ctx context.Context, s storer.EncodedObjectStorer, url string, auth transport.AuthMethod, branch plumbing.ReferenceName, old, have, local plumbing.Hash) (int, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return 0, err
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return 0, err
	}
	sess, err := c.NewReceivePackSession(ep, auth)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return 0, err
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return 0, err
	}
	var cur plumbing.Hash
	if ref, ok := refs[branch]; ok {
		cur = ref.Hash()
	}
	if cur != old {
		return 0, errRemoteMoved
	}
	if cur == local {
		return 0, nil
	}
	hashes, bases, commits, trees, err := newObjects(s, local, have)
	if err != nil {
		return 0, err
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	req.Commands = []*packp.Command{{Name: branch, Old: old, New: local}}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		// buffered: every write to the pipe is a write to the remote's process
		bw := bufio.NewWriterSize(wr, 256<<10)
		err := writePack(bw, s, hashes, bases, trees.raw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			done <- wr.CloseWithError(err)
			return
		}
		done <- wr.Close()
	}()
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		rd.Close()
		<-done
		return 0, err
	}
	if err := <-done; err != nil {
		return 0, err
	}
	if rs != nil {
		if err := rs.Error(); err != nil {
			return 0, err
		}
	}
	return commits, nil
}

// Commit flags of the paint walk.
const (
	fromLocal  = 1
	fromRemote = 2
)

// newObjects lists the objects reachable from local that are not reachable from remote
// (zero: an empty remote), give or take a few that the remote has and are sent again.
//
// bases maps a tree or blob to the same path's version in a parent commit when that one is
// sent too, earlier in the list: a good delta base.
func newObjects(s storer.EncodedObjectStorer, local, remote plumbing.Hash) (out []plumbing.Hash, bases map[plumbing.Hash]plumbing.Hash, ncommits int, trees *treeCache, err error) {
	commits, read, err := newCommits(s, local, remote)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	seen := map[plumbing.Hash]bool{}
	bases = map[plumbing.Hash]plumbing.Hash{}
	trees = newTreeCache(s)
	add := func(h plumbing.Hash, same []plumbing.Hash) {
		if seen[h] {
			return
		}
		seen[h] = true
		out = append(out, h)
		for _, b := range same {
			if seen[b] {
				bases[h] = b
				break
			}
		}
	}
	for _, c := range commits {
		add(c.Hash, nil)
		var parents []plumbing.Hash
		for _, p := range c.ParentHashes {
			pc, ok := read[p]
			if !ok {
				if pc, err = object.GetCommit(s, p); err != nil {
					return nil, nil, 0, nil, err
				}
			}
			parents = append(parents, pc.TreeHash)
		}
		if err := newInTree(trees, c.TreeHash, parents, seen, add); err != nil {
			return nil, nil, 0, nil, err
		}
	}
	return out, bases, len(commits), trees, nil
}

// newInTree adds tree and everything under it that the parent trees (the same path in each
// parent; zero where a parent has none) do not hold at the same place.
func newInTree(s *treeCache, tree plumbing.Hash, parents []plumbing.Hash, seen map[plumbing.Hash]bool, add func(h plumbing.Hash, same []plumbing.Hash)) error {
	if seen[tree] {
		return nil
	}
	for _, p := range parents {
		if p == tree {
			return nil
		}
	}
	t, err := s.get(tree)
	if err != nil {
		return err
	}
	var pts []map[string]object.TreeEntry
	for _, p := range parents {
		if p.IsZero() {
			continue
		}
		if _, err := s.get(p); err != nil {
			return err
		}
		pts = append(pts, s.entries(p))
	}
	add(tree, parents)
	for _, e := range t.Entries {
		var same []plumbing.Hash
		for _, pt := range pts {
			if pe, ok := pt[e.Name]; ok && (pe.Mode == filemode.Dir) == (e.Mode == filemode.Dir) {
				same = append(same, pe.Hash)
			}
		}
		switch {
		case e.Mode == filemode.Submodule:
			continue // a commit of another repository: nothing to send
		case e.Mode == filemode.Dir:
			if err := newInTree(s, e.Hash, same, seen, add); err != nil {
				return err
			}
		default:
			held := false
			for _, h := range same {
				held = held || h == e.Hash
			}
			if !held {
				add(e.Hash, same)
			}
		}
	}
	return nil
}

// treeCache keeps the trees newObjects decoded, and their bytes for writePack: a commit's
// trees are mostly its parent's, read again for the next commit, and every tree sent is
// read once more to be packed.
type treeCache struct {
	s     storer.EncodedObjectStorer
	m     map[plumbing.Hash]*object.Tree
	raw   map[plumbing.Hash][]byte
	names map[plumbing.Hash]map[string]object.TreeEntry
}

// entries is tree h (already got) by entry name.
func (c *treeCache) entries(h plumbing.Hash) map[string]object.TreeEntry {
	if m, ok := c.names[h]; ok {
		return m
	}
	t := c.m[h]
	m := make(map[string]object.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		m[e.Name] = e
	}
	c.names[h] = m
	return m
}

func newTreeCache(s storer.EncodedObjectStorer) *treeCache {
	return &treeCache{s: s, m: map[plumbing.Hash]*object.Tree{}, raw: map[plumbing.Hash][]byte{},
		names: map[plumbing.Hash]map[string]object.TreeEntry{}}
}

func (c *treeCache) get(h plumbing.Hash) (*object.Tree, error) {
	if t, ok := c.m[h]; ok {
		return t, nil
	}
	o, err := c.s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	data, err := readObject(o)
	if err != nil {
		return nil, err
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.TreeObject)
	mo.Write(data)
	t, err := object.DecodeTree(c.s, mo)
	if err != nil {
		return nil, err
	}
	if len(c.m) > 50000 {
		clear(c.m)
		clear(c.raw)
		clear(c.names)
	}
	c.m[h], c.raw[h] = t, data
	return t, nil
}

// newCommits lists the commits reachable from local and not from remote, oldest first.
// Both sides are walked newest first, each commit carrying which side reaches it, until no
// commit in the queue is reached from local alone. read holds every commit it decoded.
func newCommits(s storer.EncodedObjectStorer, local, remote plumbing.Hash) (_ []*object.Commit, read map[plumbing.Hash]*object.Commit, _ error) {
	flags := map[plumbing.Hash]uint8{}
	visited := map[plumbing.Hash]*object.Commit{}
	q := &commitQueue{}
	localOnly := 0 // queued commits reached from local alone
	enqueue := func(h plumbing.Hash, f uint8) error {
		if h.IsZero() {
			return nil
		}
		old := flags[h]
		if old|f == old {
			return nil
		}
		c, err := object.GetCommit(s, h)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) && f == fromRemote {
				return nil // beyond what we have of the remote: it is the remote's anyway
			}
			return fmt.Errorf("commit %s: %w", h, err)
		}
		flags[h] = old | f
		if old|f == fromLocal {
			localOnly++
		}
		heap.Push(q, queued{c, old | f})
		return nil
	}
	if err := enqueue(remote, fromRemote); err != nil {
		return nil, nil, err
	}
	if err := enqueue(local, fromLocal); err != nil {
		return nil, nil, err
	}
	for localOnly > 0 && q.Len() > 0 {
		it := heap.Pop(q).(queued)
		if it.flags == fromLocal {
			localOnly--
		}
		f := flags[it.c.Hash]
		if f != it.flags {
			continue // queued again with more flags; that entry carries them
		}
		visited[it.c.Hash] = it.c
		for _, p := range it.c.ParentHashes {
			if err := enqueue(p, f); err != nil {
				return nil, nil, err
			}
		}
	}
	var out []*object.Commit
	for h, c := range visited {
		if flags[h] == fromLocal {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Committer.When.Equal(out[j].Committer.When) {
			return out[i].Committer.When.Before(out[j].Committer.When)
		}
		return out[i].Hash.String() < out[j].Hash.String()
	})
	return out, visited, nil
}

type queued struct {
	c     *object.Commit
	flags uint8
}

// commitQueue is a max-heap of commits by committer date.
type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	return q[i].c.Committer.When.After(q[j].c.Committer.When)
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
