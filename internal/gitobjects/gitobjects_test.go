package gitobjects

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// history makes a repository of commits that edit a few files a little each time, so that
// a repack stores most trees and blobs as deltas.
func history(t testing.TB, commits int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	for i := 0; i < commits; i++ {
		for f := 0; f < 3; f++ {
			p := filepath.Join(dir, fmt.Sprintf("d%d", f%2), fmt.Sprintf("f%d.txt", f))
			os.MkdirAll(filepath.Dir(p), 0o755)
			var b strings.Builder
			for l := 0; l < 200; l++ {
				fmt.Fprintf(&b, "line %d of file %d, edited at %d\n", l, f, map[bool]int{true: i, false: 0}[l%37 == i%37])
			}
			os.WriteFile(p, []byte(b.String()), 0o644)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", fmt.Sprintf("commit %d\n\nbody %d", i, i))
	}
	return dir
}

// sameObjects holds every object of the repository at dir, as git lists them, to what the
// store reads: type and content, against go-git's own storage.
func sameObjects(t *testing.T, dir string, s *Store) {
	t.Helper()
	want := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
	lines := strings.Fields(git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	if len(lines) < 10 {
		t.Fatalf("only %d objects", len(lines))
	}
	for _, id := range lines {
		h := plumbing.NewHash(id)
		w, err := want.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatalf("go-git %s: %v", id, err)
		}
		g, err := s.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if g.Type() != w.Type() || g.Size() != w.Size() || !bytes.Equal(content(t, g), content(t, w)) {
			t.Fatalf("%s: got %v of %d bytes, want %v of %d", id, g.Type(), g.Size(), w.Type(), w.Size())
		}
		if g.Hash() != h {
			t.Fatalf("%s: content hashes to %s", id, g.Hash())
		}
		if err := s.HasEncodedObject(h); err != nil {
			t.Fatalf("HasEncodedObject(%s): %v", id, err)
		}
		if _, err := s.EncodedObject(otherType(w.Type()), h); err != plumbing.ErrObjectNotFound {
			t.Fatalf("%s asked as another type: %v; want ErrObjectNotFound", id, err)
		}
	}
	missing := plumbing.NewHash("00000000000000000000000000000000000000aa")
	if _, err := s.EncodedObject(plumbing.AnyObject, missing); err != plumbing.ErrObjectNotFound {
		t.Fatalf("a missing object: %v", err)
	}
	if err := s.HasEncodedObject(missing); err != plumbing.ErrObjectNotFound {
		t.Fatalf("HasEncodedObject of a missing object: %v", err)
	}
}

func otherType(t plumbing.ObjectType) plumbing.ObjectType {
	if t == plumbing.BlobObject {
		return plumbing.TreeObject
	}
	return plumbing.BlobObject
}

func content(t *testing.T, o plumbing.EncodedObject) []byte {
	t.Helper()
	r, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every way git stores an object reads back as go-git reads it.
func TestObjects(t *testing.T) {
	for _, tt := range []struct {
		name  string
		store func(t *testing.T, dir string) // how the repository's objects are stored
	}{
		{"loose", func(t *testing.T, dir string) {}},
		{"packed", func(t *testing.T, dir string) { git(t, dir, "gc", "-q") }},
		{"deep deltas", func(t *testing.T, dir string) { git(t, dir, "repack", "-adfq", "--depth=250", "--window=250") }},
		{"reference deltas", func(t *testing.T, dir string) {
			// pack-objects without --delta-base-offset writes REF_DELTA, as old gits did
			git(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
		}},
		{"large offsets", func(t *testing.T, dir string) {
			// the index's 64-bit offset table, which git uses past 2 GiB: forced for every
			// object past byte 256 of the pack
			git(t, dir, "repack", "-adq")
			packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
			for _, p := range packs {
				os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
				git(t, dir, "index-pack", "--index-version=2,0x100", p)
			}
		}},
		{"packed and loose", func(t *testing.T, dir string) {
			git(t, dir, "gc", "-q")
			os.WriteFile(filepath.Join(dir, "new.txt"), []byte("after the pack\n"), 0o644)
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "loose")
		}},
		{"two packs", func(t *testing.T, dir string) {
			git(t, dir, "repack", "-adq")
			os.WriteFile(filepath.Join(dir, "new.txt"), []byte("second pack\n"), 0o644)
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-q", "-m", "second")
			git(t, dir, "repack", "-dq")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := history(t, 40)
			tt.store(t, dir)
			s := Open(filepath.Join(dir, ".git", "objects"))
			defer s.Close()
			sameObjects(t, dir, s)
		})
	}
}

// A clone that borrows its objects (git clone --shared) reads them through its alternates.
func TestAlternates(t *testing.T) {
	src := history(t, 10)
	git(t, src, "gc", "-q")
	dst := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(dst), "clone", "-q", "--shared", src, dst)
	if _, err := os.Stat(filepath.Join(dst, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatal(err)
	}
	s := Open(filepath.Join(dst, ".git", "objects"))
	defer s.Close()
	head := plumbing.NewHash(strings.TrimSpace(git(t, dst, "rev-parse", "HEAD")))
	c, err := gitobject.GetCommit(s, head)
	if err != nil {
		t.Fatal(err)
	}
	if c.Message != "commit 9\n\nbody 9\n" {
		t.Fatalf("message %q", c.Message)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tree.FindEntry("d0/f0.txt"); err != nil {
		t.Fatal(err)
	}
}

// A corrupt or hostile pack gives an error, never a panic or a wrong object.
func TestCorrupt(t *testing.T) {
	dir := history(t, 10)
	git(t, dir, "gc", "-q")
	head := plumbing.NewHash(strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")))
	ids := strings.Fields(git(t, dir, "rev-list", "--objects", "--no-object-names", "--all"))
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := 12; i < len(data)-20; i += 7 {
		bad := bytes.Clone(data)
		bad[i] ^= 0xff
		if err := os.WriteFile(packs[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		s := Open(filepath.Join(dir, ".git", "objects"))
		if o, err := s.EncodedObject(plumbing.AnyObject, head); err == nil && o.Hash() != head {
			// a flipped byte the zlib checksum did not catch would hash differently
			t.Fatalf("byte %d flipped: read an object hashing to %s", i, o.Hash())
		}
		s.Close()
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	idxData, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []struct {
		file string
		data []byte
	}{{packs[0], data[:len(data)/2]}, {packs[0], data[:40]}, {idx, idxData[:len(idxData)/2]}, {idx, idxData[:1100]}} {
		os.WriteFile(packs[0], data, 0o644)
		os.WriteFile(idx, idxData, 0o644)
		if err := os.WriteFile(cut.file, cut.data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := Open(filepath.Join(dir, ".git", "objects"))
		for _, id := range ids {
			if o, err := s.EncodedObject(plumbing.AnyObject, plumbing.NewHash(id)); err == nil && o.Hash().String() != id {
				t.Fatalf("%s cut to %d bytes: %s read as %s", filepath.Base(cut.file), len(cut.data), id, o.Hash())
			}
		}
		s.Close()
	}
	os.WriteFile(packs[0], data, 0o644)
	if err := os.WriteFile(idx, []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Open(filepath.Join(dir, ".git", "objects"))
	defer s.Close()
	if _, err := s.EncodedObject(plumbing.AnyObject, head); err == nil || err == plumbing.ErrObjectNotFound {
		t.Fatalf("a broken index: %v; want an error naming it", err)
	}
}

// BenchmarkCommit reads HEAD's commit and tree of a packed repository, as a hook does once:
// a new Store each time, beside go-git's storage.
func BenchmarkCommit(b *testing.B) {
	dir := history(b, 200)
	git(b, dir, "gc", "-q")
	head := plumbing.NewHash(strings.TrimSpace(git(b, dir, "rev-parse", "HEAD")))
	objects := filepath.Join(dir, ".git", "objects")
	read := func(b *testing.B, s interface {
		EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error)
	}) {
		o, err := s.EncodedObject(plumbing.CommitObject, head)
		if err != nil {
			b.Fatal(err)
		}
		c, err := gitobject.DecodeCommit(nil, o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.EncodedObject(plumbing.TreeObject, c.TreeHash); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("gitobjects", func(b *testing.B) {
		for b.Loop() {
			s := Open(objects)
			read(b, s)
			s.Close()
		}
	})
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			s := filesystem.NewStorage(osfs.New(filepath.Join(dir, ".git")), cache.NewObjectLRUDefault())
			read(b, s)
			s.Close()
		}
	})
}

// BenchmarkWalk reads what a session start reads: twenty commits back from HEAD and the root
// trees of each, in one Store, of a repository with its objects loose and packed.
func BenchmarkWalk(b *testing.B) {
	for _, packed := range []bool{false, true} {
		dir := history(b, 40)
		if packed {
			git(b, dir, "gc", "-q")
		}
		head := plumbing.NewHash(strings.TrimSpace(git(b, dir, "rev-parse", "HEAD")))
		name := map[bool]string{false: "loose", true: "packed"}[packed]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				s := Open(filepath.Join(dir, ".git", "objects"))
				h := head
				for i := 0; i < 20; i++ {
					c, err := gitobject.GetCommit(s, h)
					if err != nil {
						b.Fatal(err)
					}
					t, err := c.Tree()
					if err != nil {
						b.Fatal(err)
					}
					for _, e := range t.Entries {
						if _, err := s.EncodedObject(plumbing.AnyObject, e.Hash); err != nil {
							b.Fatal(err)
						}
					}
					h = c.ParentHashes[0]
				}
				s.Close()
			}
		})
	}
}
