package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Limits on a path a tree may hold. A file system takes 255 bytes a name; reflect's own paths
// (learnings/<project key>/<id>.md, keys bounded by learnings) stay far below both.
const (
	maxNameBytes = 255
	maxPathBytes = 1024
)

// PathError is a path that reflect refuses to check out, with the rule it breaks.
type PathError struct {
	Path string
	Rule string
}

func (e *PathError) Error() string { return fmt.Sprintf("path %q: %s", e.Path, e.Rule) }

// VerifyPath checks a repository path the way git's verify_path does with core.protectNTFS
// and core.protectHFS on (git's defaults on Windows and macOS), so that what one laptop
// accepts every other can check out safely: no empty, "." or ".." component, no ".git" in
// any case or in the spellings that NTFS (".git.", ".git ", "git~1", ".git::$DATA") or HFS+
// (".g\u200cit": ignorable code points) turn into ".git", no backslash or other character
// Windows cannot hold, no reserved Windows device name (CON, aux.md, LPT1…), no component
// ending in a dot or a space, no over-long name or path, valid UTF-8.
func VerifyPath(p string) error {
	bad := func(rule string, args ...any) error { return &PathError{Path: p, Rule: fmt.Sprintf(rule, args...)} }
	switch {
	case p == "":
		return bad("empty")
	case len(p) > maxPathBytes:
		return bad("longer than %d bytes", maxPathBytes)
	case !utf8.ValidString(p):
		return bad("not valid UTF-8")
	case p[0] == '/':
		return bad("absolute")
	}
	for _, c := range strings.Split(p, "/") {
		if rule := componentRule(c); rule != "" {
			return bad("component %q: %s", c, rule)
		}
	}
	return nil
}

func componentRule(c string) string {
	switch {
	case c == "":
		return "empty (a doubled or trailing slash)"
	case c == "." || c == "..":
		return "a relative step"
	case len(c) > maxNameBytes:
		return fmt.Sprintf("longer than %d bytes", maxNameBytes)
	case IsDotGit(c):
		return "names git's own directory (.git in some spelling): git refuses it, and on macOS or Windows it would be the repository's configuration"
	}
	for _, r := range c {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`\:*?"<>|`, r) {
			return fmt.Sprintf("holds %q, which Windows cannot hold in a name", r)
		}
	}
	switch {
	case strings.HasSuffix(c, ".") || strings.HasSuffix(c, " "):
		return "ends in a dot or a space, which Windows drops (another name would alias it)"
	case IsDeviceName(c):
		return "a device name Windows reserves"
	}
	return ""
}

// IsDotGit reports whether a name is ".git" to git, NTFS or HFS+: ASCII case folded, HFS's
// ignorable code points removed, NTFS's trailing dots and spaces and stream suffix dropped,
// and NTFS's short name "git~1".
func IsDotGit(c string) bool {
	var b strings.Builder
	for _, r := range c {
		if hfsIgnorable(r) {
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	s := b.String()
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ". ")
	return s == ".git" || s == "git~1"
}

// hfsIgnorable lists the code points HFS+ ignores when it compares names (git's
// is_hfs_dotgit).
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// IsDeviceName reports whether Windows reserves a name for a device: CON, PRN, AUX, NUL,
// COM0–9, LPT0–9 (and their superscript-digit forms), CONIN$, CONOUT$, with or without an
// extension, in any case.
func IsDeviceName(c string) bool {
	base, _, _ := strings.Cut(c, ".")
	base = strings.ToLower(strings.TrimRight(base, " "))
	switch base {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(base) >= 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) {
		switch d := base[3:]; d {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// FileKind names a tree entry's mode for a person.
func FileKind(m filemode.FileMode) string {
	switch m {
	case filemode.Regular:
		return "file"
	case filemode.Executable:
		return "executable file"
	case filemode.Symlink:
		return "symbolic link"
	case filemode.Submodule:
		return "gitlink (submodule)"
	case filemode.Dir:
		return "directory"
	}
	return fmt.Sprintf("entry of mode %o", uint32(m))
}

// BlobSize returns the size of a blob without reading its content.
func (r *Repo) BlobSize(id plumbing.Hash) (int64, error) {
	o, err := r.storer.EncodedObject(plumbing.BlobObject, id)
	if err != nil {
		return 0, fmt.Errorf("blob %s: %w", id, err)
	}
	return o.Size(), nil
}

// A Problem is a file of HEAD that is not as HEAD says: its object cannot be read or does
// not hash to its id (Corrupt), or its work-tree file is deleted, unreadable or modified.
type Problem struct {
	Path    string
	Corrupt string // why the object is broken; "" when it reads back intact
	Work    string // deleted, unreadable or modified; "" when the work tree matches
}

// Verify reads every file back (Walk has read HEAD's commit and trees): each blob must hash
// to its id, and the work-tree file must hold the same bytes. It returns the files that are
// not as HEAD says.
func (r *Repo) Verify(files []File) []Problem {
	var out []Problem
	for _, f := range files {
		data, err := r.ReadBlob(f.ID)
		switch {
		case err != nil:
			out = append(out, Problem{Path: f.Path, Corrupt: err.Error()})
		case plumbing.ComputeHash(plumbing.BlobObject, data) != f.ID:
			out = append(out, Problem{Path: f.Path, Corrupt: fmt.Sprintf("blob %s holds content that hashes to %s", f.ID, plumbing.ComputeHash(plumbing.BlobObject, data))})
		default:
			if what := workDiffers(filepath.Join(r.root, filepath.FromSlash(f.Path)), data); what != "" {
				out = append(out, Problem{Path: f.Path, Work: what})
			}
		}
	}
	return out
}

// workDiffers says how the work-tree file at path differs from a blob of HEAD ("" when it
// does not).
func workDiffers(path string, blob []byte) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "deleted"
	}
	var disk []byte
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		disk = []byte(target)
	} else if disk, err = os.ReadFile(path); err != nil {
		return "unreadable"
	}
	if !bytes.Equal(disk, blob) {
		return "modified"
	}
	return ""
}
