package redact

import (
	"os"
	"os/user"
	"regexp"
	"strings"
	"sync"

	"github.com/reflect-memory/reflect/internal/lazyregexp"
)

// A path that holds the user's home directory names the person (/Users/alice/…), and git
// history is forever and synced to every remote. String writes the home directory as ~ and
// the login name, where it is a segment of a path, as <user>, in every form the hosts write
// a path: as it is, with Windows separators, and as Claude Code encodes a project directory
// into a folder name (every character that is not a letter or a digit as '-':
// /Users/alice/src/app → -Users-alice-src-app).

// personal is what names this machine's user in a path.
type personal struct {
	homes   []string       // the home directory as a path, with either separator
	encoded string         // the home directory as Claude Code encodes it in a folder name
	login   string         // the login name
	user    *regexp.Regexp // the login name as a path segment; nil when too short to tell
}

var (
	personalMu   sync.Mutex
	personalHome string
	personalVal  *personal
)

// current returns the personal forms of this process's user, worked out again when $HOME
// changes (tests give every case a home of its own).
func current() *personal {
	home, _ := os.UserHomeDir()
	personalMu.Lock()
	defer personalMu.Unlock()
	if personalVal != nil && home == personalHome {
		return personalVal
	}
	login := ""
	if u, err := user.Current(); err == nil {
		login = u.Username
		if i := strings.LastIndexAny(login, `\`); i >= 0 { // DOMAIN\name on Windows
			login = login[i+1:]
		}
	}
	personalHome, personalVal = home, newPersonal(home, login)
	return personalVal
}

var nonAlnum = lazyregexp.New(`[^A-Za-z0-9]`)

// newPersonal works out the forms of home and login. A home of "/" or one segment
// (containers: /root) is still a home; a login under three characters is not replaced
// (it would match ordinary words).
func newPersonal(home, login string) *personal {
	p := &personal{}
	home = strings.TrimRight(home, `/\`)
	if len(home) > 1 {
		for _, f := range []string{home, strings.ReplaceAll(home, `/`, `\`), strings.ReplaceAll(home, `\`, `/`)} {
			if !contains(p.homes, f) {
				p.homes = append(p.homes, f)
			}
		}
		p.encoded = nonAlnum.ReplaceAllString(home, "-")
	}
	if len(login) >= 3 {
		p.login = login
		p.user = regexp.MustCompile(`(^|[/\\])` + regexp.QuoteMeta(login) + `([/\\]|$)`)
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Personal writes the user's home directory as ~ and their login name, as a path segment, as
// <user>. String applies it; it is exported for text that must lose personal paths but holds
// no secret to look for.
func Personal(s string) string { return current().apply(s) }

func (p *personal) apply(s string) string {
	for _, h := range p.homes {
		if strings.Contains(s, h) {
			s = replaceHome(s, h, false)
		}
	}
	if p.encoded != "" && strings.Contains(s, p.encoded) {
		s = replaceHome(s, p.encoded, true)
	}
	if p.user != nil && strings.Contains(s, p.login) && p.user.MatchString(s) {
		s = p.user.ReplaceAllString(s, "${1}<user>${2}")
		// a segment replaced twice (a/alice/alice) shares its separator: once more
		s = p.user.ReplaceAllString(s, "${1}<user>${2}")
	}
	return s
}

// replaceHome replaces h where it is a path's whole start: not inside another path or word
// before it (mysql://root, generate-root), not continued by a name after it (/home/alicia).
// An encoded home is a folder name's start, after a separator or at the text's start, and
// goes on with '-'.
func replaceHome(s, h string, encoded bool) string {
	var b strings.Builder
	for {
		i := strings.Index(s, h)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(h)
		var before, after byte
		if i > 0 {
			before = s[i-1]
		}
		if end < len(s) {
			after = s[end]
		}
		ok := !isNameByte(before) && before != '-'
		if encoded {
			ok = ok && (after == 0 || after == '-' || !isNameByte(after))
		} else {
			ok = ok && before != '/' && before != '\\' && after != '-' && !isNameByte(after)
		}
		if !ok {
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString("~")
		s = s[end:]
	}
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c >= 0x80
}
