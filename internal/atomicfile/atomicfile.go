// Package atomicfile replaces a file so that it survives a crash: a reader, or the machine
// after a power loss, finds the old content or the new, never a part and never nothing.
// The recipe is restic's: a temporary file in the target's directory, written and fsynced,
// renamed over the target, then the directory fsynced so the rename itself is on disk.
//
// It is the one way reflect writes a file that must survive a crash: settings, state that
// records progress, the write journal, the search index's CURRENT, the hosts' settings it
// installs into. Git objects and work-tree files are written otherwise, on purpose (see
// gitstore's pool.go).
//
// google/renameio (v2.0.2) was the candidate: it fsyncs the file but not the directory, its
// package does not build for Windows (reflect does), and without a temporary directory given
// it probes os.TempDir with two files and a rename on every write.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// Write replaces path with data, durably. The file gets mode perm exactly (the umask does
// not apply; the directory it is in does). The directory must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return named(path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		// without it a rename can reach the disk before the data: an empty file after a crash
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return named(path, err)
	}
	return SyncDir(dir)
}

// named gives an error of the write the target's name: the temporary file is a detail, and
// "open ~/.claude/.settings.json.tmp-123: permission denied" sends the user looking for a
// file that is not there.
func named(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: "write", Path: path, Err: err}
}

// SyncDir fsyncs a directory, so the names it holds (a rename, a new file) survive a crash.
// A file system that cannot sync a directory is not an error; on Windows, which cannot open
// a directory for writing, NTFS journals the rename itself.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	d.Close()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
