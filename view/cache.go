package view

import (
	"errors"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// cache holds HEAD's learnings parsed, by path and blob: a page after a change reparses only
// the files whose blob changed. Parsing all of 10,000 learnings takes most of a second
// (learnings.LoadAll), which the list page must not pay on every request.
type cache struct {
	head   plumbing.Hash
	files  map[string]cached // by path
	all    []*learnings.Learning
	byID   map[string]*learnings.Learning
	blobOf map[string]plumbing.Hash // by id
	bad    []error
	// disk is the previous run's cache (diskcache.go), read at the first load; dirty says
	// a file was parsed since it was last written.
	disk  map[string]*learnings.Learning
	dirty bool
}

type cached struct {
	blob plumbing.Hash
	l    *learnings.Learning
	err  error
}

func newCache() *cache { return &cache{files: map[string]cached{}} }

// load brings the cache to r's HEAD.
func (c *cache) load(r *gitstore.Repo) error {
	head, err := r.Head()
	if err != nil {
		return err
	}
	if head == c.head && c.byID != nil {
		return nil
	}
	files, err := r.Walk(learnings.Dir)
	if err != nil {
		return err
	}
	if c.disk == nil {
		c.disk = readDisk(r)
	}
	next := make(map[string]cached, len(files))
	type job struct {
		path string
		blob plumbing.Hash
		raw  []byte
	}
	// the repository is read on this goroutine (gitstore's caches are not shared safely);
	// parsing, most of the cost (yaml), runs on every core as the blobs arrive: 10,000
	// learnings took 1.1 s on one core, and reading them all before parsing any left the
	// parsers idle for the read's 110 ms of CPU (a fifth of a first load, CPU profile).
	// jobs[i] is written before i is sent, parsed[i] by the one worker that received it.
	jobs := make([]job, len(files))
	parsed := make([]cached, len(files))
	n := 0
	work := make(chan int, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				l, err := learnings.Parse(jobs[i].path, jobs[i].raw)
				parsed[i] = cached{blob: jobs[i].blob, l: l, err: err}
			}
		}()
	}
	stop := func() {
		close(work)
		wg.Wait()
	}
	for _, f := range files {
		if _, ok := learnings.IDFromPath(f.Path); !ok {
			continue
		}
		if old, ok := c.files[f.Path]; ok && old.blob == f.ID {
			next[f.Path] = old
			continue
		}
		if l, ok := c.disk[diskKey(f.Path, f.ID)]; ok {
			next[f.Path] = cached{blob: f.ID, l: l}
			continue
		}
		c.dirty = true
		// read once: learnings.Parse refuses a file over learnings.MaxFileBytes with the
		// message learnings.Read gives. Asking its size first (gitstore.BlobSize, go-git's
		// EncodedObject) inflated every blob a second time: 0.37 s of a 1.23 s first fill at
		// 10,000 learnings, half of them loose objects (CPU profile); go-git reads the whole
		// object to size it, so it spared no memory either.
		raw, err := r.ReadBlob(f.ID)
		if err != nil {
			stop()
			return err
		}
		jobs[n] = job{f.Path, f.ID, raw}
		work <- n
		n++
	}
	stop()
	jobs, parsed = jobs[:n], parsed[:n]
	undated := map[string]*learnings.Learning{}
	for i, p := range parsed {
		var fe *learnings.FieldError
		if p.err != nil && !errors.As(p.err, &fe) {
			return p.err
		}
		if p.err == nil && (p.l.Created.IsZero() || p.l.Updated.IsZero()) {
			undated[jobs[i].path] = p.l
		}
		next[jobs[i].path] = p
	}
	learnings.DatesFromHistory(r, undated)
	c.disk = map[string]*learnings.Learning{} // what it held that HEAD still has is in next
	c.files, c.head = next, head
	c.all = c.all[:0]
	c.bad = c.bad[:0]
	c.byID = make(map[string]*learnings.Learning, len(next))
	c.blobOf = make(map[string]plumbing.Hash, len(next))
	for _, f := range next {
		if f.err != nil {
			c.bad = append(c.bad, f.err)
			continue
		}
		c.all = append(c.all, f.l)
		c.byID[f.l.ID] = f.l
		c.blobOf[f.l.ID] = f.blob
	}
	sort.Slice(c.all, func(i, j int) bool { return c.all[i].ID < c.all[j].ID })
	sort.Slice(c.bad, func(i, j int) bool { return c.bad[i].Error() < c.bad[j].Error() })
	return nil
}

// resolve finds a learning by its id or a unique part of it, as the CLI does.
func (c *cache) resolve(id string) (*learnings.Learning, error) {
	if l, ok := c.byID[id]; ok {
		return l, nil
	}
	refs := make([]learnings.Ref, 0, len(c.all))
	for _, l := range c.all {
		refs = append(refs, learnings.Ref{ID: l.ID, Path: l.RelPath(), Blob: c.blobOf[l.ID]})
	}
	ref, err := learnings.Resolve(refs, strings.TrimSpace(id))
	if err != nil {
		return nil, err
	}
	return c.byID[ref.ID], nil
}
