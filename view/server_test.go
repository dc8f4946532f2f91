package view

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/history"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/recall"
)

// fixture is a memory with a few learnings and a pending capture, served by a Server.
type fixture struct {
	t      *testing.T
	repo   *gitstore.Repo
	srv    *Server
	ts     *httptest.Server
	client *http.Client
	ids    map[string]string // by a short name
	entry  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "mem")
	r, _, err := gitstore.Init(ctx, home, gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, repo: r, ids: map[string]string{}}
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, x := range []struct{ name, title, project, body string }{
		{"xss", `<script>alert("title")</script> OAuth state`, "github.com/acme/auth", "Compare the state <b>after</b> decoding.\n\n<script>alert('body')</script>\n\n[click](javascript:alert(1))\n"},
		{"oauth", "OAuth redirect needs the exact callback URL", "github.com/acme/auth", "Register `http://localhost:8080/callback` exactly.\n"},
		{"dup", "OAuth callback URL must match exactly", "github.com/acme/auth", "The callback must be registered as is.\n"},
		{"go", "Run go test with -count=1 to skip the cache", learnings.Global, "Use `go test -count=1 ./...`.\n"},
	} {
		l := learnings.New(x.title, x.project, now.Add(time.Duration(i)*time.Minute))
		l.Body, l.Tags = x.body, []string{"t" + x.name}
		if _, err := learnings.Create(ctx, r, l, "learn: "+l.Title); err != nil {
			t.Fatal(err)
		}
		f.ids[x.name] = l.ID
	}
	e := &queue.Entry{ID: queue.NewID(now), Harness: "claude-code", Session: "sess-1", Trigger: "precompact",
		Project: "github.com/acme/auth", Machine: "laptop", Created: now, Updated: now, Messages: 3,
		Digest: queue.Digest{Prompts: 1, Notes: []queue.Note{{Kind: "prompt", Text: "<script>alert('digest')</script> fix it"}}}}
	data, _ := json.Marshal(e)
	if _, err := r.Commit(ctx, "capture(precompact): test", map[string][]byte{queue.Path(e.ID): data}); err != nil {
		t.Fatal(err)
	}
	f.entry = e.ID
	f.srv, err = New(Options{Home: home, Token: strings.Repeat("ab", 32)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.srv.Close() })
	f.ts = httptest.NewServer(f.srv)
	t.Cleanup(f.ts.Close)
	jar, _ := cookiejar.New(nil)
	f.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// the URL reflect view prints: it sets the cookie and redirects without the token
	resp, err := f.client.Get(f.ts.URL + "/?token=" + f.srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the token URL answered %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return f
}

func (f *fixture) get(path string) (int, string) {
	f.t.Helper()
	resp, err := f.client.Get(f.ts.URL + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form as the page would: this origin, with the token.
func (f *fixture) post(path string, form url.Values) (int, string, string) {
	f.t.Helper()
	form.Set("token", f.srv.Token())
	req, _ := http.NewRequest(http.MethodPost, f.ts.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", f.ts.URL)
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

func (f *fixture) head() string {
	f.t.Helper()
	out, err := exec.Command("git", "-C", f.repo.Root(), "rev-parse", "HEAD").Output()
	if err != nil {
		f.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func (f *fixture) subject() string {
	out, _ := exec.Command("git", "-C", f.repo.Root(), "log", "-1", "--format=%B").Output()
	return strings.TrimSpace(string(out))
}

func (f *fixture) clean() {
	f.t.Helper()
	out, err := exec.Command("git", "-C", f.repo.Root(), "status", "--porcelain").CombinedOutput()
	if err != nil || len(out) > 0 {
		f.t.Errorf("git status after the write: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", f.repo.Root(), "fsck", "--strict").CombinedOutput(); err != nil {
		f.t.Errorf("git fsck: %v\n%s", err, out)
	}
}

func (f *fixture) base(id string) string {
	f.t.Helper()
	_, raw, err := learnings.Get(f.repo, id)
	if err != nil {
		f.t.Fatal(err)
	}
	return plumbing.ComputeHash(plumbing.BlobObject, raw).String()
}

func TestPagesRender(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/", "/?q=oauth", "/?kind=rule&confidence=medium&status=all&sort=title", "/?project=_global",
		"/learning/" + f.ids["oauth"], "/learning/" + f.ids["oauth"] + "/edit", "/merge?old=" + f.ids["dup"] + "&keep=" + f.ids["oauth"],
		"/queue", "/queue/" + f.entry, "/history", "/history?session=sess-1", "/activity", "/static/style.css"} {
		code, body := f.get(p)
		if code != http.StatusOK {
			t.Errorf("GET %s: %d\n%.500s", p, code, body)
		}
	}
	if code, body := f.get("/?q=callback"); !strings.Contains(body, "<mark>") || code != 200 {
		t.Errorf("a search shows no highlighted word:\n%.2000s", body)
	}
	for p, want := range map[string]int{"/learning/lrn-NOPE": 404, "/?kind=nonsense": 400, "/?sort=random": 400, "/queue/q-nope": 404,
		"/?q=" + url.QueryEscape(`title:"unclosed`): 400, "/merge?old=" + f.ids["go"] + "&keep=" + f.ids["go"]: 400} {
		if code, body := f.get(p); code != want {
			t.Errorf("GET %s: %d, want %d\n%.800s", p, code, want, body)
		}
	}
}

// A learning's text arrives from remotes: nothing in it may become markup.
func TestUntrustedTextIsEscaped(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/", "/?q=oauth", "/learning/" + f.ids["xss"], "/learning/" + f.ids["xss"] + "/edit", "/queue/" + f.entry,
		"/merge?old=" + f.ids["xss"] + "&keep=" + f.ids["oauth"], "/activity"} {
		code, body := f.get(p)
		if code != 200 {
			t.Fatalf("GET %s: %d", p, code)
		}
		if strings.Contains(body, "<script") || strings.Contains(body, `href="javascript`) || strings.Contains(body, "<b>after") {
			t.Errorf("GET %s renders markup from a learning:\n%s", p, body)
		}
	}
	_, body := f.get("/learning/" + f.ids["xss"])
	if !strings.Contains(body, `&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt; OAuth state`) {
		t.Errorf("the title is not shown as text:\n%s", body)
	}
	resp, err := f.client.Get(f.ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// Every write must carry this run's token, in the cookie and the form, and come from this
// origin; a refused one changes nothing.
func TestWritesRefused(t *testing.T) {
	f := newFixture(t)
	before := f.head()
	id := f.ids["oauth"]
	writes := map[string]url.Values{
		"/learning/" + id + "/edit":      {"base": {f.base(id)}, "title": {"hacked"}, "kind": {"rule"}, "confidence": {"high"}, "project": {"github.com/acme/auth"}, "body": {"x"}},
		"/learning/" + id + "/archive":   {"base": {f.base(id)}},
		"/learning/" + id + "/supersede": {"base": {f.base(id)}, "by": {f.ids["dup"]}},
		"/merge":                         {"old": {f.ids["dup"]}, "keep": {id}, "old_base": {f.base(f.ids["dup"])}, "keep_base": {f.base(id)}, "title": {"x"}, "body": {"y"}},
		"/queue/" + f.entry + "/drop":    {},
		"/queue/" + f.entry + "/retry":   {},
	}
	cases := []struct {
		name           string
		cookie, origin bool
		originValue    string
		formToken      string
		host           string
	}{
		{name: "no cookie", origin: true, formToken: "ok"},
		{name: "no form token", cookie: true, origin: true},
		{name: "wrong form token", cookie: true, origin: true, formToken: strings.Repeat("cd", 32)},
		{name: "another origin", cookie: true, formToken: "ok", originValue: "http://evil.example"},
		{name: "another port of localhost", cookie: true, formToken: "ok", originValue: "http://127.0.0.1:1"},
		{name: "null origin", cookie: true, formToken: "ok", originValue: "null"},
		{name: "no origin nor referer", cookie: true, formToken: "ok"},
		{name: "rebound host name", cookie: true, origin: true, formToken: "ok", host: "evil.example"},
	}
	for path, form := range writes {
		for _, c := range cases {
			v := url.Values{}
			for k, x := range form {
				v[k] = x
			}
			switch c.formToken {
			case "ok":
				v.Set("token", f.srv.Token())
			case "":
			default:
				v.Set("token", c.formToken)
			}
			req, _ := http.NewRequest(http.MethodPost, f.ts.URL+path, strings.NewReader(v.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if c.origin {
				req.Header.Set("Origin", f.ts.URL)
			} else if c.originValue != "" {
				req.Header.Set("Origin", c.originValue)
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.cookie {
				req.AddCookie(&http.Cookie{Name: cookieName(strings.TrimPrefix(f.ts.URL, "http://")), Value: f.srv.Token()})
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s, %s: %d, want 403", path, c.name, resp.StatusCode)
			}
		}
	}
	if after := f.head(); after != before {
		t.Errorf("a refused write moved HEAD: %s", f.subject())
	}
	// reads need the token too, and a loopback Host
	req, _ := http.NewRequest(http.MethodGet, f.ts.URL+"/learning/"+id, nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("a read without the token: %v %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequest(http.MethodGet, f.ts.URL+"/?token="+f.srv.Token(), nil)
	req.Host = "attacker.example:80"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("a read through a rebound host name: %v %v", resp.StatusCode, err)
	}
}

func TestEditCommits(t *testing.T) {
	f := newFixture(t)
	id := f.ids["oauth"]
	const ghp = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
	form := url.Values{"base": {f.base(id)}, "title": {"OAuth callback URL is compared byte for byte"}, "project": {"github.com/acme/auth"},
		"kind": {"fix"}, "confidence": {"high"}, "tags": {"oauth, callback, oauth"}, "entities": {""},
		"triggers": {"redirect_uri mismatch, again\r\n\r\ntoken " + ghp + "\r\n"},
		"body":     {"Register it exactly.\r\nToken was " + ghp + "\r\n"}}
	code, loc, body := f.post("/learning/"+id+"/edit", form)
	if code != http.StatusSeeOther || !strings.Contains(loc, "done=saved") {
		t.Fatalf("edit: %d %s\n%s", code, loc, body)
	}
	if s := f.subject(); s != "edit: OAuth callback URL is compared byte for byte ("+id+")" {
		t.Errorf("commit %q", s)
	}
	l, raw, err := learnings.Get(f.repo, id)
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != "fix" || l.Confidence != "high" || strings.Join(l.Tags, ",") != "oauth,callback" || strings.Contains(string(raw), ghp) || strings.Contains(string(raw), "\r") ||
		len(l.Triggers) != 2 || l.Triggers[0] != "redirect_uri mismatch, again" {
		t.Errorf("saved:\n%s", raw)
	}
	f.clean()
	// the same form again is not a change
	before := f.head()
	form.Set("base", f.base(id))
	form.Set("body", l.Body)
	form.Set("triggers", strings.Join(l.Triggers, "\n"))
	if code, loc, _ := f.post("/learning/"+id+"/edit", form); code != 303 || !strings.Contains(loc, "nochange") || f.head() != before {
		t.Errorf("an unchanged form: %d %s", code, loc)
	}
}

func TestBadEditChangesNothing(t *testing.T) {
	f := newFixture(t)
	id := f.ids["oauth"]
	before := f.head()
	good := url.Values{"base": {f.base(id)}, "title": {"ok"}, "project": {"github.com/acme/auth"}, "kind": {"rule"}, "confidence": {"medium"}, "body": {"b"}}
	for name, c := range map[string]struct {
		field, value string
		code         int
		want         string
	}{
		"unknown kind":   {"kind", "nonsense", 400, "kind"},
		"bad confidence": {"confidence", "sure", 400, "confidence"},
		"empty title":    {"title", " ", 400, "title"},
		"bad project":    {"project", "../../etc", 400, "project"},
		"no base":        {"base", "", 400, "base"},
		"stale base":     {"base", strings.Repeat("1", 40), 409, "changed since this page was loaded"},
		"title too long": {"title", strings.Repeat("x", 300), 400, "title"},
	} {
		v := url.Values{}
		for k, x := range good {
			v[k] = x
		}
		v.Set(c.field, c.value)
		code, _, body := f.post("/learning/"+id+"/edit", v)
		if code != c.code || !strings.Contains(body, "Not saved, nothing committed") || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d, want %d naming %q:\n%.3000s", name, code, c.code, c.want, body)
		}
		if name != "no base" && !strings.Contains(body, `value="`+htmlEsc(c.value)+`"`) && c.field != "kind" && c.field != "confidence" && c.field != "base" {
			t.Errorf("%s: the form lost what was typed", name)
		}
	}
	if f.head() != before {
		t.Errorf("a refused edit committed: %s", f.subject())
	}
}

func htmlEsc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// A form loaded before the file changed is refused, whatever the write.
func TestStaleWritesRefused(t *testing.T) {
	f := newFixture(t)
	id := f.ids["oauth"]
	stale := f.base(id)
	staleDup := f.base(f.ids["dup"])
	// someone else changes the learning (another process, a sync)
	old, raw, _ := learnings.Get(f.repo, id)
	if _, _, err := learnings.SaveEdit(context.Background(), f.repo, old, raw, []byte(strings.Replace(string(raw), "Register", "Always register", 1))); err != nil {
		t.Fatal(err)
	}
	before := f.head()
	for path, form := range map[string]url.Values{
		"/learning/" + id + "/edit":      {"base": {stale}, "title": {"mine"}, "project": {"github.com/acme/auth"}, "kind": {"rule"}, "confidence": {"medium"}, "body": {"mine"}},
		"/learning/" + id + "/archive":   {"base": {stale}},
		"/learning/" + id + "/supersede": {"base": {stale}, "by": {f.ids["dup"]}},
		"/merge":                         {"old": {f.ids["dup"]}, "keep": {id}, "old_base": {staleDup}, "keep_base": {stale}, "title": {"x"}, "body": {"y"}},
	} {
		code, _, body := f.post(path, form)
		if code != http.StatusConflict || !strings.Contains(body, "changed since this page was loaded") {
			t.Errorf("POST %s with a stale base: %d\n%.2000s", path, code, body)
		}
	}
	if f.head() != before {
		t.Errorf("a stale write committed: %s", f.subject())
	}
}

func TestLifecycleWrites(t *testing.T) {
	f := newFixture(t)
	oauth, dup, goID := f.ids["oauth"], f.ids["dup"], f.ids["go"]
	code, loc, body := f.post("/learning/"+goID+"/archive", url.Values{"base": {f.base(goID)}, "reason": {"obsolete"}})
	if code != 303 || !strings.Contains(loc, "archived") {
		t.Fatalf("archive: %d %s %s", code, loc, body)
	}
	if s := f.subject(); !strings.HasPrefix(s, "archive: "+goID) || !strings.Contains(s, "Reason: obsolete") {
		t.Errorf("archive commit %q", s)
	}
	// archiving again is no commit
	head := f.head()
	if code, loc, _ := f.post("/learning/"+goID+"/archive", url.Values{"base": {f.base(goID)}}); code != 303 || !strings.Contains(loc, "already") || f.head() != head {
		t.Errorf("archive again: %d %s", code, loc)
	}
	// superseding by an archived learning is refused with the package's message
	code, _, body = f.post("/learning/"+dup+"/supersede", url.Values{"base": {f.base(dup)}, "by": {goID}})
	if code != 400 || !strings.Contains(body, "only a current learning can supersede another") || f.head() != head {
		t.Errorf("supersede by an archived one: %d\n%.1500s", code, body)
	}
	// by one another author pushed that nobody reviewed, too: its file would list dup, and
	// the user's commit would make it read as theirs on their other machines; a merge into
	// it, whose text the person writes, reviews it
	if err := provenance.Save(f.repo, map[string]provenance.Record{oauth: {Path: learnings.PathFor("github.com/acme/auth", oauth),
		Email: "mallory@example.org", Arrived: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	code, _, body = f.post("/learning/"+dup+"/supersede", url.Values{"base": {f.base(dup)}, "by": {oauth}})
	if code != 400 || !strings.Contains(body, "another author&#39;s learning that nobody reviewed") || f.head() != head {
		t.Errorf("supersede by another author's unreviewed one: %d\n%.1500s", code, body)
	}
	code, loc, body = f.post("/merge", url.Values{"old": {dup}, "keep": {oauth}, "old_base": {f.base(dup)}, "keep_base": {f.base(oauth)},
		"title": {"OAuth callback URL: register it exactly"}, "tags": {"oauth"}, "body": {"Both said so.\n"}})
	if code != 303 || !strings.Contains(loc, "merged") {
		t.Fatalf("merge: %d %s %.1500s", code, loc, body)
	}
	if n, _ := exec.Command("git", "-C", f.repo.Root(), "show", "--name-only", "--format=", "HEAD").Output(); strings.Count(strings.TrimSpace(string(n)), "\n") != 1 {
		t.Errorf("the merge commit changed %q", n)
	}
	o, _, _ := learnings.Get(f.repo, dup)
	k, _, _ := learnings.Get(f.repo, oauth)
	if o.Status != learnings.StatusSuperseded || o.SupersededBy != oauth || k.Title != "OAuth callback URL: register it exactly" || k.Body != "Both said so.\n" || k.Seen != 2 {
		t.Errorf("after the merge: %+v\n%+v", o, k)
	}
	if rec, _, _ := provenance.Of(f.repo, oauth); rec.Reviewed != "you" {
		t.Errorf("the kept learning, its text written in the merge, is not reviewed: %+v", rec)
	}
	code, loc, _ = f.post("/queue/"+f.entry+"/drop", url.Values{})
	if code != 303 || !strings.Contains(loc, "dropped") {
		t.Errorf("drop: %d %s", code, loc)
	}
	if code, _, _ := f.post("/queue/"+f.entry+"/drop", url.Values{}); code != 404 {
		t.Errorf("drop again: %d", code)
	}
	f.clean()
	// the learning's page shows its history: the merge and the create
	_, page := f.get("/learning/" + oauth)
	if !strings.Contains(page, "merge: "+dup) || !strings.Contains(page, "learn: OAuth redirect") {
		t.Errorf("history missing:\n%s", page)
	}
}

func TestListenLoopbackOnly(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:0": true, "127.0.0.2:0": true,
		"0.0.0.0:0": false, ":0": false, "[::]:0": false, "192.168.1.10:0": false, "example.org:80": false, "nonsense": false} {
		ln, err := Listen(addr)
		var ae *AddrError
		switch {
		case ok && err != nil:
			t.Errorf("Listen(%q): %v", addr, err)
		case !ok && !errors.As(err, &ae):
			t.Errorf("Listen(%q): %v, want an AddrError", addr, err)
		}
		if ln != nil {
			if h, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(h).IsLoopback() {
				t.Errorf("Listen(%q) listens on %s", addr, ln.Addr())
			}
			ln.Close()
		}
	}
}

// The activity charts count captures, drains and what they made from the commit subjects,
// as the drain writes them (a manual add is not a drain).
func TestActivityCounts(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i, msg := range []string{"drain: 2 new, 1 seen again (from claude-code session 7f3c1a9e, claude)",
		"learn: Pin Go (from codex session 0199aa01, heuristic)", "learn: Use pnpm (manual)"} {
		if _, err := f.repo.Commit(ctx, msg, map[string][]byte{fmt.Sprintf("learnings/_global/x%d.txt", i): []byte("x\n")}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := f.get("/activity")
	if code != 200 {
		t.Fatalf("activity: %d", code)
	}
	// this week: 1 capture, 2 drained entries that made 3 learnings: a yield of 150 per 100
	for _, want := range []string{`>captures, week of `, `: 1</title>`, `>150</text>`, `(3 learnings from 2 captures)`} {
		if !strings.Contains(body, want) {
			t.Errorf("activity lacks %s:\n%s", want, body)
		}
	}
	_, q := f.get("/queue")
	if !strings.Contains(q, "Pin Go (from codex session") || strings.Contains(q, "Use pnpm (manual)") {
		t.Errorf("the queue page's drain commits:\n%s", q)
	}
}

// The parsed learnings a run keeps for the next are used only for the same file at the same
// blob, and a cache that does not decode is ignored.
func TestDiskCache(t *testing.T) {
	f := newFixture(t)
	if err := f.srv.Warm(); err != nil {
		t.Fatal(err)
	}
	home := f.repo.Root()
	f.srv.Close()
	// mark one cached learning, so that the next run shows whether it read the cache
	data, err := f.repo.ReadState(diskCacheFile)
	if err != nil {
		t.Fatal(err)
	}
	var d diskCache
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&d); err != nil || len(d.Learnings) != 4 {
		t.Fatalf("the cache holds %d learnings (%v)", len(d.Learnings), err)
	}
	for _, l := range d.Learnings {
		if l.ID == f.ids["go"] {
			l.Title = "FROM THE CACHE"
		}
	}
	var buf bytes.Buffer
	gob.NewEncoder(&buf).Encode(d)
	if err := f.repo.WriteState(diskCacheFile, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	// another process edits one learning: its blob changes
	old, raw, _ := learnings.Get(f.repo, f.ids["oauth"])
	if _, _, err := learnings.SaveEdit(context.Background(), f.repo, old, raw, []byte(strings.Replace(string(raw), "title: OAuth redirect", "title: Edited OAuth redirect", 1))); err != nil {
		t.Fatal(err)
	}
	list := func() string {
		s, err := New(Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1/?status=all", nil)
		req.AddCookie(&http.Cookie{Name: cookieName("127.0.0.1:1"), Value: s.Token()})
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w.Body.String()
	}
	page := list()
	if !strings.Contains(page, "FROM THE CACHE") || !strings.Contains(page, "Edited OAuth redirect") {
		t.Errorf("the restart did not use the cache for the same blob, or used it for a changed one:\n%s", page)
	}
	if err := f.repo.WriteState(diskCacheFile, []byte("not a gob")); err != nil {
		t.Fatal(err)
	}
	if page := list(); strings.Contains(page, "FROM THE CACHE") || !strings.Contains(page, "Run go test with -count=1") {
		t.Errorf("a cache that does not decode was used:\n%s", page)
	}
}

// The history page is reflect history search: a query shows the sessions with evidence
// windows; a learning's session links to the session's page, which lists what was learned
// from it.
func TestHistoryPage(t *testing.T) {
	f := newFixture(t)
	const session = "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93"
	if _, err := history.At(f.repo.StateDir()).Import(context.Background(), history.ImportOptions{
		Files: []string{filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl")}}); err != nil {
		t.Fatal(err)
	}
	l := learnings.New("Use pnpm, not npm, in the webshop", learnings.Global, time.Now())
	l.Source.Session, l.Source.Harness = session, "claude-code"
	if _, err := learnings.Create(context.Background(), f.repo, l, "learn: pnpm"); err != nil {
		t.Fatal(err)
	}
	code, body := f.get("/history?q=pnpm")
	if code != 200 || !strings.Contains(body, "no, use pnpm instead of npm") || !strings.Contains(body, `class="msg role-user hit"`) {
		t.Errorf("a history search: %d\n%s", code, body)
	}
	_, page := f.get("/learning/" + l.ID)
	if !strings.Contains(page, `href="/history?session=`+session+`"`) {
		t.Errorf("the learning does not link its session:\n%s", page)
	}
	_, body = f.get("/history?session=" + session)
	if !strings.Contains(body, "the checkout tests fail on CI") || !strings.Contains(body, "Use pnpm, not npm, in the webshop") {
		t.Errorf("the session's page:\n%s", body)
	}
	if _, body = f.get("/history?session=nope"); !strings.Contains(body, "is not in this machine") {
		t.Errorf("an unknown session:\n%s", body)
	}
}

// Retry is reflect queue retry: a failed capture back in the queue, one commit; a pending
// one cannot be retried.
func TestQueueRetry(t *testing.T) {
	f := newFixture(t)
	now := time.Now()
	e := &queue.Entry{ID: queue.NewID(now), Harness: "codex", Session: "sess-2", Trigger: "stop", Project: "_global",
		Machine: "laptop", Created: now, Updated: now, Error: "the extractor timed out", Attempts: 3,
		Digest: queue.Digest{Prompts: 1, Notes: []queue.Note{{Kind: "prompt", Text: "fix the build"}}}}
	data, _ := json.Marshal(e)
	if _, err := f.repo.Commit(context.Background(), "drain: failed", map[string][]byte{queue.FailedPath(e.ID): data}); err != nil {
		t.Fatal(err)
	}
	_, page := f.get("/queue/" + e.ID)
	if !strings.Contains(page, "the extractor timed out") || !strings.Contains(page, "/queue/"+e.ID+"/retry") {
		t.Errorf("a failed entry's page:\n%s", page)
	}
	before := f.head()
	if code, _, body := f.post("/queue/"+f.entry+"/retry", url.Values{}); code != 404 || !strings.Contains(body, "nothing was committed") || f.head() != before {
		t.Errorf("retry of a pending entry: %d\n%.1000s", code, body)
	}
	if code, loc, _ := f.post("/queue/"+e.ID+"/retry", url.Values{}); code != 303 || !strings.Contains(loc, "retried") {
		t.Fatalf("retry: %d %s", code, loc)
	}
	if _, err := f.repo.ReadFile(queue.Path(e.ID)); err != nil {
		t.Errorf("the entry is not back in the queue: %v", err)
	}
	f.clean()
}

// TestRecallCountOncePerSession: a session whose list of injected learnings was rewritten
// counts once (a rewrite keeps the list's previous state beside it, which is no session).
func TestRecallCountOncePerSession(t *testing.T) {
	f := newFixture(t)
	for _, list := range []string{"lrn-a\n", "lrn-a\nlrn-b\n"} {
		if err := f.repo.WriteVolatileState("state/recall/claude-code-s1.json", []byte(list)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.repo.WriteVolatileState("state/recall/codex-s2.json", []byte("lrn-a\n")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]int{"lrn-a": 2, "lrn-b": 1, "lrn-c": 0} {
		if n, _ := recallCount(f.repo, id); n != want {
			t.Errorf("%s counted in %d sessions, want %d", id, n, want)
		}
	}
	// a list older than recall.SeenKept, which no drain has swept yet, is not counted: the
	// page says "in the last 30 days"
	old := time.Now().Add(-recall.SeenKept - time.Hour)
	if err := os.Chtimes(filepath.Join(f.repo.StateDir(), "state", "recall", "codex-s2.json"), old, old); err != nil {
		t.Fatal(err)
	}
	if n, _ := recallCount(f.repo, "lrn-a"); n != 1 {
		t.Errorf("lrn-a counted in %d sessions with one list past recall.SeenKept, want 1", n)
	}
}
