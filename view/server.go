package view

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Home is the knowledge repository. The server opens it again whenever HEAD moves, so
	// that objects another process wrote into a new pack (a sync) are found.
	Home string
	// Token is the secret every request must carry; empty: 32 random bytes.
	Token string
	Log   *slog.Logger
	// Now is the clock of the writes (tests); nil: time.Now.
	Now func() time.Time
	// OpenRepo opens the repository (the command's, which checks its settings); nil:
	// gitstore.Open.
	OpenRepo func(home string) (*gitstore.Repo, error)
	// GH is the GitHub CLI a promotion opens its pull request with (tests: a stand-in);
	// empty: gh on PATH, as reflect promote.
	GH string
}

// Server is the viewer: an http.Handler over one knowledge repository.
type Server struct {
	o     Options
	token string
	pages *pages
	mux   *http.ServeMux

	// mu serialises the use of the repository: gitstore.Repo's caches are not safe for
	// concurrent use, and a person's clicks do not need parallelism.
	mu    sync.Mutex
	repo  *gitstore.Repo
	head  plumbing.Hash
	cache *cache
	// teamStates: the team memories, kept open for the server's life (team.go)
	teamStates map[string]*teamState
}

// New returns a server for the repository at o.Home; it opens it once to check it.
func New(o Options) (*Server, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OpenRepo == nil {
		o.OpenRepo = gitstore.Open
	}
	s := &Server{o: o, token: o.Token, cache: newCache(), teamStates: map[string]*teamState{}}
	if s.token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		s.token = hex.EncodeToString(b)
	}
	r, err := o.OpenRepo(o.Home)
	if err != nil {
		return nil, err
	}
	s.repo = r
	s.head, _ = r.Head()
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	s.pages = p
	s.routes()
	return s, nil
}

// Warm parses the learnings ahead of the first request: at 10,000 learnings that takes
// about a second (yaml of every frontmatter), which the command spends while the browser
// starts instead of on the first page. A request waits for it to finish.
func (s *Server) Warm() error {
	return s.withRepo(func(r *gitstore.Repo) error {
		if err := s.cache.load(r); err != nil {
			return err
		}
		return s.cache.save(r)
	})
}

// Token is the per-run secret: the URL the command prints carries it.
func (s *Server) Token() string { return s.token }

// Close keeps the parsed learnings for the next run and releases the repository.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cache.save(s.repo); err != nil {
		s.o.Log.Warn("keep the parsed learnings", "err", err)
	}
	s.closeTeams()
	return s.repo.Close()
}

// ErrNotLoopback means an address to listen on is not a loopback one.
var ErrNotLoopback = errors.New("reflect view listens on loopback only (127.0.0.1, ::1 or localhost)")

// AddrError is an address Listen refuses before trying it: malformed, or not loopback.
type AddrError struct {
	Addr string
	Err  error
}

func (e *AddrError) Error() string { return fmt.Sprintf("--addr %q: %v", e.Addr, e.Err) }

func (e *AddrError) Unwrap() error { return e.Err }

// Listen opens a TCP listener on addr, which must name a loopback host: the viewer shows
// and changes the memory, and nothing off this machine may reach it.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &AddrError{Addr: addr, Err: err}
	}
	switch {
	case host == "localhost":
		host = "127.0.0.1"
	case net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback():
		return nil, &AddrError{Addr: addr, Err: ErrNotLoopback}
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// URL is the address a person opens: the listener's, with the token.
func (s *Server) URL(ln net.Listener) string {
	return "http://" + ln.Addr().String() + "/?token=" + s.token
}

// Serve answers on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	}
}

// cookieName is per port: browsers share a host's cookies across its ports.
func cookieName(host string) string {
	_, port, _ := net.SplitHostPort(host)
	return "reflect_view_" + port
}

// ServeHTTP guards every request before routing it: the Host must be a loopback name (a DNS
// rebinding attack arrives with the attacker's host name), the request must carry the
// token (in the URL once, then an HttpOnly cookie of this port), and a write must come from
// this origin with the token in its form.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on a
	// form post, and the origin check below needs the real one
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !loopbackHost(r.Host) {
		http.Error(w, "reflect view answers only to 127.0.0.1, localhost or [::1]", http.StatusForbidden)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/static/") {
		s.mux.ServeHTTP(w, r)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
		if !s.tokenOK(t) {
			s.forbidden(w, "the token in this URL is not this run's: open the URL reflect view printed")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName(r.Host), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(cookieName(r.Host))
	if err != nil || !s.tokenOK(c.Value) {
		s.forbidden(w, "this page needs the token of the running reflect view: open the URL it printed")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if err := sameOrigin(r); err != nil {
			s.forbidden(w, err.Error())
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if !s.tokenOK(r.PostFormValue("token")) {
			s.forbidden(w, "the form lacks this run's token: reload the page and try again")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) tokenOK(t string) bool {
	return len(t) == len(s.token) && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) forbidden(w http.ResponseWriter, msg string) {
	http.Error(w, "403 refused: "+msg, http.StatusForbidden)
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin refuses a write whose Origin (or, lacking one, Referer) is not this server: a
// page on another origin — another port of localhost included — cannot post to it.
func sameOrigin(r *http.Request) error {
	want := "http://" + r.Host
	if o := r.Header.Get("Origin"); o != "" {
		if o != want {
			return fmt.Errorf("a write from %s is refused: only this page (%s) may change the memory", o, want)
		}
		return nil
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil || u.Scheme+"://"+u.Host != want {
			return fmt.Errorf("a write from %s is refused: only this page (%s) may change the memory", ref, want)
		}
		return nil
	}
	return errors.New("a write without an Origin or Referer header is refused")
}

// withRepo runs fn with the repository under the server's lock, opened again when HEAD
// moved since the last request.
func (s *Server) withRepo(fn func(r *gitstore.Repo) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.repo.Head()
	if err != nil {
		return err
	}
	if head != s.head {
		r, err := s.o.OpenRepo(s.o.Home)
		if err != nil {
			return err
		}
		s.repo.Close()
		s.repo, s.head = r, head
	}
	return fn(s.repo)
}

// wrote notes that a write of this server moved HEAD (the repository needs no reopening).
func (s *Server) wrote(r *gitstore.Repo) {
	s.head, _ = r.Head()
}

// staticFS is the embedded static folder.
func staticFS() http.Handler {
	sub, _ := fs.Sub(assets, "static")
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}
