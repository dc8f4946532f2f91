package learnings

import (
	"crypto/rand"
	"path"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

const idPrefix = "lrn-"

// NewID returns a new learning id, "lrn-" followed by a ULID whose time part
// is t (to the millisecond) and whose random part comes from crypto/rand.
func NewID(t time.Time) string {
	var ms uint64
	if t.After(time.UnixMilli(0)) {
		ms = min(ulid.Timestamp(t), ulid.MaxTime())
	}
	return idPrefix + ulid.MustNew(ms, rand.Reader).String()
}

// ValidID reports whether s is "lrn-" followed by a ULID in its canonical,
// upper-case form. Ids name files, so two spellings of one id are not allowed.
func ValidID(s string) bool {
	u, ok := strings.CutPrefix(s, idPrefix)
	if !ok {
		return false
	}
	id, err := ulid.ParseStrict(u)
	return err == nil && id.String() == u
}

// PathFor returns the path of a learning file in the knowledge repository:
// learnings/<project>/<id>.md, with forward slashes.
func PathFor(project, id string) string {
	return "learnings/" + project + "/" + id + ".md"
}

// IDFromPath returns the id of the learning file at p, a path of the form
// learnings/<project>/<id>.md (with either slash, and possibly with a
// directory in front), and whether p is one.
func IDFromPath(p string) (id string, ok bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	dir, name := path.Split(p)
	id, ok = strings.CutSuffix(name, ".md")
	if !ok || !ValidID(id) {
		return "", false
	}
	dir = "/" + dir
	i := strings.Index(dir, "/learnings/")
	if i < 0 || len(dir) == i+len("/learnings/") { // no learnings/ or no project in between
		return "", false
	}
	return id, true
}

// placeOf returns the id and the project a repository path gives a learning:
// learnings/<project>/<id>.md, relative to the repository's root.
func placeOf(p string) (id, project string, ok bool) {
	rest, ok := strings.CutPrefix(p, Dir+"/")
	if !ok {
		return "", "", false
	}
	dir, name := path.Split(rest)
	id, ok = strings.CutSuffix(name, ".md")
	if !ok || !ValidID(id) || dir == "" {
		return "", "", false
	}
	return id, strings.TrimSuffix(dir, "/"), true
}
