package view

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	gitdiff "github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/yuin/goldmark"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/recall"
)

// historyLimit bounds the commits a learning's page reads back for its history; older
// changes are left out and the page says so.
const historyLimit = 2000

// md renders a learning's body. goldmark's defaults are what untrusted text needs: raw HTML
// is left out ("<!-- raw HTML omitted -->") and javascript:, vbscript:, data: (but images)
// links lose their href.
var md = goldmark.New()

type link struct {
	ID, Title, Status string
	Missing           bool
}

type diffLine struct {
	Op, Text string
}

type revision struct {
	Commit, Author, Subject, Body string
	When                          time.Time
	Lines                         []diffLine
	Added, Removed                bool
}

type learningData struct {
	L            *learnings.Learning
	Base         string
	Body         template.HTML
	Revisions    []revision
	HistoryNote  string
	Supersedes   []link
	SupersededBy *link
	Provenance   *provenance.Record
	Recalled     int
	RecallNote   string
	RecallDays   int // how far back Recalled counts (recall.SeenKept)
	Similar      []link
	Session      string
	// Stale is the learning's anchors compared with its project on this machine; nil when
	// it has none or the project's work tree is not known here.
	Stale         *anchor.Stale
	ArchiveReason string
	// Anchors are the anchored paths of a learning that cannot be checked here (its
	// project's work tree is not known on this machine).
	Anchors []string
	// Teams are the team memories a promotion may go to; InTeams those whose main holds it.
	Teams, InTeams []string
}

// withLearning runs fn with the repository and the learning the URL's {id} names (any part
// of its id that no other holds, as the CLI takes it).
func (s *Server) withLearning(r *http.Request, fn func(*gitstore.Repo, *learnings.Learning) error) error {
	return s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		l, err := s.cache.resolve(r.PathValue("id"))
		if err != nil {
			return err
		}
		return fn(repo, l)
	})
}

func (s *Server) learning(w http.ResponseWriter, r *http.Request) {
	var d learningData
	err := s.withLearning(r, func(repo *gitstore.Repo, l *learnings.Learning) error {
		var err error
		d, err = s.learningData(r.Context(), repo, l)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "learning", page{Title: d.L.Title, Nav: "list", Data: d})
}

func (s *Server) learningData(ctx context.Context, repo *gitstore.Repo, l *learnings.Learning) (learningData, error) {
	d := learningData{L: l, Base: s.cache.blobOf[l.ID].String(), Session: l.Source.Session}
	var buf bytes.Buffer
	if err := md.Convert([]byte(l.Body), &buf); err != nil {
		return d, err
	}
	d.Body = template.HTML(buf.String())
	for _, id := range l.Supersedes {
		d.Supersedes = append(d.Supersedes, s.linkTo(id))
	}
	if l.SupersededBy != "" {
		k := s.linkTo(l.SupersededBy)
		d.SupersededBy = &k
	}
	if rec, ok, err := provenance.Of(repo, l.ID); err == nil && ok {
		d.Provenance = &rec
	}
	d.Recalled, d.RecallNote = recallCount(repo, l.ID)
	d.RecallDays = int(recall.SeenKept / (24 * time.Hour))

	head, err := repo.Head()
	if err != nil {
		return d, err
	}
	revs, err := repo.FileLog(head, l.RelPath(), historyLimit)
	if err != nil {
		return d, err
	}
	if len(revs) == 0 || !revs[len(revs)-1].Before.IsZero() {
		d.HistoryNote = fmt.Sprintf("Only the last %d commits were read; older changes (or the learning's move from another project) are not shown: git log --follow %s", historyLimit, l.RelPath())
	}
	for _, rv := range revs {
		x := revision{Commit: rv.ID.String(), Author: rv.Author, Subject: rv.Subject, Body: rv.Body, When: rv.When,
			Added: rv.Before.IsZero(), Removed: rv.After.IsZero()}
		before, after := blobText(repo, rv.Before), blobText(repo, rv.After)
		x.Lines = diffLines(before, after)
		d.Revisions = append(d.Revisions, x)
	}
	d.Similar = s.similar(ctx, repo, l)
	var in map[string][]string
	d.Teams, in = s.teams(repo)
	d.InTeams = in[l.ID]
	d.Stale = staleOf(ctx, repo, l)
	switch {
	case d.Stale == nil:
		for _, a := range l.AnchorList() {
			d.Anchors = append(d.Anchors, a.Path)
		}
	case d.Stale.Freshness.State != anchor.Fresh:
		d.ArchiveReason = anchor.ArchiveReason
	}
	return d, nil
}

func blobText(repo *gitstore.Repo, id plumbing.Hash) string {
	if id.IsZero() {
		return ""
	}
	b, err := repo.ReadBlob(id)
	if err != nil {
		return ""
	}
	return string(b)
}

// diffLines is a unified diff's body: changed lines with two of context, runs of unchanged
// lines between cut to "…".
func diffLines(before, after string) []diffLine {
	const ctx = 2
	var all []diffLine
	for _, d := range gitdiff.Do(before, after) {
		op := " "
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = "+"
		case diffmatchpatch.DiffDelete:
			op = "-"
		}
		for _, line := range strings.SplitAfter(d.Text, "\n") {
			if line != "" {
				all = append(all, diffLine{op, strings.TrimSuffix(line, "\n")})
			}
		}
	}
	var out []diffLine
	for i, dl := range all {
		if dl.Op != " " {
			out = append(out, dl)
			continue
		}
		near := false
		for j := max(0, i-ctx); j <= min(len(all)-1, i+ctx); j++ {
			if all[j].Op != " " {
				near = true
				break
			}
		}
		switch {
		case near:
			out = append(out, dl)
		case len(out) == 0 || out[len(out)-1].Op != "…":
			out = append(out, diffLine{"…", ""})
		}
	}
	return out
}

func (s *Server) linkTo(id string) link {
	if l, ok := s.cache.byID[id]; ok {
		return link{ID: l.ID, Title: l.Title, Status: string(l.Status)}
	}
	return link{ID: id, Missing: true}
}

// recallCount counts the sessions on this machine whose recall injected id within the last
// recall.SeenKept: recall keeps, per session, the ids it injected (state/recall/), to inject
// each at most once; a drain sweeps the older lists, and one not swept yet is not counted.
func recallCount(repo *gitstore.Repo, id string) (int, string) {
	const lists = recall.SeenDir
	ents, err := os.ReadDir(filepath.Join(repo.StateDir(), filepath.FromSlash(lists)))
	if err != nil {
		return 0, "no recall recorded on this machine yet"
	}
	const most = 5000
	n, read := 0, 0
	since := time.Now().Add(-recall.SeenKept)
	for _, e := range ents {
		if gitstore.IsSpare(e.Name()) {
			continue // a list's previous state, beside it
		}
		if fi, err := e.Info(); err != nil || fi.ModTime().Before(since) {
			continue
		}
		if read == most {
			return n, fmt.Sprintf("counted in the first %d sessions only", most)
		}
		read++
		// through the state's reader: a list is rewritten in place in its spare, then
		// trades names with it (gitstore.Repo.WriteVolatileState)
		data, err := repo.ReadState(lists + "/" + e.Name())
		if err == nil && slices.Contains(strings.Fields(string(data)), id) {
			n++
		}
	}
	return n, ""
}

// similar finds current learnings whose text is close to l's: the candidates to merge.
func (s *Server) similar(ctx context.Context, repo *gitstore.Repo, l *learnings.Learning) []link {
	terms := index.Analyze(l.Title)
	if len(terms) == 0 || l.Status != learnings.StatusCurrent {
		return nil
	}
	ix, err := index.Open(ctx, repo, index.Options{LockTimeout: time.Second})
	if err != nil {
		return nil
	}
	defer ix.Close()
	res, err := ix.Search(ctx, index.Query{Terms: terms, Projects: []string{l.Project}, Limit: 6})
	if err != nil {
		return nil
	}
	var out []link
	for _, h := range res.Hits {
		if h.ID != l.ID && len(out) < 5 {
			out = append(out, s.linkTo(h.ID))
		}
	}
	return out
}

// editForm is what the edit page shows and posts back.
type editForm struct {
	ID, Base, Title, Project, Kind, Confidence, Tags, Entities, Triggers, Body string
	Kinds, Confidences                                                         []string
}

// splitList is the distinct non-blank items of s between sep, trimmed (a "\r" of a
// browser's line ends too).
func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func withChoices(f editForm) editForm {
	f.Kinds, f.Confidences = nil, nil
	for _, k := range learnings.AllKinds() {
		f.Kinds = append(f.Kinds, string(k))
	}
	for _, c := range learnings.AllConfidences() {
		f.Confidences = append(f.Confidences, string(c))
	}
	return f
}

func (s *Server) editForm(w http.ResponseWriter, r *http.Request) {
	var f editForm
	err := s.withLearning(r, func(_ *gitstore.Repo, l *learnings.Learning) error {
		f = editForm{ID: l.ID, Base: s.cache.blobOf[l.ID].String(), Title: l.Title, Project: l.Project, Kind: string(l.Kind),
			Confidence: string(l.Confidence), Tags: strings.Join(l.Tags, ", "), Entities: strings.Join(l.Entities, ", "),
			Triggers: strings.Join(l.Triggers, "\n"), Body: l.Body}
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "edit", page{Title: "Edit " + f.Title, Nav: "list", Data: withChoices(f)})
}

// edit saves the form as reflect edit saves a file: learnings.SaveEdit validates it, redacts
// it, refuses it when the file changed since the form was loaded, and commits it once.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	f := editForm{ID: r.PathValue("id"), Base: r.PostFormValue("base"), Title: r.PostFormValue("title"),
		Project: r.PostFormValue("project"), Kind: r.PostFormValue("kind"), Confidence: r.PostFormValue("confidence"),
		Tags: r.PostFormValue("tags"), Entities: r.PostFormValue("entities"), Triggers: r.PostFormValue("triggers"),
		Body: r.PostFormValue("body")}
	var id string
	changed := false
	err := s.withRepo(func(repo *gitstore.Repo) error {
		old, raw, err := baseOf(repo, f.ID, f.Base)
		if err != nil {
			return err
		}
		l, err := learnings.Parse(old.RelPath(), raw)
		if err != nil {
			return err
		}
		l.Title, l.Project = strings.TrimSpace(f.Title), strings.TrimSpace(f.Project)
		l.Kind, l.Confidence = learnings.Kind(f.Kind), learnings.Confidence(f.Confidence)
		l.Tags, l.Entities = splitList(f.Tags, ","), splitList(f.Entities, ",")
		if r.PostForm.Has("triggers") { // one a line: a trigger may hold a comma
			l.Triggers = splitList(f.Triggers, "\n")
		}
		l.Body = strings.ReplaceAll(f.Body, "\r\n", "\n")
		if err := l.Validate(); err != nil {
			return err
		}
		edited, err := l.Render()
		if err != nil {
			return err
		}
		id = old.ID
		if bytes.Equal(edited, raw) {
			return nil
		}
		_, saved, err := learnings.SaveEdit(r.Context(), repo, old, raw, edited)
		if err != nil {
			return err
		}
		changed = true
		s.wrote(repo)
		// a person read it and saved it, as with reflect edit: reviewed now
		if err := provenance.MarkReviewed(repo, saved.ID, "you"); err != nil {
			s.o.Log.Warn("record the review", "id", saved.ID, "err", err)
		}
		return nil
	})
	if err != nil {
		s.render(w, r, statusOf(err), "edit", page{Title: "Edit " + f.Title, Nav: "list",
			Error: "Not saved, nothing committed: " + err.Error(), Data: withChoices(f)})
		return
	}
	done := "nochange"
	if changed {
		done = "saved"
	}
	http.Redirect(w, r, "/learning/"+url.PathEscape(id)+"?done="+done, http.StatusSeeOther)
}

// baseOf reads the version of learning id a form was loaded with (its blob), and checks
// that HEAD still holds it: an edit of an older version is refused, not merged.
func baseOf(repo *gitstore.Repo, id, base string) (*learnings.Learning, []byte, error) {
	h, ok := hashOf(base)
	if !ok {
		return nil, nil, &badRequest{"the form does not say which version it edits (base); reload the page"}
	}
	cur, curRaw, err := learnings.Get(repo, id)
	if err != nil {
		return nil, nil, err
	}
	if plumbing.ComputeHash(plumbing.BlobObject, curRaw) != h {
		return nil, nil, fmt.Errorf("%s %w", cur.RelPath(), errStale)
	}
	return cur, curRaw, nil
}

func hashOf(s string) (plumbing.Hash, bool) {
	if len(s) != 40 {
		return plumbing.ZeroHash, false
	}
	h := plumbing.NewHash(s)
	return h, !h.IsZero() && h.String() == strings.ToLower(s)
}

// change runs a lifecycle operation as the CLI does (learnings.Change: one commit, under the
// lock), first checking, under the lock too, that every learning with a base in bases is
// still the version the page showed.
func (s *Server) change(ctx context.Context, repo *gitstore.Repo, ids []string, bases map[string]plumbing.Hash, fn func([]*learnings.Learning) (string, error)) ([]*learnings.Learning, error) {
	want := map[string][]byte{}
	for id, h := range bases {
		raw, err := repo.ReadBlob(h)
		if err != nil {
			return nil, fmt.Errorf("%w (the version this page showed is not in the repository)", errStale)
		}
		l, err := learnings.Parse(s.pathOf(id), raw)
		if err != nil {
			return nil, err
		}
		if want[id], err = l.Render(); err != nil {
			return nil, err
		}
	}
	ls, _, err := learnings.Change(ctx, repo, ids, func(ls []*learnings.Learning) (string, error) {
		for _, l := range ls {
			w, ok := want[l.ID]
			if !ok {
				continue
			}
			cur, err := l.Render()
			if err != nil {
				return "", err
			}
			if !bytes.Equal(cur, w) {
				return "", fmt.Errorf("%s %w", l.RelPath(), errStale)
			}
		}
		return fn(ls)
	})
	if err == nil {
		s.wrote(repo)
	}
	return ls, err
}

func (s *Server) pathOf(id string) string {
	if l, ok := s.cache.byID[id]; ok {
		return l.RelPath()
	}
	return learnings.PathFor(learnings.Global, id)
}

// postedBase reads the base of the form, refusing a form without one.
func postedBase(r *http.Request, field string) (plumbing.Hash, error) {
	h, ok := hashOf(r.PostFormValue(field))
	if !ok {
		return h, &badRequest{"the form does not say which version it changes (" + field + "); reload the page"}
	}
	return h, nil
}

func (s *Server) archive(w http.ResponseWriter, r *http.Request) {
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	id, changed, err := s.lifecycle(r, nil, func(_ *gitstore.Repo, ls []*learnings.Learning) (bool, string, error) {
		if !ls[0].Archive(s.o.Now()) {
			return false, "", nil
		}
		return true, learnings.ArchiveMessage(ls[0], reason), nil
	})
	s.after(w, r, id, err, changed, "archived")
}

func (s *Server) supersede(w http.ResponseWriter, r *http.Request) {
	by := strings.TrimSpace(r.PostFormValue("by"))
	if by == "" {
		s.fail(w, r, fmt.Errorf("nothing was committed: %w", &badRequest{"supersede needs the id of the learning that replaces this one"}))
		return
	}
	id, changed, err := s.lifecycle(r, []string{by}, func(repo *gitstore.Repo, ls []*learnings.Learning) (bool, string, error) {
		if provenance.Unreviewed(repo, ls[1].ID) {
			// superseding lists the old one in the newer's file: the commit would make another
			// author's unreviewed learning read as the user's own on their other machines
			return false, "", &badRequest{ls[1].ID + " is another author's learning that nobody reviewed: open it and edit it (a review) before it supersedes another"}
		}
		changed, err := learnings.Supersede(ls[0], ls[1], s.o.Now())
		if err != nil || !changed {
			return false, "", err
		}
		return true, learnings.SupersedeMessage(ls[0], ls[1]), nil
	})
	s.after(w, r, id, err, changed, "superseded")
}

// lifecycle runs op, as the CLI's command does, on the learning the URL names (first) and
// the others: one commit, refused when the first is no longer the version the form showed.
// It returns the first's id and whether op changed anything; the caller answers (after).
func (s *Server) lifecycle(r *http.Request, others []string, op func(*gitstore.Repo, []*learnings.Learning) (bool, string, error)) (id string, changed bool, err error) {
	err = s.withLearning(r, func(repo *gitstore.Repo, l *learnings.Learning) error {
		id = l.ID
		base, err := postedBase(r, "base")
		if err != nil {
			return err
		}
		_, err = s.change(r.Context(), repo, append([]string{id}, others...), map[string]plumbing.Hash{id: base}, func(ls []*learnings.Learning) (string, error) {
			var msg string
			var err error
			changed, msg, err = op(repo, ls)
			return msg, err
		})
		return err
	})
	return id, changed, err
}

// after answers a lifecycle write: the learning's page again, saying what happened.
func (s *Server) after(w http.ResponseWriter, r *http.Request, id string, err error, changed bool, done string) {
	if err != nil {
		s.fail(w, r, fmt.Errorf("nothing was committed: %w", err))
		return
	}
	if !changed {
		done = "already"
	}
	http.Redirect(w, r, "/learning/"+url.PathEscape(id)+"?done="+done, http.StatusSeeOther)
}
