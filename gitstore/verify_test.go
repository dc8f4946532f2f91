package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func TestVerifyPath(t *testing.T) {
	ok := []string{
		"reflect.toml", "learnings/github.com/acme/auth/lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G.md", "queue/failed/q-1.json",
		".gitignore", ".github/x", "learnings/local/con-x/a.md", "comic/console.md", "gitx", "a.git", ".gitx",
		"learnings/local/日本語/lrn.md", "com10", "lpt10.md",
	}
	for _, p := range ok {
		if err := VerifyPath(p); err != nil {
			t.Errorf("VerifyPath(%q) = %v, want ok", p, err)
		}
	}
	bad := map[string]string{
		"":                          "empty",
		"/etc/passwd":               "absolute",
		"a//b":                      "empty",
		"a/":                        "empty",
		"../x":                      "relative step",
		"learnings/../../x":         "relative step",
		"./x":                       "relative step",
		".git/config":               ".git",
		".GIT/config":               ".git",
		".Git/hooks/pre-commit":     ".git",
		"learnings/.git/config":     ".git",
		"learnings/x/.git":          ".git",
		".git./config":              ".git",
		".git /config":              ".git",
		".git::$INDEX_ALLOCATION/x": ".git",
		"GIT~1/config":              ".git",
		".g\u200cit/config":         ".git",
		"\ufeff.git/config":         ".git",
		".gi\u200dT/config":         ".git",
		`learnings\x`:               "Windows cannot hold",
		"a:b":                       "Windows cannot hold",
		"a\x01b":                    "Windows cannot hold",
		"learnings/CON/lrn.md":      "device name",
		"learnings/local/aux.md":    "device name",
		"nul":                       "device name",
		"queue/Com1.json":           "device name",
		"lpt9.txt":                  "device name",
		"com\u00b9":                 "device name",
		"learnings/x./a.md":         "ends in a dot",
		"learnings/x /a.md":         "ends in a dot or a space",
		"learnings/" + strings.Repeat("a", 300) + "/x.md": "longer than 255",
		strings.Repeat("abcdefgh/", 120):                  "longer than 1024",
		"bad\xffutf8":                                     "UTF-8",
	}
	for p, rule := range bad {
		err := VerifyPath(p)
		var pe *PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), rule) {
			t.Errorf("VerifyPath(%q) = %v, want a PathError with %q", p, err, rule)
		}
	}
}

// A file the git CLI committed as executable keeps its mode through a fast-forward made with
// WriteBlob, and through a later edit.
func TestExecutableModeIsKept(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	other := filepath.Join(t.TempDir(), "other")
	git(t, ".", "clone", "-q", r.Root(), other)
	os.WriteFile(filepath.Join(other, "tool.sh"), []byte("echo hi\n"), 0o755)
	git(t, other, "add", "tool.sh")
	git(t, other, "commit", "-qm", "a script")
	git(t, r.Root(), "fetch", "-q", other, "main:refs/remotes/o/main")
	remote, err := r.Ref("refs/remotes/o/main")
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Update(ctx, func(tx *Tx) (string, error) {
		from, _ := tx.TreeOf(tx.Head(), "")
		to, _ := tx.TreeOf(remote, "")
		changes, err := r.DiffTrees(from, to, "")
		if err != nil {
			return "", err
		}
		if len(changes) != 1 || changes[0].Mode != filemode.Executable {
			t.Fatalf("changes = %+v, want one executable file", changes)
		}
		data, _ := r.ReadBlob(changes[0].To)
		tx.WriteBlob(changes[0].Path, changes[0].To, changes[0].Mode, data)
		tx.FastForward(remote)
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	assertClean(t, r)
	if fi, _ := os.Stat(filepath.Join(r.Root(), "tool.sh")); fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("tool.sh lost its executable bit: %v", fi.Mode())
	}
	if _, err := r.Commit(ctx, "edit", map[string][]byte{"tool.sh": []byte("echo bye\n")}); err != nil {
		t.Fatal(err)
	}
	assertClean(t, r)
	if got := git(t, r.Root(), "ls-tree", "HEAD", "tool.sh"); !strings.HasPrefix(got, "100755 ") {
		t.Fatalf("after an edit: %s", got)
	}
	if n, err := r.BlobSize(plumbing.NewHash(strings.Fields(git(t, r.Root(), "ls-tree", "HEAD", "tool.sh"))[2])); err != nil || n != 9 {
		t.Fatalf("BlobSize = %d, %v", n, err)
	}
}
