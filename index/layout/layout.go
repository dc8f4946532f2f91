// Package layout owns where a repository's search index lives on disk: the directory of its
// generations and the CURRENT file naming the live one. It imports no search engine, so that
// the lean reflect (which hands searching to reflect-engine) can ask whether an index exists
// before it starts a process to catch it up.
package layout

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
)

// Dir is the directory of r's index generations: .git/reflect/index.
func Dir(r *gitstore.Repo) string { return filepath.Join(r.StateDir(), "index") }

// Current is the directory of the live generation of r's index, or "" when there is none.
func Current(r *gitstore.Repo) string {
	dir := Dir(r)
	b, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
	name := strings.TrimSpace(string(b))
	if err != nil || name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return filepath.Join(dir, name)
}

// Exists reports whether r has a search index (current or not).
func Exists(r *gitstore.Repo) bool { return Current(r) != "" }
