package view

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/learnings"
)

// chromium finds a Chromium to drive, or skips the test: .ci/run installs Debian's.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install chromium; .ci/run installs it): the browser tests need a real browser")
	return ""
}

// TestBrowser drives a real headless Chromium through the page as a person would: the list,
// a filter, a search, a learning, an edit saved (a commit with the new title), an archive, an
// edit refused because the file changed after the page loaded, the queue. No script of a
// learning ever runs (a dialog fails the test). Screenshots of the main pages are written
// to the test's temp dir, and to $REFLECT_VIEW_SCREENSHOTS when set (docs/view.png is one).
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	f := newDrifted(t)
	var samples = map[string][]byte{}
	for _, s := range fixtures.Learnings() {
		l, err := learnings.Parse(s.Name, s.Data)
		if err != nil {
			t.Fatal(err)
		}
		samples[l.RelPath()] = s.Data
	}
	if _, err := f.repo.Commit(context.Background(), "learn: the sample learnings", samples); err != nil {
		t.Fatal(err)
	}
	shots := []string{t.TempDir()}
	if d := os.Getenv("REFLECT_VIEW_SCREENSHOTS"); d != "" {
		shots = append(shots, d)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	// Debian's launcher sizes /dev/shm with findmnt, which printed more than a number while
	// another package's test had a tmpfs mounted, and Chromium once crashed at its start in
	// CI: a browser that does not start is started once more before the test fails
	var ctx context.Context
	for attempt := 1; ; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelBrowser := chromedp.NewContext(actx)
		tctx, cancelTime := context.WithTimeout(bctx, 60*time.Second)
		err := chromedp.Do(tctx, chromedp.Navigate("about:blank"))
		if err == nil {
			defer cancelAlloc()
			defer cancelBrowser()
			defer cancelTime()
			ctx = tctx
			break
		}
		cancelTime()
		cancelBrowser()
		cancelAlloc()
		if attempt == 2 {
			t.Fatalf("start the browser: %v", err)
		}
		t.Logf("start the browser (attempt %d): %v; once more", attempt, err)
	}
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	// a learning's script that ran would open a dialog: record it, and close it
	dialogs := make(chan string, 8)
	events := chromedp.Events(ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			dialogs <- ev.Message
			chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				return err
			}
			for _, d := range shots {
				if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
					return err
				}
			}
			return nil
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	// submit clicks a form's button and waits for the page it loads
	submit := func(step, sel string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(css(sel)))); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	// the list, opened through the URL reflect view prints
	do("open the list", chromedp.Navigate(f.ts.URL+"/?token="+f.srv.Token()), chromedp.WaitVisible(css("#learnings")))
	if c := text("#count"); !strings.Contains(c, "of ") {
		t.Errorf("list count %q", c)
	}
	do("screenshot the list", shot("list.png"))

	// filter to the global learnings
	do("filter", chromedp.SetValue(css("#project"), learnings.Global))
	submit("filter", "#apply")
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#learnings td.project")].map(td => td.textContent)`))
	if err != nil || len(rows) == 0 {
		t.Fatalf("the project filter shows nothing: %v", err)
	}
	for _, p := range rows {
		if p != learnings.Global {
			t.Errorf("the %s filter shows a learning of %q", learnings.Global, p)
		}
	}

	// search, highlighted
	do("search", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css("#q")),
		chromedp.SetValue(css("#q"), "callback"))
	submit("search", "#apply")
	do("search results", chromedp.WaitVisible(css("mark")))
	do("screenshot the search", shot("search.png"))

	// a learning whose title and body hold scripts: shown as text, never run
	do("open the hostile learning", chromedp.Navigate(f.ts.URL+"/learning/"+f.ids["xss"]), chromedp.WaitVisible(css("#title")))
	if got := text("#title"); got != `<script>alert("title")</script> OAuth state` {
		t.Errorf("the title reads %q", got)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`)); err != nil || n != 0 {
		t.Errorf("%d script elements on a learning's page (%v)", n, err)
	}

	// open a learning from the list, edit its title, save: a commit with the new title
	id := f.ids["oauth"]
	link := css(`a[href="/learning/` + id + `"]`)
	do("find a learning", chromedp.Navigate(f.ts.URL+"/?q=redirect"), chromedp.WaitVisible(link))
	submit("open a learning", `a[href="/learning/`+id+`"]`)
	do("screenshot a learning", shot("learning.png"))
	const title = "OAuth callback URL is compared byte for byte"
	submit("open the edit form", "#edit")
	do("edit", chromedp.SetValue(css("#f-title"), title), shot("edit.png"))
	submit("save", "#save")
	if !strings.Contains(text("#flash"), "Saved") {
		t.Errorf("after saving the page says %q", text("#flash"))
	}
	if got := text("#title"); got != title {
		t.Errorf("after saving the page shows %q", got)
	}
	if s := f.subject(); s != "edit: "+title+" ("+id+")" {
		t.Errorf("the edit's commit: %q", s)
	}
	if l, _, err := learnings.Get(f.repo, id); err != nil || l.Title != title {
		t.Errorf("the file after the edit: %v %v", l, err)
	}

	// archive one
	goID := f.ids["go"]
	do("open the learning to archive", chromedp.Navigate(f.ts.URL+"/learning/"+goID), chromedp.WaitVisible(css("#archive")))
	submit("archive", "#archive")
	if !strings.Contains(text("#flash"), "Archived") {
		t.Errorf("after archiving the page says %q", text("#flash"))
	}
	if l, _, err := learnings.Get(f.repo, goID); err != nil || l.Status != learnings.StatusArchived || !strings.HasPrefix(f.subject(), "archive: "+goID) {
		t.Errorf("after archiving: %v %v, commit %q", l, err, f.subject())
	}

	// a stale edit: the file changes after the form loaded; saving is refused, nothing written
	dup := f.ids["dup"]
	do("open an edit", chromedp.Navigate(f.ts.URL+"/learning/"+dup+"/edit"), chromedp.WaitVisible(css("#f-title")),
		chromedp.SetValue(css("#f-title"), "my stale title"))
	old, raw, err := learnings.Get(f.repo, dup)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := learnings.SaveEdit(context.Background(), f.repo, old, raw, []byte(strings.Replace(string(raw), "registered", "registered byte for byte", 1))); err != nil {
		t.Fatal(err)
	}
	head := f.head()
	submit("save the stale edit", "#save")
	if e := text("#error"); !strings.Contains(e, "changed since this page was loaded") {
		t.Errorf("a stale edit says %q", e)
	}
	if f.head() != head {
		t.Errorf("a stale edit committed %q", f.subject())
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(css("#f-title"))); err != nil || v != "my stale title" {
		t.Errorf("the refused form lost the text typed: %q %v", v, err)
	}

	// filter to the drifted learnings: the one whose Makefile changed, with its badge; its
	// page names the file and the commits; keep re-anchors it in one commit
	do("freshness filter", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css("#fresh")),
		chromedp.SetValue(css("#fresh"), "drifted"))
	submit("freshness filter", "#apply")
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#learnings a.title")].map(a => a.getAttribute("href"))`))
	if err != nil || len(ids) != 1 || ids[0] != "/learning/"+f.ids["drift"] {
		t.Errorf("the drifted filter shows %v (%v)", ids, err)
	}
	if b := text("#learnings .badge"); b != "drifted" {
		t.Errorf("the drifted row's badge reads %q", b)
	}
	do("screenshot the drifted filter", shot("drifted.png"))
	submit("open the drifted learning", `a[href="/learning/`+f.ids["drift"]+`"]`)
	if st := text("#stale"); !strings.Contains(st, "Makefile: changed in 2 commits") || !strings.Contains(st, "make: migrate B") {
		t.Errorf("the drifted learning's page says %q", st)
	}
	do("screenshot a drifted learning", shot("stale.png"))
	submit("keep", "#keep")
	if fl := text("#flash"); !strings.Contains(fl, "re-anchored") {
		t.Errorf("after keep the page says %q", fl)
	}
	if b := text("#freshness"); b != "fresh" || !strings.HasPrefix(f.subject(), "re-anchor: "+f.ids["drift"]) {
		t.Errorf("after keep: %q, commit %q", b, f.subject())
	}

	// the queue
	do("queue", chromedp.Navigate(f.ts.URL+"/queue"), chromedp.WaitVisible(css("#queue")), shot("queue.png"))
	if q := text("#queue"); !strings.Contains(q, f.entry) || !strings.Contains(q, "pending") {
		t.Errorf("the queue shows %q", q)
	}
	do("activity", chromedp.Navigate(f.ts.URL+"/activity"), chromedp.WaitVisible(css("svg")), shot("activity.png"))

	// learnings only team acme holds: listed with their team and review, found by the team
	// filter, opened read-only (their markup escaped: a script would open a dialog)
	direct, _ := addTeamOnly(t, f.fixture)
	do("the team filter", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css("#memory")),
		chromedp.SetValue(css("#memory"), "team"))
	submit("the team filter", "#apply")
	badges, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#learnings .team-only")].map(b => b.textContent)`))
	if err != nil || len(badges) != 2 || !slices.Contains(badges, "team acme (not reviewed)") || !slices.Contains(badges, "team acme (reviewed)") {
		t.Errorf("the team filter's badges: %q %v", badges, err)
	}
	submit("open a team learning", `#learnings a.team-title[href$="`+direct+`"]`)
	do("the team learning", chromedp.WaitVisible(css("#readonly")), shot("team-learning.png"))
	if r := text("#readonly"); !strings.Contains(r, "Read-only here") || !strings.Contains(r, "Not reviewed") {
		t.Errorf("the team learning's page says %q", r)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("form[method=post], #edit").length`)); err != nil || n != 0 {
		t.Errorf("the team learning's page has %d forms to change it (%v)", n, err)
	}
	if title := text("#title"); !strings.Contains(title, "<img src=x") {
		t.Errorf("the title is not shown as text: %q", title)
	}

	// archive the hostile learning with a reason typed in the form; the overview after it is
	// the README's screenshot (docs/view.png)
	do("open the hostile learning again", chromedp.Navigate(f.ts.URL+"/learning/"+f.ids["xss"]), chromedp.WaitVisible(css("#archive")),
		chromedp.SetValue(css(`#archive-form input[name="reason"]`), "a test of escaping"))
	submit("archive with a reason", "#archive")
	if s := f.subject(); !strings.HasSuffix(s, "Reason: a test of escaping") {
		t.Errorf("the archive's commit: %q", s)
	}
	do("overview", chromedp.Navigate(f.ts.URL+"/?sort=title"), chromedp.WaitVisible(css("#learnings")), shot("overview.png"))

	select {
	case m := <-dialogs:
		t.Errorf("a script ran and opened a dialog: %q", m)
	default:
	}
	f.clean()
	t.Logf("screenshots in %s", strings.Join(shots, ", "))
}
