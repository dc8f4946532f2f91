package gitindex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FindTracked finds what `git ls-files -s` lists, in every index form git writes, and says
// a file is unchanged only while its stat data is the one recorded.
func TestFindTracked(t *testing.T) {
	for _, c := range []struct {
		name           string
		version        int
		split, skip, c bool
	}{{"v2", 2, false, false, false}, {"v3 split", 3, true, true, false}, {"v4", 4, false, false, true}, {"v4 split", 4, true, false, false}} {
		t.Run(c.name, func(t *testing.T) {
			dir := gitRepo(t, 30, c.version, c.split, c.skip, c.c)
			paths := []string{"bin/run.sh", "learnings/p10/lrn-010.md", "learnings/new/lrn-2.md", "learnings/p01/lrn-001.md", "learnings/p00/lrn-020.md", "nowhere"}
			got, mtime, err := FindTracked(filepath.Join(dir, ".git"), paths)
			if err != nil {
				t.Fatal(err)
			}
			if mtime.IsZero() {
				t.Error("no index mtime")
			}
			for _, p := range paths {
				out := git(t, dir, "ls-files", "-s", "--", p)
				want := ""
				for _, line := range strings.Split(out, "\n") {
					if f := strings.Fields(line); len(f) == 4 && f[2] == "0" {
						want = f[1]
					}
				}
				tr, ok := got[p]
				if ok != (want != "") || ok && tr.ID.String() != want {
					t.Errorf("%s: %v %v, git says %q", p, tr.ID, ok, want)
				}
			}
			tr := got["bin/run.sh"]
			fi, err := os.Lstat(filepath.Join(dir, "bin", "run.sh"))
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Unchanged(fi) {
				t.Error("an untouched file reads as changed")
			}
			later := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(dir, "bin", "run.sh"), later, later)
			fi, _ = os.Lstat(filepath.Join(dir, "bin", "run.sh"))
			if tr.Unchanged(fi) {
				t.Error("a touched file reads as unchanged")
			}
		})
	}
	got, _, err := FindTracked(t.TempDir(), []string{"x"})
	if err != nil || len(got) != 0 {
		t.Fatalf("no index: %v %v", got, err)
	}
}

// FuzzFindTracked: any index bytes give entries or an error, never a panic or a size taken
// on trust.
func FuzzFindTracked(f *testing.F) {
	dir := gitRepo(f, 10, 4, false, false, false)
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	entry := (&File{entries: []Entry{{name: "a/b"}}}).encode()
	f.Add(rawIndex(2, 1, entry[12:len(entry)-20], link(rawEWAH(64, onesRun(1)), rawEWAH(1, 1<<33, 1))))
	gd := f.TempDir() // inputs run one at a time in a worker: one file, rewritten
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(gd, "index"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		FindTracked(gd, []string{"a/b", "bin/run.sh", "learnings/p01/lrn-001.md"})
	})
}
