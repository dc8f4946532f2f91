package hooks

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// gitInfo returns the branch and HEAD commit of the git repository containing dir, read from
// its files (no git process: a hook has milliseconds). Empty strings when there is none.
func gitInfo(dir string) (branch, commit string) {
	if dir == "" {
		return "", ""
	}
	gitDir, common := "", ""
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				gitDir = p
			} else if data, err := os.ReadFile(p); err == nil {
				if g, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					gitDir = g
				}
			}
			break
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
	if gitDir == "" {
		return "", ""
	}
	common = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", ""
	}
	h := strings.TrimSpace(string(head))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return "", h // detached
	}
	branch = strings.TrimPrefix(ref, "refs/heads/")
	if data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
		return branch, strings.TrimSpace(string(data))
	}
	if f, err := os.Open(filepath.Join(common, "packed-refs")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if id, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
				return branch, id
			}
		}
	}
	return branch, ""
}
