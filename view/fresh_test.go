package view

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/workspace"
)

// drifted is the fixture plus the project github.com/acme/auth checked out on this machine
// (recorded in state/roots.json as a recall records it) and three of its learnings anchored
// to its files: "drift" to the Makefile, changed by two commits since; "gone" to a file
// since deleted; "fresh" to the README, unchanged.
type drifted struct {
	*fixture
	dir     string
	commits []string // the two commits that changed the Makefile, newest first
}

func newDrifted(t *testing.T) *drifted {
	f := newFixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	testenv.Git(t, dir, "remote", "add", "origin", "https://github.com/acme/auth.git")
	for name, content := range map[string]string{"Makefile": "migrate:\n\t./migrate --all\n", "README.md": "auth\n", "old.go": "package auth\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, dir, "add", ".")
	testenv.Git(t, dir, "commit", "-q", "-m", "first")
	ws, err := workspace.Read(dir, 0)
	if err != nil || ws.Project != "github.com/acme/auth" {
		t.Fatalf("workspace %+v: %v", ws, err)
	}
	if err := anchor.Remember(f.repo, ws); err != nil {
		t.Fatal(err)
	}
	p, err := anchor.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for i, x := range []struct{ name, title, file string }{
		{"drift", "Run make migrate before the tests", "Makefile"},
		{"gone", "old.go holds the token check", "old.go"},
		{"fresh", "The README names the service", "README.md"},
	} {
		as, missing := p.Resolve([]string{x.file})
		if len(missing) > 0 {
			t.Fatal(missing)
		}
		l := learnings.New(x.title, "github.com/acme/auth", now.Add(time.Duration(i)*time.Minute))
		l.Body = "Body.\n"
		l.SetAnchors(as)
		l.Source.Commit = ws.Head
		if _, err := learnings.Create(ctx, f.repo, l, "learn: "+l.Title); err != nil {
			t.Fatal(err)
		}
		f.ids[x.name] = l.ID
	}
	d := &drifted{fixture: f, dir: dir}
	for _, change := range []string{"migrate:\n\t./migrate --all --verbose\n", "migrate:\n\tgo run ./cmd/migrate\n"} {
		os.WriteFile(filepath.Join(dir, "Makefile"), []byte(change), 0o644)
		testenv.Git(t, dir, "commit", "-q", "-am", "make: migrate "+string(rune('A'+len(d.commits))))
		d.commits = append([]string{testenv.Git(t, dir, "rev-parse", "HEAD")}, d.commits...)
	}
	testenv.Git(t, dir, "rm", "-q", "old.go")
	testenv.Git(t, dir, "commit", "-q", "-m", "drop old.go")
	return d
}

// rowsOf are the ids of the learnings a list page links to, in order.
func rowsOf(page string) []string {
	var ids []string
	for _, part := range strings.Split(page, `<a class="title" href="/learning/`)[1:] {
		id, _, _ := strings.Cut(part, `"`)
		ids = append(ids, id)
	}
	return ids
}

func TestFreshnessFilter(t *testing.T) {
	d := newDrifted(t)
	for _, tc := range []struct {
		fresh string
		want  []string
	}{
		{"drifted", []string{"drift"}},
		{"orphaned", []string{"gone"}},
		{"fresh", []string{"fresh"}},
		// no anchors, or a global lesson: nothing says they are stale
		{"unchecked", nil},
	} {
		code, page := d.get("/?sort=title&status=current&fresh=" + tc.fresh)
		if code != 200 {
			t.Fatalf("fresh=%s: %d\n%.2000s", tc.fresh, code, page)
		}
		var want []string
		for _, n := range tc.want {
			want = append(want, d.ids[n])
		}
		got := rowsOf(page)
		if tc.fresh == "unchecked" { // the titles sort as they will; compare as sets
			if len(got) != 4 || !strings.Contains(strings.Join(got, " "), d.ids["go"]) {
				t.Errorf("fresh=unchecked: %v", got)
			}
			continue
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("fresh=%s: %v, want %v", tc.fresh, got, want)
		}
		if !strings.Contains(page, `class="badge fr-`+tc.fresh+`"`) {
			t.Errorf("fresh=%s: no badge", tc.fresh)
		}
	}
	// the page without the filter shows the badges of its rows
	_, page := d.get("/")
	for _, s := range []string{"fr-drifted", "fr-orphaned", "fr-fresh"} {
		if !strings.Contains(page, s) {
			t.Errorf("the list lacks %s", s)
		}
	}
	if code, page := d.get("/?fresh=stale"); code != 400 || !strings.Contains(page, "fresh: unknown state") {
		t.Errorf("fresh=stale: %d\n%.1500s", code, page)
	}
	// a project this machine does not know the work tree of is unchecked, never guessed
	os.RemoveAll(d.dir)
	if _, page := d.get("/?fresh=unchecked"); len(rowsOf(page)) != 7 {
		t.Errorf("with the work tree gone, unchecked lists %d", len(rowsOf(page)))
	}
	if _, page := d.get("/learning/" + d.ids["drift"]); !strings.Contains(page, `id="unchecked">Makefile <span`) || strings.Contains(page, `id="keep"`) {
		t.Errorf("an anchored learning of a project not checked out here:\n%s", page)
	}
	if code, _, body := d.post("/learning/"+d.ids["drift"]+"/keep", url.Values{"base": {d.base(d.ids["drift"])}}); code != 400 || !strings.Contains(body, "no work tree of github.com/acme/auth is known") {
		t.Errorf("keep without the work tree: %d\n%.1500s", code, body)
	}
}

func TestDriftedPage(t *testing.T) {
	d := newDrifted(t)
	id := d.ids["drift"]
	// the page says what reflect stale --format json says: the file, its commits since
	ws, _ := workspace.Read(d.dir, 0)
	p, _ := anchor.Open(ws)
	s, err := p.Survey(context.Background(), d.repo)
	p.Close()
	if err != nil || s.Drifted != 1 || s.Orphaned != 1 || s.Fresh != 1 {
		t.Fatalf("survey %+v: %v", s, err)
	}
	_, page := d.get("/learning/" + id)
	for _, want := range []string{`id="freshness">drifted`, "<code>Makefile</code>: changed in 2 commits",
		"make: migrate A", "make: migrate B", d.commits[0][:8], d.commits[1][:8], `id="keep"`,
		`value="` + anchor.ArchiveReason + `"`} {
		if !strings.Contains(page, htmlEsc(want)) && !strings.Contains(page, want) {
			t.Errorf("the drifted page lacks %q", want)
		}
	}
	for _, st := range s.Stale {
		for _, cs := range st.Changes {
			for _, c := range cs {
				if !strings.Contains(page, c.ID[:8]) && st.ID == id {
					t.Errorf("the page lacks commit %s that reflect stale lists", c.ID)
				}
			}
		}
	}
	_, gonePage := d.get("/learning/" + d.ids["gone"])
	if !strings.Contains(gonePage, "<code>old.go</code>: gone") || !strings.Contains(gonePage, `id="keep"`) {
		t.Errorf("the orphaned page:\n%s", gonePage)
	}
	_, fresh := d.get("/learning/" + d.ids["fresh"])
	if !strings.Contains(fresh, `id="freshness">fresh`) || strings.Contains(fresh, `id="keep"`) {
		t.Errorf("the fresh page shows a review")
	}
	_, global := d.get("/learning/" + d.ids["go"])
	if strings.Contains(global, `id="freshness"`) {
		t.Errorf("an unanchored learning shows a freshness")
	}

	// keep from a page loaded before the learning changed: refused, nothing written
	stale := d.base(id)
	old, raw, _ := learnings.Get(d.repo, id)
	if _, _, err := learnings.SaveEdit(context.Background(), d.repo, old, raw, []byte(strings.Replace(string(raw), "Body.", "Body, edited.", 1))); err != nil {
		t.Fatal(err)
	}
	head := d.head()
	if code, _, body := d.post("/learning/"+id+"/keep", url.Values{"base": {stale}}); code != http.StatusConflict || !strings.Contains(body, "changed since this page was loaded") || d.head() != head {
		t.Errorf("a stale keep: %d\n%.1500s", code, body)
	}
	if code, _, _ := d.post("/learning/"+id+"/keep", url.Values{}); code != 400 || d.head() != head {
		t.Errorf("a keep without a base: %d", code)
	}

	// keep: one commit, the CLI's message, anchored to the Makefile as it is now
	code, loc, body := d.post("/learning/"+id+"/keep", url.Values{"base": {d.base(id)}})
	if code != 303 || !strings.Contains(loc, "reanchored") {
		t.Fatalf("keep: %d %s\n%.1500s", code, loc, body)
	}
	if sub := d.subject(); !strings.HasPrefix(sub, "re-anchor: "+id) || !strings.Contains(sub, "kept after a review") {
		t.Errorf("keep commit %q", sub)
	}
	if n := testenv.Git(t, d.repo.Root(), "rev-list", "--count", head+"..HEAD"); n != "1" {
		t.Errorf("keep made %s commits", n)
	}
	l, _, _ := learnings.Get(d.repo, id)
	blob := testenv.Git(t, d.dir, "rev-parse", "HEAD:Makefile")
	if len(l.Anchors) != 1 || l.Anchors[0] != "Makefile@"+blob || l.Source.Commit != testenv.Git(t, d.dir, "rev-parse", "HEAD") {
		t.Errorf("after keep: anchors %v, commit %s", l.Anchors, l.Source.Commit)
	}
	if rec, ok, _ := provenance.Of(d.repo, id); ok && rec.Reviewed == "" {
		t.Errorf("keep is not recorded as a review")
	}
	d.clean()
	if _, page := d.get("/?fresh=drifted"); len(rowsOf(page)) != 0 {
		t.Errorf("still drifted after keep: %v", rowsOf(page))
	}
	// keep again: nothing to re-anchor, no commit
	head = d.head()
	if code, loc, _ := d.post("/learning/"+id+"/keep", url.Values{"base": {d.base(id)}}); code != 303 || !strings.Contains(loc, "already") || d.head() != head {
		t.Errorf("keep a fresh one: %d %s", code, loc)
	}

	// keep an orphaned one: the gone file is dropped, and the commit says so
	gone := d.ids["gone"]
	if code, _, body := d.post("/learning/"+gone+"/keep", url.Values{"base": {d.base(gone)}}); code != 303 {
		t.Fatalf("keep orphaned: %d %.1500s", code, body)
	}
	if sub := d.subject(); !strings.Contains(sub, "- old.go (gone)") {
		t.Errorf("keep orphaned commit %q", sub)
	}
	// keep without the token or from another origin is refused as every write is
	req, _ := http.NewRequest(http.MethodPost, d.ts.URL+"/learning/"+id+"/keep", strings.NewReader(url.Values{"base": {d.base(id)}, "token": {d.srv.Token()}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := d.client.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("keep from another origin: %v %v", resp, err)
	}
}
