package recall

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/learnings"
)

// GitHead returns the branch and HEAD commit of the git repository containing dir, read from
// its files (no git process: a hook has milliseconds). Empty strings when there is none.
func GitHead(dir string) (branch, commit string) {
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

// Workspace is what recall knows of the directory an agent works in.
type Workspace struct {
	Project  string   // learnings project key (learnings.Global when there is no git)
	Branch   string   // current branch, "" when detached or none
	Subjects []string // subjects of the most recent commits, newest first
}

// ReadWorkspace describes dir: its project key, branch and (with subjects > 0) the
// subjects of its latest commits. It reads git's files; a missing or odd repository
// gives what could be read, never an error.
func ReadWorkspace(dir string, subjects int) Workspace {
	w := Workspace{Project: learnings.Global}
	if dir == "" {
		return w
	}
	if key, err := learnings.ProjectKey(dir); err == nil && key != "" {
		w.Project = key
	}
	branch, head := GitHead(dir)
	w.Branch = branch
	if subjects <= 0 || head == "" {
		return w
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return w
	}
	id := plumbing.NewHash(head)
	for len(w.Subjects) < subjects {
		c, err := repo.CommitObject(id)
		if err != nil {
			break
		}
		subject, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		if subject != "" && !strings.HasPrefix(subject, "Merge ") {
			w.Subjects = append(w.Subjects, subject)
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		id = c.ParentHashes[0]
	}
	return w
}
