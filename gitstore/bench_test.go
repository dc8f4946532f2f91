package gitstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
)

// benchRepo builds (once per size) a knowledge repository of n synthetic learnings in
// 50 projects, with up to 10,000 commits of history.
func benchRepo(b *testing.B, n int) *Repo {
	b.Helper()
	setHome(b)
	dir := filepath.Join(b.TempDir(), "mem")
	if _, _, err := Init(context.Background(), dir, InitOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := fixtures.BuildRepo(context.Background(), dir, n, min(n, 10000), 50); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkCommit is one capture (a new learning, one commit) in-process, at several sizes:
// the cost must stay flat as the repository grows.
func BenchmarkCommit(b *testing.B) {
	sizes := []int{100, 10000}
	if os.Getenv("REFLECT_BENCH_LARGE") != "" {
		sizes = append(sizes, 50000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("learnings=%d", n), func(b *testing.B) {
			r := benchRepo(b, n)
			rng := rand.New(rand.NewPCG(1, 1))
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				p, data := fixtures.SynthLearning(rng, i, fixtures.SynthProject(i%7), time.Now())
				r2, err := Open(r.Root()) // as each capture process does
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r2.Commit(ctx, "learn: bench", map[string][]byte{p: data}); err != nil {
					b.Fatal(err)
				}
				if r2.PoolLow() { // what the detached refill does between captures
					b.StopTimer()
					r2.FillPool()
					b.StartTimer()
				}
			}
		})
	}
}
