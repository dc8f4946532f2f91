package learnings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/gcfg"
)

// ProjectKey returns the project key of directory dir (or of a file's
// directory): its git repository's
// remote (origin, else the alphabetically first remote with a url) normalised
// by NormalizeRemote; local/<name of the work tree> when there is no remote;
// Global, with a nil error, when dir is in no git repository. Linked worktrees
// and submodules are followed through their .git files.
//
// It reads only the .git entries and the repository's config file (no git
// process), so it costs well under a millisecond.
func ProjectKey(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project key of %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project key: %w", err)
	}
	if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	root, gitDir, err := findRepo(abs)
	if err != nil {
		return "", fmt.Errorf("project key of %s: %w", dir, err)
	}
	if root == "" {
		return Global, nil
	}
	common, name := gitDir, filepath.Base(root)
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		// A linked worktree: config and remotes live in the main repository,
		// and the project is named after it, not after the worktree.
		common = resolve(gitDir, string(bytes.TrimSpace(b)))
		name = filepath.Base(common)
		if name == ".git" {
			name = filepath.Base(filepath.Dir(common))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("project key of %s: %w", dir, err)
	}
	remote, err := remoteURL(filepath.Join(common, "config"))
	if err != nil {
		return "", fmt.Errorf("project key of %s: %w", dir, err)
	}
	if remote == "" {
		return localKey(name), nil
	}
	key, err := NormalizeRemote(remote)
	if err != nil {
		return "", fmt.Errorf("project key of %s: %w", dir, err)
	}
	return key, nil
}

// findRepo walks up from dir to the work tree root that holds a .git entry
// and returns it with the git directory, or empty strings when there is none.
func findRepo(dir string) (root, gitDir string, err error) {
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

// remoteURL returns the url of remote origin in a git config file, else of
// the alphabetically first remote that has one, else "".
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

// NormalizeRemote turns a git remote URL into a project key, so that every
// spelling of one repository gives one key: git@github.com:acme/auth.git,
// ssh://git@github.com:22/acme/auth.git and https://user:token@GitHub.com/acme/auth/
// all give github.com/acme/auth. The host is lower-cased; user, password,
// port, query, a trailing ".git" and slashes are dropped; nested groups
// (gitlab.com/group/sub/project) are kept. Local paths and file:// URLs give
// local/<name of the repository>. Every segment is normalised and encoded so
// that the key is a safe path and no two projects share it (projectkey.go).
func NormalizeRemote(remote string) (string, error) {
	s := strings.TrimSpace(remote)
	if i := strings.Index(s, "::"); i > 0 && !strings.ContainsAny(s[:i], ":/") {
		s = s[i+2:] // a remote helper: "<transport>::<address>"
	}
	var host, p string
	scheme, rest, isURL := strings.Cut(s, "://")
	switch {
	case s == "":
		return "", errors.New("normalize remote: empty URL")
	case isURL && strings.EqualFold(scheme, "file"):
		return localRemote(remote, rest)
	case isURL:
		if !validScheme(scheme) {
			return "", fmt.Errorf("normalize remote %q: bad scheme %q", remote, scheme)
		}
		rest, _, _ = strings.Cut(rest, "#")
		rest, _, _ = strings.Cut(rest, "?")
		host, p, _ = strings.Cut(rest, "/")
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
		if h, port, ok := strings.Cut(host, ":"); ok {
			if strings.Trim(port, "0123456789") != "" {
				return "", fmt.Errorf("normalize remote %q: bad port %q", remote, port)
			}
			host = h
		}
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
	case isLocalPath(s):
		return localRemote(remote, s)
	default: // scp-like: [user@]host:path
		var ok bool
		host, p, ok = strings.Cut(s, ":")
		if !ok {
			return "", fmt.Errorf("normalize remote %q: not a URL, a host:path or a path", remote)
		}
		if i := strings.LastIndexByte(host, '@'); i >= 0 {
			host = host[i+1:]
		}
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if !validHost(host) {
		return "", fmt.Errorf("normalize remote %q: bad host %q", remote, host)
	}
	segs, err := repoPath(p)
	if err != nil {
		return "", fmt.Errorf("normalize remote %q: %w", remote, err)
	}
	key := remoteKey(encodeSegment(normalizeHost(host)), segs)
	if err := ValidProjectKey(key); err != nil {
		return "", fmt.Errorf("normalize remote %q: %w", remote, err)
	}
	return key, nil
}

// remoteKey joins a host and a path into a key of at most MaxProjectKeyLen bytes: a longer
// path becomes one segment, its segments joined by %2F (so that a/b-c and a-b/c stay
// apart), cut with a hash by cutSegment.
func remoteKey(host string, segs []string) string {
	key := host + "/" + strings.Join(segs, "/")
	if len(key) <= MaxProjectKeyLen {
		return key
	}
	return host + "/" + cutSegment(strings.Join(segs, "%2F"), min(MaxSegmentLen, MaxProjectKeyLen-len(host)-1))
}

// validHost: a host as a remote URL gives it, lower-cased: ASCII letters, digits, dots,
// hyphens and underscores, not first a dot, hyphen or underscore; or other code points
// (an internationalised name), which the key encodes.
func validHost(h string) bool {
	if h == "" || strings.IndexByte("._-", h[0]) >= 0 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; c < 0x80 && !validKeyChar(c) {
			return false
		}
	}
	return true
}

func validScheme(s string) bool {
	return s != "" && isLetter(s[0]) && strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz0123456789+.-") == ""
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isLocalPath reports whether a remote without "://" is a path, as git
// decides: a slash before any colon, or a Windows drive. A word with neither
// is rejected rather than taken as a relative path.
func isLocalPath(s string) bool {
	if len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
		return true
	}
	slash := strings.IndexAny(s, `/\`)
	colon := strings.IndexByte(s, ':')
	return s == "." || s == ".." || strings.HasPrefix(s, "~") || slash >= 0 && (colon < 0 || slash < colon)
}

// repoPath splits the path of a remote into key segments: no empty or "."
// segments, no trailing ".git", each normalised and encoded (projectkey.go).
func repoPath(p string) ([]string, error) {
	var segs []string
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, errors.New(`".." in the repository path`)
		}
		segs = append(segs, normalizeSegment(seg))
	}
	for len(segs) > 0 {
		last := strings.TrimSuffix(segs[len(segs)-1], ".git")
		if last != "" {
			segs[len(segs)-1] = last
			for i, s := range segs {
				segs[i] = encodeSegment(s)
			}
			return segs, nil
		}
		segs = segs[:len(segs)-1] // ".../repo/.git"
	}
	return nil, errors.New("no repository path")
}

// localRemote returns the key of a remote that is a path on this machine.
func localRemote(remote, p string) (string, error) {
	fields := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	for len(fields) > 0 {
		name := strings.TrimSuffix(fields[len(fields)-1], ".git")
		if name != "" && name != "." && name != ".." && name != "~" {
			return localKey(name), nil
		}
		fields = fields[:len(fields)-1]
	}
	return "", fmt.Errorf("normalize remote %q: no repository name in the path", remote)
}

// localKey returns local/<name>, the name lower-cased, normalised, without dots and
// hyphens at its ends, and encoded (projectkey.go).
func localKey(name string) string {
	name = strings.Trim(normalizeSegment(strings.ToLower(name)), ".-")
	if name == "" {
		name = "unnamed"
	}
	return "local/" + encodeSegment(name)
}
