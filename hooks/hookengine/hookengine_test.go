package hookengine

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

// TestWarm: a resident engine's warm-up runs a prompt's recall, and a session start's in the
// project whose checkout was recorded last, when there is one that still is that project.
func TestWarm(t *testing.T) {
	testenv.SetHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := learnings.New("Retry the migration lock on a deadlock", "github.com/acme/shop", time.Now())
	l.Body = "Postgres reports a deadlock when two migrations take the lock table; retry with backoff."
	if _, err := learnings.Create(ctx, r, l, "learn"); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Rebuild(ctx, r, index.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := Warm(ctx, r); !slices.Equal(got, []string{"prompt"}) {
		t.Fatalf("warmed %q with no project recorded; want the prompt's recall alone", got)
	}
	proj := t.TempDir()
	testenv.Git(t, proj, "init", "-q", "-b", "fix/migration-deadlock")
	testenv.Git(t, proj, "remote", "add", "origin", "https://github.com/acme/shop.git")
	testenv.Git(t, proj, "commit", "-q", "--allow-empty", "-m", "db: retry the migration lock on deadlock")
	ws, err := workspace.Read(proj, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := anchor.Remember(r, ws); err != nil {
		t.Fatal(err)
	}
	if got := Warm(ctx, r); !slices.Equal(got, []string{"prompt", "start " + ws.Root}) {
		t.Fatalf("warmed %q; want the prompt's recall and a session start's in %s", got, ws.Root)
	}
}
