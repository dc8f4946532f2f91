package gitindex

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t",
		"GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// gitRepo makes a repository of n files over 20 directories, one of them executable,
// committed, with its index in version and form as git writes them. After the first commit
// it changes files again (5 modified, 3 deleted, 4 added), so a split index has replaced,
// deleted and added entries in its front.
func gitRepo(t testing.TB, n, version int, split, skipWorktree, conflict bool) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	if split {
		git(t, dir, "config", "core.splitIndex", "true")
	}
	write := func(p, content string, perm os.FileMode) {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(content), perm); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		write(fmt.Sprintf("learnings/p%02d/lrn-%03d.md", i%20, i), fmt.Sprintf("learning %d\n", i), 0o644)
	}
	write("bin/run.sh", "#!/bin/sh\n", 0o755)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "seed")
	git(t, dir, "update-index", "--index-version", fmt.Sprint(version))
	if split {
		git(t, dir, "update-index", "--split-index")
	}
	for i := 0; i < 5; i++ {
		write(fmt.Sprintf("learnings/p%02d/lrn-%03d.md", (10+i)%20, 10+i), "edited\n", 0o644)
	}
	for i := 0; i < 3; i++ {
		os.Remove(filepath.Join(dir, fmt.Sprintf("learnings/p%02d/lrn-%03d.md", (20+i)%20, 20+i)))
	}
	for i := 0; i < 4; i++ {
		write(fmt.Sprintf("learnings/new/lrn-%d.md", i), "new\n", 0o644)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "change")
	if skipWorktree {
		git(t, dir, "update-index", "--skip-worktree", "learnings/p00/lrn-000.md")
	}
	if conflict {
		p := "learnings/p01/lrn-001.md"
		var info strings.Builder
		fmt.Fprintf(&info, "0 %s\t%s\n", plumbing.ZeroHash, p)
		for stage := 1; stage <= 3; stage++ {
			blob := hashObject(t, dir, fmt.Sprintf("side %d\n", stage))
			fmt.Fprintf(&info, "100644 %s %d\t%s\n", blob, stage, p)
		}
		cmd := exec.Command("git", "update-index", "--index-info")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(info.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git update-index --index-info: %v\n%s", err, out)
		}
	}
	return dir
}

func hashObject(t testing.TB, dir, content string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// all returns every entry the index stands for, its shared index resolved.
func all(t *testing.T, ix *File) []Entry {
	t.Helper()
	if ix.link == nil {
		return ix.entries
	}
	replaced := map[uint32]Entry{}
	for i, pos := range ix.link.replaced {
		replaced[pos] = ix.entries[i]
	}
	es, err := ix.shared().materialize(replaced, ix.entries[len(ix.link.replaced):])
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// stageListing is what `git ls-files --stage` prints for entries.
func stageListing(es []Entry) string {
	var b strings.Builder
	for i := range es {
		e := &es[i]
		fmt.Fprintf(&b, "%06o %s %d\t%s\n", e.stat[6], e.hash, e.stage(), e.name)
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeIndex(t *testing.T, dir string, data []byte) {
	t.Helper()
	tmp := filepath.Join(dir, ".git", "index.test")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ".git", "index")); err != nil {
		t.Fatal(err)
	}
}

// options writes shared indexes with os.WriteFile and counts them in *shared.
func options(split bool, reshareAt int, shared *int) Options {
	return Options{Split: split, ReshareAt: reshareAt, WriteShared: func(path string, data []byte) error {
		*shared++
		return os.WriteFile(path, data, 0o644)
	}}
}

func sortedLines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.Split(s, "\n")
	sort.Strings(l)
	return l
}

// TestRoundTripWithGit reads indexes the git CLI wrote (versions 2, 3 and 4, flat and split,
// with skip-worktree and conflict entries), compares them with `git ls-files --stage`, writes
// them back unchanged and changed, and has git read the result.
func TestRoundTripWithGit(t *testing.T) {
	cases := []struct {
		name                          string
		version                       int
		split, skipWorktree, conflict bool
	}{
		{name: "v2", version: 2},
		{name: "v2/split", version: 2, split: true},
		{name: "v3", version: 3, skipWorktree: true},
		{name: "v3/split", version: 3, split: true, skipWorktree: true},
		{name: "v4", version: 4},
		{name: "v4/split", version: 4, split: true},
		{name: "v2/conflict", version: 2, conflict: true},
		{name: "v4/split/conflict", version: 4, split: true, conflict: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := gitRepo(t, 400, c.version, c.split, c.skipWorktree, c.conflict)
			gitDir := filepath.Join(dir, ".git")
			ix, err := Read(gitDir)
			if err != nil {
				t.Fatal(err)
			}
			if ix.version != uint32(c.version) {
				t.Fatalf("version %d, git wrote %d", ix.version, c.version)
			}
			if c.split != (ix.link != nil) {
				t.Fatalf("split = %v, want %v", ix.link != nil, c.split)
			}
			if c.split && (ix.link.del.ones == 0 || len(ix.link.replaced) == 0 || len(ix.entries) == len(ix.link.replaced)) {
				t.Fatalf("git's front index lacks deleted, replaced or added entries: %d, %d, %d",
					ix.link.del.ones, len(ix.link.replaced), len(ix.entries)-len(ix.link.replaced))
			}
			want := git(t, dir, "ls-files", "--stage")
			if got := stageListing(all(t, ix)); got != want {
				t.Fatalf("read:\n%s\ngit ls-files --stage:\n%s", got, want)
			}
			if n := strings.Count(want, "\n") + 1; n < 400 {
				t.Fatalf("only %d entries", n)
			}

			// Lookup finds every entry git lists, and nothing for a path it does not
			var paths []string
			var hits []string
			for _, l := range strings.Split(want, "\n") {
				f := strings.Fields(l)
				hits = append(hits, f[1]+" "+f[2]+"\t"+f[3])
				if len(paths) == 0 || paths[len(paths)-1] != f[3] {
					paths = append(paths, f[3])
				}
			}
			paths = append(paths, "learnings/p00/lrn-020.md", "absent.md")
			var got []string
			err = ix.Lookup(paths, func(string) bool { return true }, func(p string, id plumbing.Hash, stage int) error {
				got = append(got, fmt.Sprintf("%s %d\t%s", id, stage, p))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			sort.Strings(hits)
			if strings.Join(got, "\n") != strings.Join(hits, "\n") {
				t.Fatalf("Lookup:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(hits, "\n"))
			}

			// written back unchanged, git reads the same index and the same status
			verbose := git(t, dir, "ls-files", "--stage", "-v")
			status := git(t, dir, "status", "--porcelain")
			if !c.conflict && status != "" {
				t.Fatalf("git status before the round trip:\n%s", status)
			}
			ix, err = Read(gitDir)
			if err != nil {
				t.Fatal(err)
			}
			var shared int
			data, err := ix.Update(nil, func(string) bool { return true }, options(c.split, DefaultReshareAt, &shared))
			if err != nil {
				t.Fatal(err)
			}
			writeIndex(t, dir, data)
			if got := git(t, dir, "ls-files", "--stage", "-v"); got != verbose {
				t.Fatalf("after writing back, git ls-files --stage -v:\n%s\nbefore:\n%s", got, verbose)
			}
			if got := git(t, dir, "status", "--porcelain"); got != status {
				t.Fatalf("after writing back, git status:\n%s\nbefore:\n%s", got, status)
			}
			git(t, dir, "fsck", "--strict", "--no-progress")

			if shared != 0 {
				t.Fatalf("%d shared indexes written back", shared)
			}
			// changed twice: once in the form git left, once re-shared past a low threshold
			for round, reshareAt := range []int{DefaultReshareAt, 10} {
				change(t, dir, round, c.split || reshareAt < DefaultReshareAt, reshareAt, !c.conflict)
			}
		})
	}
}

// change modifies, adds and deletes a file through Update as gitstore does (file written,
// blob stored, entry from its stat data) and checks that git sees exactly those changes
// staged and a work tree that matches the index; then commits them with git.
func change(t *testing.T, dir string, round int, split bool, reshareAt int, commit bool) {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
	before := git(t, dir, "ls-files", "--stage")
	cachedBefore := git(t, dir, "diff", "--cached", "--name-status")
	filesBefore := git(t, dir, "diff-files", "--name-only")
	modified := fmt.Sprintf("learnings/p%02d/lrn-%03d.md", (30+round)%20, 30+round)
	added := fmt.Sprintf("learnings/round%d/added.md", round)
	deleted := fmt.Sprintf("learnings/p%02d/lrn-%03d.md", (40+round)%20, 40+round)

	updates := map[string]*Entry{deleted: nil}
	for _, p := range []string{modified, added} {
		f := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte(fmt.Sprintf("round %d\n", round)), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(f)
		if err != nil {
			t.Fatal(err)
		}
		e := NewEntry(p, plumbing.NewHash(git(t, dir, "hash-object", "-w", p)), fi, false)
		updates[p] = &e
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(deleted))); err != nil {
		t.Fatal(err)
	}
	ix, err := Read(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	var shared int
	data, err := ix.Update(updates, func(p string) bool { return p != added }, options(split, reshareAt, &shared))
	if err != nil {
		t.Fatal(err)
	}
	if resharing := reshareAt < DefaultReshareAt; (shared == 1) != resharing {
		t.Fatalf("round %d: %d shared indexes written (re-sharing: %v)", round, shared, resharing)
	}
	writeIndex(t, dir, data)

	var want []string
	for _, l := range strings.Split(before, "\n") {
		if p := l[strings.IndexByte(l, '\t')+1:]; p != modified && p != deleted {
			want = append(want, l)
		}
	}
	for _, p := range []string{modified, added} {
		want = append(want, fmt.Sprintf("100644 %s 0\t%s", updates[p].hash, p))
	}
	sort.Slice(want, func(i, j int) bool {
		return want[i][strings.IndexByte(want[i], '\t')+1:] < want[j][strings.IndexByte(want[j], '\t')+1:]
	})
	if got := git(t, dir, "ls-files", "--stage"); got != strings.Join(want, "\n") {
		t.Fatalf("round %d: git ls-files --stage:\n%s\nwant:\n%s", round, got, strings.Join(want, "\n"))
	}
	if got := git(t, dir, "diff-files", "--name-only"); got != filesBefore {
		t.Fatalf("round %d: git diff-files (work tree against the index's stat data):\n%s\nbefore:\n%s", round, got, filesBefore)
	}
	wantCached := append(sortedLines(cachedBefore), "A\t"+added, "D\t"+deleted, "M\t"+modified)
	sort.Strings(wantCached)
	if got := sortedLines(git(t, dir, "diff", "--cached", "--name-status")); strings.Join(got, "\n") != strings.Join(wantCached, "\n") {
		t.Fatalf("round %d: git diff --cached:\n%s\nwant:\n%s", round, strings.Join(got, "\n"), strings.Join(wantCached, "\n"))
	}
	git(t, dir, "fsck", "--strict", "--no-progress")
	if commit {
		git(t, dir, "commit", "-qm", fmt.Sprintf("round %d", round))
		if st := git(t, dir, "status", "--porcelain"); st != "" {
			t.Fatalf("round %d: git status after the commit:\n%s", round, st)
		}
	}
}
