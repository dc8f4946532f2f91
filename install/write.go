package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadOnlyError is a configuration file without a write permission bit: the user made it
// read-only, and an atomic write (a rename over it) would change it regardless of its mode.
type ReadOnlyError struct{ Path string }

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%s is read-only; nothing was changed (make it writable to let reflect change it)", e.Path)
}

// checkWritable refuses a file whose mode holds no write bit. The mode is what counts, not
// access(2): root may write any file, but a settings file made read-only on purpose is still
// not for reflect to change.
func checkWritable(path string, mode fs.FileMode) error {
	if mode.Perm()&0o222 == 0 {
		return &ReadOnlyError{Path: path}
	}
	return nil
}

// maxLinks bounds the symbolic links resolve follows, as Linux does (40).
const maxLinks = 40

// resolve returns the file path names once symbolic links are followed: dotfiles setups link
// ~/.claude/settings.json to a file in their repository, and a rename over the link would
// replace it with a regular file, leaving the repository's file as it was. A link whose
// target does not exist yet resolves to that target, so a write creates it and the link
// stays. A path that is no link is returned as it is.
func resolve(path string) (string, error) {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p, nil
	}
	for range maxLinks { // a missing file, or a link to one

		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}
