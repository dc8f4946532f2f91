package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
)

// benchDir outlives each benchmark so that the repositories are built once per run.
var benchDir string

func TestMain(m *testing.M) {
	benchDir, _ = os.MkdirTemp("", "reflect-index-bench-")
	code := m.Run()
	os.RemoveAll(benchDir)
	os.Exit(code)
}

var (
	benchMu    sync.Mutex
	benchRepos = map[int]*gitstore.Repo{}
)

// benchRepo builds (once per size and process) a repository of n synthetic learnings.
func benchRepo(b *testing.B, n int) *gitstore.Repo {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if r, ok := benchRepos[n]; ok {
		return r
	}
	ctx := context.Background()
	dir := filepath.Join(benchDir, fmt.Sprint(n))
	if _, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(ctx, dir, n, max(1, min(n/10, 1000)), 20); err != nil {
		b.Fatal(err)
	}
	r, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	benchRepos[n] = r
	return r
}

func BenchmarkRebuild(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := benchRepo(b, n)
			for b.Loop() {
				if _, err := Rebuild(context.Background(), r, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpenSearch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := benchRepo(b, n)
			if _, err := Rebuild(context.Background(), r, Options{}); err != nil {
				b.Fatal(err)
			}
			terms := Analyze("the webhook retry deadlock in postgres migration")
			for b.Loop() {
				ix, err := Open(context.Background(), r, Options{})
				if err != nil {
					b.Fatal(err)
				}
				res, err := ix.Search(context.Background(), Query{Terms: terms, Projects: []string{fixtures.SynthProject(3), "_global"}, Limit: 20})
				if err != nil || len(res.Hits) == 0 {
					b.Fatal(err, res)
				}
				ix.Close()
			}
		})
	}
}

// BenchmarkScanSearch is a search with no index: the scan of git that stands in for one
// (read and analyze every learning of HEAD, then score them).
func BenchmarkScanSearch(b *testing.B) {
	r := benchRepo(b, 1000)
	tgt, err := headTarget(r)
	if err != nil {
		b.Fatal(err)
	}
	terms := Analyze("the webhook retry deadlock in postgres migration")
	for b.Loop() {
		sc, err := newScanner(context.Background(), r, tgt)
		if err != nil {
			b.Fatal(err)
		}
		res, err := (&Index{scan: sc}).Search(context.Background(), Query{Terms: terms, Projects: []string{fixtures.SynthProject(3), "_global"}, Limit: 20})
		if err != nil || len(res.Hits) == 0 {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkAmong: a session start's topics (bench -recall's project: its branch and five
// commit subjects) scored among the hits of a first search of all their words, at 10,000
// learnings, by Among and by a bleve search of each restricted to those hits.
func BenchmarkAmong(b *testing.B) {
	r := benchRepo(b, 10000)
	ctx := context.Background()
	if _, err := Rebuild(ctx, r, Options{}); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(ctx, r, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	scope := []string{fixtures.SynthProject(3), "_global"}
	var qs []Query
	var all []string
	for _, text := range []string{"fix webhook retry deadlock", "webhooks: log the delivery id", "db: add the migration lock table",
		"webhooks: retry with backoff", "ci: run the postgres tests", "postgres: retry the migration lock on deadlock"} {
		q := Query{Terms: Analyze(text), Projects: scope, Limit: 16}
		qs, all = append(qs, q), append(all, q.Terms...)
	}
	first, err := ix.Search(ctx, Query{Terms: all, Projects: scope, Limit: 48, Bare: true})
	if err != nil {
		b.Fatal(err)
	}
	paths := pathsOf(first.Hits)
	b.Run("among", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.Among(ctx, qs, first.Hits); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("searches", func(b *testing.B) {
		for b.Loop() {
			for _, q := range qs {
				q.Paths = paths
				if _, err := ix.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
