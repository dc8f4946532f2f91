package gitstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrTooLarge is a work-tree file over the size its reader allows.
var ErrTooLarge = errors.New("file too large")

// ReadWorkFile reads the file at path (slash-separated, relative to the memory's root) from
// the work tree, which holds what HEAD holds (a write renames its files into place before the
// ref moves, and recovery reconciles both), and returns its content and its blob id, as HEAD
// would name the same bytes. It goes through an os.Root, so no symbolic link leads it out of
// the memory, and reads only a regular file of at most max bytes (ErrTooLarge). A missing
// file is os.ErrNotExist. A hot path reads here what HEAD would give without loading the
// pack index: go-git decodes a pack's whole .idx on the first object read, 1.6 ms of a
// SessionStart hook at 10,000 learnings (a 700 KB .idx; perf) and ten times that at 100,000.
func (r *Repo) ReadWorkFile(path string, max int64) ([]byte, plumbing.Hash, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	defer root.Close()
	rel := filepath.FromSlash(path)
	fi, err := root.Lstat(rel)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if !fi.Mode().IsRegular() {
		return nil, plumbing.ZeroHash, fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, plumbing.ZeroHash, fmt.Errorf("%s: %w: %d bytes, over %d", path, ErrTooLarge, fi.Size(), max)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if int64(len(data)) > max {
		return nil, plumbing.ZeroHash, fmt.Errorf("%s: %w: over %d bytes", path, ErrTooLarge, max)
	}
	return data, plumbing.ComputeHash(plumbing.BlobObject, data), nil
}
