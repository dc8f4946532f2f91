package learnings

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

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
	case IsLocalPath(s):
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

// IsDrivePath reports whether s starts with a Windows drive: a letter, a colon, a slash.
func IsDrivePath(s string) bool {
	return len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
}

// IsLocalPath reports whether a remote without "://" is a path, as git
// decides: a slash before any colon, or a Windows drive. A word with neither
// is rejected rather than taken as a relative path.
func IsLocalPath(s string) bool {
	if IsDrivePath(s) {
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

// LocalKey is the key of a repository without a remote: local/<name>.
func LocalKey(name string) string { return localKey(name) }

// localKey returns local/<name>, the name lower-cased, normalised, without dots and
// hyphens at its ends, and encoded (projectkey.go).
func localKey(name string) string {
	name = strings.Trim(normalizeSegment(strings.ToLower(name)), ".-")
	if name == "" {
		name = "unnamed"
	}
	return "local/" + encodeSegment(name)
}
