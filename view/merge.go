package view

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
)

// mergeData is the merge page: Old is superseded by Keep, which takes the combined text.
type mergeData struct {
	Old, Keep                   *learnings.Learning
	OldBase, KeepBase           string
	Title, Tags, Entities, Body string
}

// mergeForm shows two near-duplicates and their texts combined for editing: a supersede of
// old by keep, with keep's text replaced by what the person makes of both.
func (s *Server) mergeForm(w http.ResponseWriter, r *http.Request) {
	var d mergeData
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		a, b := r.URL.Query().Get("old"), r.URL.Query().Get("keep")
		if a == "" || b == "" {
			return &badRequest{"merge needs two learnings: ?old=ID&keep=ID"}
		}
		old, err := s.cache.resolve(a)
		if err != nil {
			return err
		}
		keep, err := s.cache.resolve(b)
		if err != nil {
			return err
		}
		if old.ID == keep.ID {
			return &badRequest{"a learning cannot be merged into itself"}
		}
		d = mergeData{Old: old, Keep: keep, OldBase: s.cache.blobOf[old.ID].String(), KeepBase: s.cache.blobOf[keep.ID].String(),
			Title: keep.Title, Tags: strings.Join(learnings.Union(keep.Tags, old.Tags), ", "),
			Entities: strings.Join(learnings.Union(keep.Entities, old.Entities), ", "),
			Body:     strings.TrimRight(keep.Body, "\n") + "\n\n" + strings.TrimRight(old.Body, "\n") + "\n"}
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "merge", page{Title: "Merge", Nav: "list", Data: d})
}

// merge commits, in one commit, keep's new text and old superseded by keep. Both must be
// the versions the page showed.
func (s *Server) merge(w http.ResponseWriter, r *http.Request) {
	var keepID string
	err := s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		old, err := s.cache.resolve(r.PostFormValue("old"))
		if err != nil {
			return err
		}
		keep, err := s.cache.resolve(r.PostFormValue("keep"))
		if err != nil {
			return err
		}
		keepID = keep.ID
		ob, err := postedBase(r, "old_base")
		if err != nil {
			return err
		}
		kb, err := postedBase(r, "keep_base")
		if err != nil {
			return err
		}
		title := strings.TrimSpace(r.PostFormValue("title"))
		body := strings.ReplaceAll(r.PostFormValue("body"), "\r\n", "\n")
		tags, entities := splitList(r.PostFormValue("tags"), ","), splitList(r.PostFormValue("entities"), ",")
		_, err = s.change(r.Context(), repo, []string{old.ID, keep.ID}, map[string]plumbing.Hash{old.ID: ob, keep.ID: kb},
			func(ls []*learnings.Learning) (string, error) {
				o, k := ls[0], ls[1]
				k.Title, k.Body, k.Tags, k.Entities = title, body, tags, entities
				// the words either was asked for by, and the times either was learned
				k.Triggers = learnings.Union(k.Triggers, o.Triggers)
				// what a person typed is redacted as learnings.SaveEdit redacts an edit
				k.Redact()
				k.Seen += o.Seen
				if _, err := learnings.Supersede(o, k, s.o.Now()); err != nil {
					return "", err
				}
				k.Updated = s.o.Now().UTC().Truncate(1e9)
				return fmt.Sprintf("merge: %s into %s\n\n%s\n→ %s", o.ID, k.ID, o.Title, k.Title), nil
			})
		if err != nil {
			return err
		}
		// the person wrote the kept learning's text in the form, as an edit: a review (its
		// version is now this user's commit, which their other machines take for their own)
		if err := provenance.MarkReviewed(repo, keep.ID, "you"); err != nil {
			s.o.Log.Warn("record the review", "id", keep.ID, "err", err)
		}
		return nil
	})
	if err != nil {
		s.fail(w, r, fmt.Errorf("nothing was committed: %w", err))
		return
	}
	http.Redirect(w, r, "/learning/"+url.PathEscape(keepID)+"?done=merged", http.StatusSeeOther)
}
