package view

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/team"
)

// pages are the parsed templates, one set per page (each defines "content" for "base").
type pages struct {
	t map[string]*template.Template
}

var pageNames = []string{"list", "learning", "teamlearning", "edit", "merge", "queue", "entry", "history", "activity", "error"}

func loadPages() (*pages, error) {
	p := &pages{t: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(assets, "templates/base.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("view template %s: %w", name, err)
		}
		p.t[name] = t
	}
	return p, nil
}

var funcs = template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
	"day": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02")
	},
	"join":       strings.Join,
	"split":      strings.Fields,
	"short":      func(s string) string { return s[:min(len(s), 8)] },
	"pathEscape": url.PathEscape,
	"query":      query,
}

// query is a ?k=v&… of the non-empty pairs, escaped.
func query(kv ...string) template.URL {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return ""
	}
	return template.URL("?" + q.Encode())
}

// page is what every template gets: the layout's fields and the page's own data.
type page struct {
	Title string
	Nav   string // the menu entry to mark
	Token string
	Flash string
	Error string
	Data  any
}

// flashes are the messages a redirect after a write may name (never text from the URL).
var flashes = map[string]string{
	"saved": "Saved: one commit.", "nochange": "Nothing changed: no commit.",
	"archived": "Archived: one commit.", "superseded": "Superseded: one commit.",
	"merged": "Merged: one commit.", "retried": "Back in the queue: one commit.",
	"dropped": "Dropped: one commit.", "reanchored": "Kept and re-anchored to the files as they are now: one commit.", "already": "It was already so: no commit.",
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Token = s.token
	if p.Flash == "" {
		p.Flash = flashes[r.URL.Query().Get("done")]
	}
	var buf bytes.Buffer
	if err := s.pages.t[name].ExecuteTemplate(&buf, "base", p); err != nil {
		s.o.Log.Error("render", "page", name, "err", err)
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail shows err on a page of its own with the status that fits it.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	if status >= 500 {
		s.o.Log.Error("view", "path", r.URL.Path, "err", err)
	}
	s.render(w, r, status, "error", page{Title: http.StatusText(status), Error: err.Error()})
}

// statusOf maps the packages' errors to HTTP: an unknown id 404, a change under the page
// 409, an invalid value 400.
func statusOf(err error) int {
	var fe *learnings.FieldError
	var amb *learnings.AmbiguousIDError
	var bad *badRequest
	var secret *team.SecretError
	switch {
	case errors.Is(err, learnings.ErrUnknownID), errors.Is(err, queue.ErrUnknownEntry), errors.Is(err, errNotFound), errors.Is(err, team.ErrUnknown):
		return http.StatusNotFound
	case errors.Is(err, learnings.ErrChanged), errors.Is(err, errStale):
		return http.StatusConflict
	case errors.As(err, &fe), errors.As(err, &amb), errors.As(err, &bad), errors.As(err, &secret), errors.Is(err, team.ErrName):
		return http.StatusBadRequest
	case errors.Is(err, gitstore.ErrLocked):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

var errNotFound = errors.New("not found")

// errStale is a write whose page was loaded before the learning last changed.
var errStale = errors.New("changed since this page was loaded; nothing was written: reload the page to see the change, then try again")

// badRequest is input a form gave that no package would take.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func (s *Server) routes() {
	m := http.NewServeMux()
	m.Handle("GET /static/", staticFS())
	m.HandleFunc("GET /{$}", s.list)
	m.HandleFunc("GET /learning/{id}", s.learning)
	m.HandleFunc("GET /team/{team}/learning/{id}", s.teamLearning)
	m.HandleFunc("GET /learning/{id}/edit", s.editForm)
	m.HandleFunc("POST /learning/{id}/edit", s.edit)
	m.HandleFunc("POST /learning/{id}/archive", s.archive)
	m.HandleFunc("POST /learning/{id}/supersede", s.supersede)
	m.HandleFunc("POST /learning/{id}/keep", s.keep)
	m.HandleFunc("POST /learning/{id}/promote", s.promote)
	m.HandleFunc("GET /merge", s.mergeForm)
	m.HandleFunc("POST /merge", s.merge)
	m.HandleFunc("GET /queue", s.queue)
	m.HandleFunc("GET /queue/{id}", s.entry)
	m.HandleFunc("POST /queue/{id}/retry", s.retry)
	m.HandleFunc("POST /queue/{id}/drop", s.drop)
	m.HandleFunc("GET /history", s.history)
	m.HandleFunc("GET /activity", s.activity)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, fmt.Errorf("%w: %s %s", errNotFound, r.Method, r.URL.Path))
	})
	s.mux = m
}
