package learnings

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

func TestSameText(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Use pnpm, not npm", "use  pnpm,\nnot NPM.", true},
		{"the staging db is read-only on fridays", "The staging DB is read-only on Fridays!", true},
		{"Use pnpm, not npm", "Use npm, not pnpm", false},
		{"run make lint", "run make lint first", false},
		{"", "", true},
	} {
		if got := SameText(c.a, c.b); got != c.same {
			t.Errorf("SameText(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestFindByTitle: the current learnings of the project and the global ones with the title,
// case aside; never another project's, an archived one, or one whose title only begins so.
func TestFindByTitle(t *testing.T) {
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const project, other = "github.com/acme/api", "github.com/acme/web"
	now := time.Now()
	make := func(title, project string, archived bool) string {
		t.Helper()
		now = now.Add(time.Second)
		l := New(title, project, now)
		l.Body = "why\n"
		if archived {
			l.Status = StatusArchived
		}
		if _, err := Create(ctx, r, l, "learn: "+title); err != nil {
			t.Fatal(err)
		}
		return l.ID
	}
	older := make("Use pnpm, not npm", project, false)
	newer := make("use pnpm, NOT npm", project, false)
	global := make("Use pnpm, not npm", Global, false)
	make("Use pnpm, not npm", other, false)
	make("Use pnpm, not npm", project, true)
	make("Use pnpm, not npm, in CI", project, false)
	make("Use pnpm: not npm", project, false) // quoted by YAML: another title
	found, err := FindByTitle(r, project, "Use pnpm, not npm")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range found {
		ids = append(ids, l.ID)
	}
	if want := []string{newer, older, global}; !slices.Equal(ids, want) {
		t.Fatalf("found %v, want %v (the project's newest first, then the global one)", ids, want)
	}
	if found, err := FindByTitle(r, "github.com/acme/none", "Nothing like it"); err != nil || len(found) != 0 {
		t.Fatalf("in a project with no learnings: %v, %v", found, err)
	}

	// a hand-written file saved with CRLF line ends holds the same title
	crlf := New("Run the linter first", other, now.Add(time.Minute))
	crlf.Body = "why\n"
	data, err := crlf.Render()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "by hand", map[string][]byte{crlf.RelPath(): bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))}); err != nil {
		t.Fatal(err)
	}
	if found, err := FindByTitle(r, other, "Run the linter first"); err != nil || len(found) != 1 || found[0].ID != crlf.ID {
		t.Errorf("a CRLF file: %v, %v", found, err)
	}
}
