package gitstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestReadWorkFile: a committed file reads back as HEAD holds it, with HEAD's blob id; a
// missing one is os.ErrNotExist; one over the bound is ErrTooLarge; a symbolic link (out of
// the memory, or to a file inside it) and a directory are refused.
func TestReadWorkFile(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	content := []byte("---\nproject: github.com/acme/api\n---\nwhere we left off\n")
	if _, err := r.Commit(ctx, "handoff", map[string][]byte{"handoffs/acme/main.md": content}); err != nil {
		t.Fatal(err)
	}
	data, blob, err := r.ReadWorkFile("handoffs/acme/main.md", 1<<20)
	if err != nil || !bytes.Equal(data, content) {
		t.Fatalf("read %q, %v", data, err)
	}
	files, err := r.Walk("handoffs")
	if err != nil || len(files) != 1 || files[0].ID != blob {
		t.Fatalf("blob %s; HEAD holds %+v (%v)", blob, files, err)
	}
	if blob != plumbing.ComputeHash(plumbing.BlobObject, content) {
		t.Fatalf("blob %s", blob)
	}
	if _, _, err := r.ReadWorkFile("handoffs/acme/none.md", 1<<20); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := r.ReadWorkFile("handoffs/acme/main.md", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v", err)
	}
	if _, _, err := r.ReadWorkFile("handoffs/acme", 1<<20); err == nil {
		t.Errorf("a directory was read")
	}
	if runtime.GOOS == "windows" {
		return
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("not the memory's"), 0o644)
	for link, target := range map[string]string{
		"handoffs/acme/out.md":    secret,
		"handoffs/acme/in.md":     "main.md",
		"handoffs/outside":        filepath.Dir(secret),
		"handoffs/acme/dotdot.md": "../../../" + filepath.Base(filepath.Dir(secret)),
	} {
		if err := os.Symlink(target, filepath.Join(r.Root(), filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"handoffs/acme/out.md", "handoffs/acme/in.md", "handoffs/outside/secret", "handoffs/acme/dotdot.md"} {
		if data, _, err := r.ReadWorkFile(p, 1<<20); err == nil {
			t.Errorf("%s: read %q through a symbolic link", p, data)
		}
	}
}
