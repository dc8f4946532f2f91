package gitindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Tracked is what a git index records of one path at stage 0: its blob and the stat data of
// the work-tree file when it was last staged or refreshed.
type Tracked struct {
	ID   plumbing.Hash
	stat [10]uint32
}

// Unchanged is git's test for not reading a file again: fi, an Lstat of the work-tree file,
// has the ctime, mtime, inode and size the index recorded. Racy entries (modified in the
// same second the index was written, see Tracked.Racy) must be read anyway.
func (t Tracked) Unchanged(fi os.FileInfo) bool {
	var now Entry
	fillStat(&now, fi)
	for _, k := range []int{0, 1, 2, 3, 5, 9} {
		if t.stat[k] != now.stat[k] {
			return false
		}
	}
	return true
}

// Racy reports whether the file may have changed after it was staged without its stat data
// showing it: its recorded mtime is not before the index file's own (git's racy-git rule).
func (t Tracked) Racy(indexMTime time.Time) bool {
	return int64(t.stat[2]) >= indexMTime.Unix()
}

// FindTracked reads gitDir's index (and its shared index when split) once and returns the
// stage-0 entries of paths, with the index file's modification time. It scans the entries
// in place without building them: a project's index can hold 100,000 paths and a recall
// looks for a handful. A missing index finds nothing.
func FindTracked(gitDir string, paths []string) (map[string]Tracked, time.Time, error) {
	out := map[string]Tracked{}
	name := filepath.Join(gitDir, "index")
	fi, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return out, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read git index: %w", err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read git index: %w", err)
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	r, err := newEntryReader(data)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read git index: %w", err)
	}
	front := make([]Tracked, 0, 8) // the first entries, which a split index's replacements are
	for r.i < r.count {
		fixed, _, n, err := r.next()
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("read git index: %w", err)
		}
		t := tracked(fixed)
		if len(front) < cap(front) {
			front = append(front, t)
		}
		if stage(fixed) == 0 && want[string(n)] {
			out[string(n)] = t
		}
	}
	link, err := findLink(data, r.off, r.count)
	if err != nil || link == nil {
		return out, fi.ModTime(), err
	}
	// A split index: the entries above were the front's; a path not there is looked up in
	// the shared index, and a shared entry the front replaces takes the replacement's data.
	replaced := map[uint32]int{}
	for i, pos := range link.replaced {
		replaced[pos] = i
	}
	if len(link.replaced) > len(front) {
		rd, _ := newEntryReader(data) // read again: the replacements beyond the first few
		front = front[:0]
		for rd.i < len(link.replaced) {
			fixed, _, _, err := rd.next()
			if err != nil {
				return nil, time.Time{}, fmt.Errorf("read git index: %w", err)
			}
			front = append(front, tracked(fixed))
		}
	}
	s := &sharedIndex{path: filepath.Join(gitDir, "sharedindex."+link.shared.String()), del: link.del}
	if err := s.load(); err != nil {
		return nil, time.Time{}, err
	}
	sr, err := newEntryReader(s.data)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read shared index: %w", err)
	}
	for sr.i < sr.count {
		pos := uint32(sr.i)
		fixed, _, n, err := sr.next()
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("read shared index: %w", err)
		}
		if !want[string(n)] || s.deleted[pos] {
			continue
		}
		if _, ok := out[string(n)]; ok {
			continue // added in the front
		}
		t := tracked(fixed)
		st := stage(fixed)
		if i, ok := replaced[pos]; ok {
			t = front[i]
		}
		if st == 0 {
			out[string(n)] = t
		}
	}
	return out, fi.ModTime(), nil
}

func tracked(fixed []byte) Tracked {
	var t Tracked
	for k := range t.stat {
		t.stat[k] = binary.BigEndian.Uint32(fixed[4*k:])
	}
	copy(t.ID[:], fixed[40:60])
	return t
}

func stage(fixed []byte) int {
	return int(binary.BigEndian.Uint16(fixed[60:])&flagStageMask) >> 12
}

// findLink reads the extensions after the entries (from off) for a split index's link.
func findLink(data []byte, off, count int) (*splitLink, error) {
	end := len(data) - 20
	for off+8 <= end {
		sig := string(data[off : off+4])
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		if size < 0 || off+8+size > end {
			return nil, fmt.Errorf("read git index: %w: extension %q overruns the file", errIndexFormat, sig)
		}
		if sig == "link" {
			l, err := parseLink(data[off+8:off+8+size], count)
			if err != nil {
				return nil, fmt.Errorf("read git index: %w", err)
			}
			return l, nil
		}
		off += 8 + size
	}
	return nil, nil
}
