package index

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

func setHome(t testing.TB) { testenv.SetHome(t) }

// fixtureRepo is a knowledge repository holding the bundled sample learnings.
func fixtureRepo(t testing.TB) *gitstore.Repo {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range fixtures.Learnings() {
		l, err := learnings.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		files[learnings.PathFor(l.Project, l.ID)] = f.Data
	}
	return repoWith(t, files)
}

// repoWith is a new knowledge repository whose one commit holds files.
func repoWith(t testing.TB, files map[string][]byte) *gitstore.Repo {
	t.Helper()
	setHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, "learnings", files); err != nil {
		t.Fatal(err)
	}
	return r
}

func gitCLI(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func find(t testing.TB, r *gitstore.Repo, q Query) *Result {
	t.Helper()
	ix, err := Open(context.Background(), r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func titles(res *Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Title)
	}
	return out
}

func TestSearchFixtures(t *testing.T) {
	r := fixtureRepo(t)
	res := find(t, r, Query{Text: "oauth state", Snippets: true})
	if res.Source != "index" || len(res.Hits) == 0 || res.Hits[0].Title != "OAuth state mismatch on redirect" {
		t.Fatalf("oauth state: %s %v", res.Source, titles(res))
	}
	h := res.Hits[0]
	t.Logf("hit %+v", h)
	if h.Snippet == "" || len(h.Terms) == 0 {
		t.Errorf("no snippet or terms: %+v", h)
	}
	for _, f := range []string{"id", "project", "kind", "confidence", "status", "path"} {
		_ = f
	}
	if h.ID == "" || h.Project != "github.com/acme/auth-service" || h.Kind != "fix" || h.Confidence != "high" || h.Status != "current" || h.Created.IsZero() || !strings.HasPrefix(h.Path, "learnings/") {
		t.Errorf("fields: %+v", h.Doc)
	}
}

func TestCatchUpFromGitCLI(t *testing.T) {
	r := fixtureRepo(t)
	before := find(t, r, Query{Text: "zanzibar"})
	if len(before.Hits) != 0 {
		t.Fatal("unexpected hit")
	}
	dir := filepath.Join(r.Root(), "learnings", "github.com", "acme", "zoo")
	os.MkdirAll(dir, 0o755)
	for i := 0; i < 100; i++ {
		l := learnings.New("Zanzibar gateway quirk number "+string(rune('a'+i%26)), "github.com/acme/zoo", time.Now().Add(time.Duration(i)*time.Millisecond))
		l.Body = "The zanzibar gateway needs a retry.\n"
		data, err := l.Render()
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(r.Root(), learnings.PathFor(l.Project, l.ID)), data, 0o644)
	}
	gitCLI(t, r.Root(), "add", "-A")
	gitCLI(t, r.Root(), "commit", "-qm", "as a sync would")
	ix, err := Open(context.Background(), r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.CaughtUp != 100 || !ix.Fresh {
		t.Errorf("caught up %d fresh %v", ix.CaughtUp, ix.Fresh)
	}
	res, err := ix.Search(context.Background(), Query{Text: "zanzibar", Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 100 {
		t.Errorf("found %d of 100", res.Total)
	}
}

// TestQuerySyntax runs the same queries against the index and against the scan that
// replaces it when it cannot be opened: both must find the same learnings.
func TestQuerySyntax(t *testing.T) {
	r := fixtureRepo(t)
	cases := []struct {
		q    Query
		want string // first title, "" for none
		n    int    // hits, -1: any
	}{
		{Query{Text: "oauth"}, "OAuth state mismatch on redirect", -1},
		{Query{Text: "zzzunknown"}, "", 0},
		{Query{Text: "zzzunknown|oauth"}, "OAuth state mismatch on redirect", -1},
		{Query{Text: "+oauth -redirect"}, "", 0},
		{Query{Text: "+state +redirect"}, "OAuth state mismatch on redirect", -1},
		{Query{Text: "title:oauth"}, "OAuth state mismatch on redirect", 1},
		{Query{Text: "oauth", Projects: []string{"github.com/acme/other"}}, "", 0},
		{Query{Text: "oauth", Kinds: []string{"rule"}}, "", 0},
		{Query{Text: "oauth", Tags: []string{"OAuth"}}, "OAuth state mismatch on redirect", 1},
		{Query{Terms: []string{"oauth"}, Paths: []string{"learnings/elsewhere.md"}}, "", 0},
	}
	for _, useScan := range []bool{false, true} {
		for _, c := range cases {
			var res *Result
			if useScan {
				tgt, _ := headTarget(r)
				sc, err := newScanner(context.Background(), r, tgt)
				if err != nil {
					t.Fatal(err)
				}
				res, err = (&Index{scan: sc}).Search(context.Background(), c.q)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				res = find(t, r, c.q)
			}
			got := ""
			if len(res.Hits) > 0 {
				got = res.Hits[0].Title
			}
			if got != c.want || c.n >= 0 && len(res.Hits) != c.n {
				t.Errorf("scan=%v %+v: got %q (%d hits: %v), want %q (%d)", useScan, c.q, got, len(res.Hits), titles(res), c.want, c.n)
			}
		}
	}
}

// TestFallbackWhenIndexIsUnusable: a corrupt or locked index never stops a search.
func TestFallbackWhenIndexIsUnusable(t *testing.T) {
	r := fixtureRepo(t)
	ctx := context.Background()
	if _, err := Rebuild(ctx, r, Options{}); err != nil {
		t.Fatal(err)
	}
	// a writer holds the index: a reader with a short timeout scans instead
	l := newLayout(r)
	w, err := openBleve(l.current(), false, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.Root(), "x.txt"), []byte("x"), 0o644) // no learnings change
	ix, err := Open(ctx, r, Options{LockTimeout: 100 * time.Millisecond, NoBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, Query{Text: "oauth"})
	if err != nil || res.Source != "scan" || len(res.Hits) == 0 || res.Note == "" {
		t.Fatalf("locked: %v %+v", err, res)
	}
	ix.Close()
	w.Close()

	// corrupt: the next opener throws it away and rebuilds
	gen := l.current()
	if err := os.WriteFile(filepath.Join(gen, "store", "root.bolt"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(ctx, r, Options{NoBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = ix.Search(ctx, Query{Text: "oauth"})
	if res.Source != "scan" || !ix.NeedsBuild {
		t.Errorf("corrupt, NoBuild: source %s needsBuild %v", res.Source, ix.NeedsBuild)
	}
	ix.Close()
	res = find(t, r, Query{Text: "oauth"})
	if res.Source != "index" || len(res.Hits) == 0 {
		t.Errorf("after rebuild: %+v", res)
	}
	// deleted: nothing is lost either
	os.RemoveAll(filepath.Join(r.StateDir(), "index"))
	if res := find(t, r, Query{Text: "oauth"}); res.Source != "index" || len(res.Hits) == 0 {
		t.Errorf("after delete: %+v", res)
	}
}

// TestEmptyRepository: a repository without learnings has an (empty) index and searches find
// nothing; the first learning is then caught up.
func TestEmptyRepository(t *testing.T) {
	setHome(t)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res := find(t, r, Query{Text: "anything"}); res.Source != "index" || len(res.Hits) != 0 {
		t.Fatalf("empty: %+v", res)
	}
	if _, err := Rebuild(ctx, r, Options{}); err != nil {
		t.Fatal(err)
	}
	l := learnings.New("First learning about kumquats", learnings.Global, time.Now())
	if _, err := learnings.Create(ctx, r, l, "first"); err != nil {
		t.Fatal(err)
	}
	if res := find(t, r, Query{Text: "kumquats"}); len(res.Hits) != 1 {
		t.Fatalf("after the first learning: %+v", res)
	}
}

// TestHitsCarryAnchors: a hit carries its learning's anchors and source commit, from the
// index and from the scan that stands in for it (recall checks them without reading git).
func TestHitsCarryAnchors(t *testing.T) {
	l := &learnings.Learning{ID: learnings.NewID(time.Now()), Title: "Retry the migration lock on deadlock",
		Project: "github.com/acme/api", Kind: learnings.KindFix, Confidence: learnings.ConfidenceHigh,
		Status: learnings.StatusCurrent, Created: time.Now().UTC(), Updated: time.Now().UTC(), Seen: 1,
		Anchors: []string{"db/migrate.go@" + strings.Repeat("a", 40), "db/lock.go@" + strings.Repeat("b", 40)},
		Body:    "Postgres reports a deadlock while the migration holds its lock; retry it.\n"}
	l.Source.Commit = strings.Repeat("c", 40)
	data, err := l.Render()
	if err != nil {
		t.Fatal(err)
	}
	r := repoWith(t, map[string][]byte{learnings.PathFor(l.Project, l.ID): data})
	ctx := context.Background()
	check := func(res *Result) {
		t.Helper()
		if len(res.Hits) != 1 {
			t.Fatalf("%s: %d hits", res.Source, len(res.Hits))
		}
		h := res.Hits[0]
		if strings.Join(h.Anchors, " ") != strings.Join(l.Anchors, " ") || h.SourceCommit != l.Source.Commit {
			t.Errorf("%s: anchors %q, commit %q; want %q, %q", res.Source, h.Anchors, h.SourceCommit, l.Anchors, l.Source.Commit)
		}
	}
	if _, err := Rebuild(ctx, r, Options{}); err != nil {
		t.Fatal(err)
	}
	res := find(t, r, Query{Text: "migration deadlock"})
	if res.Source != "index" {
		t.Fatalf("source %s", res.Source)
	}
	check(res)
	os.RemoveAll(filepath.Join(r.StateDir(), "index"))
	ix, err := Open(ctx, r, Options{NoBuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err = ix.Search(ctx, Query{Text: "migration deadlock"})
	if err != nil || res.Source != "scan" {
		t.Fatalf("without the index: %v, source %v", err, res)
	}
	check(res)
}

// TestMappingParsedOnce: the mapping bleve reads back at each open is parsed once, and a
// mapping of other bytes is parsed as it reads.
func TestMappingParsedOnce(t *testing.T) {
	ctx := context.Background()
	r := fixtureRepo(t)
	var seen []mapping.IndexMapping
	for range 2 {
		ix, err := Open(ctx, r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ix.idx.Mapping())
		if res, err := ix.Search(ctx, Query{Text: "postgres"}); err != nil || len(res.Hits) == 0 {
			t.Fatalf("search: %v, %v", res, err)
		}
		ix.Close()
	}
	if seen[0] != seen[1] {
		t.Error("the mapping was parsed at each open")
	}
	other := newMapping().(*mapping.IndexMappingImpl)
	other.DefaultAnalyzer = "standard"
	data, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	var got *mapping.IndexMappingImpl
	if err := util.UnmarshalJSON(data, &got); err != nil {
		t.Fatal(err)
	}
	if got == seen[0] || got.DefaultAnalyzer != "standard" {
		t.Errorf("another mapping read as %p (default analyzer %q), the kept one is %p", got, got.DefaultAnalyzer, seen[0])
	}
}
