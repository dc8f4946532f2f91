package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Mallory is someone who can push to a memory's remote and uses the git CLI to push what
// reflect itself never writes: paths git refuses to stage (.GIT/config), symlinks, gitlinks,
// settings and learnings of any shape. She builds trees with git mktree, which checks no
// name, and never touches a work tree.
type Mallory struct {
	t    testing.TB
	Dir  string // her clone (bare: she needs no work tree)
	Name string
	Mail string
	tree string // the root tree Put built last; empty: the branch's
	// Branch is the branch she pushes (main unless a test wants another).
	Branch string
}

// NewMallory clones remote for Mallory.
func NewMallory(t testing.TB, remote string) *Mallory {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mallory.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", remote, dir).CombinedOutput(); err != nil {
		t.Fatalf("clone %s: %v\n%s", remote, err, out)
	}
	return &Mallory{t: t, Dir: dir, Name: "Mallory", Mail: "mallory@example.org", Branch: "main"}
}

// Git runs the git CLI in her clone as her, with stdin; a failure fails the test.
func (m *Mallory) Git(stdin string, args ...string) string {
	m.t.Helper()
	out, ok := m.run(stdin, args...)
	if !ok {
		m.t.Fatalf("git %v: %s", args, out)
	}
	return out
}

func (m *Mallory) run(stdin string, args ...string) (string, bool) {
	cmd := exec.Command("git", append([]string{"-C", m.Dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+m.Name, "GIT_AUTHOR_EMAIL="+m.Mail,
		"GIT_COMMITTER_NAME="+m.Name, "GIT_COMMITTER_EMAIL="+m.Mail)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		out = append(out, ee.Stderr...)
	}
	return strings.TrimSpace(string(out)), err == nil
}

// Put stages content at path with a mode (100644, 100755, 120000 for a symlink whose target
// is content, 160000 for a gitlink whose commit id is content) in the tree of her next
// commit.
func (m *Mallory) Put(mode, path, content string) {
	m.t.Helper()
	if m.tree == "" {
		if out, ok := m.run("", "rev-parse", "--verify", "-q", m.Branch+"^{tree}"); ok {
			m.tree = out
		} else {
			m.tree = m.Git("", "mktree") // an empty tree: a branch of her own
		}
	}
	typ, id := "blob", content
	if mode == "160000" {
		typ = "commit"
	} else {
		id = m.Git(content, "hash-object", "-w", "--stdin")
	}
	parts := strings.Split(path, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		var entries []string
		sub, ok := m.tree, true
		if i > 0 {
			sub, ok = m.run("", "rev-parse", "--verify", "-q", m.tree+":"+strings.Join(parts[:i], "/"))
		}
		if ok {
			for _, e := range strings.Split(m.Git("", "ls-tree", sub), "\n") {
				if e != "" && !strings.HasSuffix(e, "\t"+parts[i]) {
					entries = append(entries, e)
				}
			}
		}
		entries = append(entries, mode+" "+typ+" "+id+"\t"+parts[i])
		id = m.Git(strings.Join(entries, "\n")+"\n", "mktree")
		mode, typ = "040000", "tree"
	}
	m.tree = id
}

// Commit commits the staged tree on parents as name <email> and returns the commit.
func (m *Mallory) Commit(name, email, msg string, parents ...string) string {
	m.t.Helper()
	return m.CommitBy(name+" <"+email+">", name+" <"+email+">", msg, parents...)
}

// CommitBy commits the staged tree on parents with author and committer ("Name <email>")
// apart, as a squash or rebase merge, or a cherry-pick, writes them.
func (m *Mallory) CommitBy(author, committer, msg string, parents ...string) string {
	m.t.Helper()
	split := func(who string) (string, string) {
		name, email, _ := strings.Cut(who, " <")
		return name, strings.TrimSuffix(email, ">")
	}
	name, email := split(author)
	cname, cemail := split(committer)
	if m.tree == "" {
		m.tree = m.Git("", "rev-parse", m.Branch+"^{tree}")
	}
	args := []string{"-c", "user.name=" + name, "-c", "user.email=" + email, "commit-tree", m.tree, "-m", msg}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	cmd := exec.Command("git", append([]string{"-C", m.Dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email, "GIT_COMMITTER_NAME="+cname, "GIT_COMMITTER_EMAIL="+cemail)
	out, err := cmd.Output()
	if err != nil {
		m.t.Fatalf("commit-tree: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Push commits what she staged on top of her branch as herself, and pushes the branch.
func (m *Mallory) Push(msg string) string {
	m.t.Helper()
	var parents []string
	if tip, ok := m.run("", "rev-parse", "--verify", "-q", m.Branch); ok {
		parents = append(parents, tip)
	}
	return m.PushCommit(m.Commit(m.Name, m.Mail, msg, parents...))
}

// PushCommit moves her branch to commit and pushes it.
func (m *Mallory) PushCommit(commit string) string {
	m.t.Helper()
	m.Git("", "update-ref", "refs/heads/"+m.Branch, commit)
	m.Git("", "push", "-q", "origin", m.Branch)
	return commit
}

// Tip is her branch's commit.
func (m *Mallory) Tip() string { m.t.Helper(); return m.Git("", "rev-parse", m.Branch) }

// Pull moves her branch to the remote's (what laptops pushed since), dropping what she
// staged: her next Put builds on it.
func (m *Mallory) Pull() {
	m.t.Helper()
	m.Git("", "fetch", "-q", "origin", "+refs/heads/"+m.Branch+":refs/heads/"+m.Branch)
	m.tree = ""
}
