package view

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/team"
	"github.com/reflect-memory/reflect/workspace"
)

// benchServer serves a memory of n synthetic learnings (20 projects, n/10 commits).
func benchServer(b *testing.B, n int) (*Server, *http.Cookie) {
	b.Helper()
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "mem")
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, n, max(1, min(n/10, 1000)), 20); err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Home: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, &http.Cookie{Name: cookieName("127.0.0.1:1"), Value: s.Token()}
}

func benchGet(b *testing.B, s *Server, c *http.Cookie, path string) {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:1"+path, nil)
	req.AddCookie(c)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, w.Code, w.Body.String()[:min(w.Body.Len(), 300)])
	}
}

// BenchmarkListPage is the list page's server time: warm (the parsed learnings cached, as
// every request after the first), cold (the first request of a first run: every file
// parsed), restart (the first request after a restart: the previous run's cache decoded),
// and a search.
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		s, c := benchServer(b, n)
		b.Run(fmt.Sprintf("warm/%d", n), func(b *testing.B) {
			benchGet(b, s, c, "/")
			for b.Loop() {
				benchGet(b, s, c, "/")
			}
		})
		b.Run(fmt.Sprintf("cold/%d", n), func(b *testing.B) {
			for b.Loop() {
				s.cache = newCache()
				benchGet(b, s, c, "/")
			}
		})
		b.Run(fmt.Sprintf("restart/%d", n), func(b *testing.B) {
			benchGet(b, s, c, "/")
			s.cache.dirty = true
			if err := s.cache.save(s.repo); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				s.cache = newCache()
				benchGet(b, s, c, "/")
			}
		})
		b.Run(fmt.Sprintf("search/%d", n), func(b *testing.B) {
			benchGet(b, s, c, "/?q=redirect")
			for b.Loop() {
				benchGet(b, s, c, "/?q=redirect")
			}
		})
	}
}

// BenchmarkLearningPage is a learning's page: its history (a walk of up to 2,000 commits),
// diffs, merge candidates from the index.
func BenchmarkLearningPage(b *testing.B) {
	s, c := benchServer(b, 10000)
	benchGet(b, s, c, "/")
	id := s.cache.all[len(s.cache.all)/2].ID
	benchGet(b, s, c, "/learning/"+id)
	for b.Loop() {
		benchGet(b, s, c, "/learning/"+id)
	}
}

// BenchmarkFreshness is the list page at n learnings, half of them anchored and one
// project's work tree known here (a twentieth of the anchored ones its): unfiltered (the
// badges of the page's 100 rows), the drifted filter (every candidate checked), and a
// drifted learning's page (its commits since). Compare with BenchmarkListPage/warm.
func BenchmarkFreshness(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	s, c := benchServer(b, n)
	proj, err := fixtures.BuildAnchoredProject(ctx, filepath.Join(b.TempDir(), "proj"), fixtures.SynthProject(3))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := fixtures.AnchorHalf(ctx, s.o.Home, proj); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Read(proj.Dir, 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := anchor.Remember(s.repo, ws); err != nil {
		b.Fatal(err)
	}
	benchGet(b, s, c, "/")
	for name, path := range map[string]string{"list": "/", "drifted": "/?fresh=drifted"} {
		b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
			benchGet(b, s, c, path)
			for b.Loop() {
				benchGet(b, s, c, path)
			}
		})
	}
	chk := newChecker(s.repo)
	var id string
	for _, l := range s.cache.all {
		if chk.state(l) == anchor.Drifted {
			id = l.ID
			break
		}
	}
	chk.close()
	if id == "" {
		b.Fatal("no drifted learning")
	}
	b.Run("drifted-page", func(b *testing.B) {
		for b.Loop() {
			benchGet(b, s, c, "/learning/"+id)
		}
	})
}

// BenchmarkListPageTeam is the list page at 10,000 learnings with a team memory of 1,000
// beside them, none of which the personal memory holds (the team/personal badges: the team
// kept open and its HEAD read each request, its ids walked again only when it moved; its
// learnings parsed once and listed beside yours, each with its review), against the same
// page without a team.
func BenchmarkListPageTeam(b *testing.B) {
	ctx := context.Background()
	s, c := benchServer(b, 10000)
	b.Run("no-team", func(b *testing.B) {
		benchGet(b, s, c, "/")
		for b.Loop() {
			benchGet(b, s, c, "/")
		}
	})
	src := filepath.Join(b.TempDir(), "team-src")
	if _, _, err := gitstore.Init(ctx, src, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, src, 1000, 100, 5); err != nil {
		b.Fatal(err)
	}
	if _, _, err := team.Add(ctx, s.repo, "acme", src); err != nil {
		b.Fatal(err)
	}
	b.Run("team", func(b *testing.B) {
		benchGet(b, s, c, "/")
		if n := len(s.teamStates["acme"].ids); n != 1000 {
			b.Fatalf("the team's ids: %d", n)
		}
		for b.Loop() {
			benchGet(b, s, c, "/")
		}
	})
}

// BenchmarkHandles weighs what the viewer opens per request against keeping it open for the
// server's life, at 10,000 learnings and a team of 1,000: the index opened, searched and
// closed against one kept open and searched; a team memory opened and its HEAD read against
// one kept open.
func BenchmarkHandles(b *testing.B) {
	ctx := context.Background()
	s, c := benchServer(b, 10000)
	benchGet(b, s, c, "/?q=redirect") // builds the index
	q := index.Query{Text: "redirect retry", Limit: searchLimit, Snippets: true}
	b.Run("index/per-request", func(b *testing.B) {
		for b.Loop() {
			ix, err := index.Open(ctx, s.repo, index.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ix.Search(ctx, q); err != nil {
				b.Fatal(err)
			}
			ix.Close()
		}
	})
	b.Run("index/kept", func(b *testing.B) {
		ix, err := index.Open(ctx, s.repo, index.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
		for b.Loop() {
			if _, err := ix.Search(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	src := filepath.Join(b.TempDir(), "team-src")
	if _, _, err := gitstore.Init(ctx, src, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, src, 1000, 100, 5); err != nil {
		b.Fatal(err)
	}
	if _, _, err := team.Add(ctx, s.repo, "acme", src); err != nil {
		b.Fatal(err)
	}
	b.Run("team/per-request", func(b *testing.B) {
		for b.Loop() {
			tr, err := team.Open(s.repo, "acme")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tr.Head(); err != nil {
				b.Fatal(err)
			}
			tr.Close()
		}
	})
	b.Run("team/kept", func(b *testing.B) {
		tr, err := team.Open(s.repo, "acme")
		if err != nil {
			b.Fatal(err)
		}
		defer tr.Close()
		for b.Loop() {
			if _, err := tr.Head(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
