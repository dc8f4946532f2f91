package sync

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/drain"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
)

var longRounds = flag.Int("sync.rounds", 0, "rounds of the sync property test (default: a short run)")

// TestClonesConverge is the property: clones that add, edit, archive, supersede and drain,
// then sync in a random order, end with one tree and one HEAD, every learning any of them
// made, no conflict marker, fsck clean everywhere; and a clone made by the git CLI agrees.
func TestClonesConverge(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d clones", n), func(t *testing.T) {
			rounds := 12
			if *longRounds > 0 {
				rounds = *longRounds
			}
			converge(t, n, rounds, uint64(n))
		})
	}
}

func converge(t *testing.T, n, rounds int, seed uint64) {
	setHome(t)
	remote := bare(t)
	ls := laptops(t, remote, n)
	rng := rand.New(rand.NewPCG(seed, 99))
	made := map[string]bool{} // every learning id any clone created
	ctx := context.Background()
	for round := 0; round < rounds; round++ {
		for _, l := range ls {
			r := l.repo()
			all, _, err := learnings.LoadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			var current []*learnings.Learning
			for _, x := range all {
				if x.Status == learnings.StatusCurrent {
					current = append(current, x)
				}
			}
			for op := 0; op < 3; op++ {
				switch k := rng.IntN(6); {
				case k == 0 || len(current) < 2:
					x := l.add(fmt.Sprintf("%s round %d op %d", l.name, round, op))
					made[x.ID] = true
				case k == 1: // edit: tags and body
					x := current[rng.IntN(len(current))]
					l.change(x.ID, func(y *learnings.Learning) {
						y.Tags = append(y.Tags, fmt.Sprintf("t%d", rng.IntN(5)))
						y.Body = fmt.Sprintf("%s edited in round %d.\n", l.name, round)
						y.Updated = time.Now()
					})
				case k == 2:
					x := current[rng.IntN(len(current))]
					l.change(x.ID, func(y *learnings.Learning) { y.Archive(time.Now()) })
				case k == 3:
					a, b := current[rng.IntN(len(current))], current[rng.IntN(len(current))]
					if a.ID != b.ID {
						_, _, err := learnings.Change(ctx, r, []string{a.ID, b.ID}, func(ys []*learnings.Learning) (string, error) {
							_, err := learnings.Supersede(ys[0], ys[1], time.Now())
							return "supersede", err
						})
						if err != nil && !strings.Contains(err.Error(), "only a current learning") && !strings.Contains(err.Error(), "already superseded") {
							t.Fatal(err)
						}
					}
				case k == 4: // a capture, then a drain of it
					at := time.Now()
					e := &queue.Entry{ID: queue.NewID(at), Harness: "claude-code", Session: fmt.Sprintf("%s-%d-%d", l.name, round, op),
						Trigger: "stop", Project: "github.com/acme/shop", Created: at, Updated: at,
						Digest: queue.Digest{Notes: []queue.Note{{Kind: queue.NotePrompt, Text: fmt.Sprintf("remember: %s fact %d-%d is true", l.name, round, op)}}}}
					data, _ := e.Render()
					if _, err := r.Commit(ctx, "capture", map[string][]byte{queue.Path(e.ID): data}); err != nil {
						t.Fatal(err)
					}
					rep, err := drain.Run(ctx, r, drain.Options{Extractor: drain.Heuristic()})
					if err != nil {
						t.Fatal(err)
					}
					for _, er := range rep.Entries {
						for _, id := range er.Learned {
							made[id] = true
						}
					}
				default: // a capture left in the queue
					at := time.Now()
					e := &queue.Entry{ID: queue.NewID(at), Harness: "codex", Session: fmt.Sprintf("%s-q-%d-%d", l.name, round, op),
						Trigger: "stop", Project: "github.com/acme/shop", Created: at, Updated: at}
					data, _ := e.Render()
					if _, err := r.Commit(ctx, "capture", map[string][]byte{queue.Path(e.ID): data}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		// sync in a random order, sometimes not everybody
		for _, i := range rng.Perm(n) {
			if rng.IntN(4) > 0 {
				ls[i].sync()
			}
		}
	}
	// settle: everyone syncs until nothing moves
	for pass := 0; pass < 3; pass++ {
		for _, l := range ls {
			l.sync()
		}
	}
	head := git(t, ls[0].dir, "rev-parse", "HEAD")
	for _, l := range ls {
		if h := git(t, l.dir, "rev-parse", "HEAD"); h != head {
			t.Fatalf("%s is at %s, %s at %s", l.name, h, ls[0].name, head)
		}
		l.healthy()
	}
	// no conflict marker, every learning valid and present
	r := ls[0].repo()
	all, bad, err := learnings.LoadAll(r)
	if err != nil || len(bad) > 0 {
		t.Fatalf("unreadable learnings: %v %v", err, bad)
	}
	have := map[string]bool{}
	for _, x := range all {
		have[x.ID] = true
	}
	for id := range made {
		if !have[id] {
			t.Errorf("learning %s was lost", id)
		}
	}
	if out, _ := exec.Command("git", "-C", ls[0].dir, "grep", "-n", "-e", "^<<<<<<<", "-e", "^>>>>>>>", "HEAD").CombinedOutput(); len(out) > 0 {
		t.Errorf("conflict markers:\n%s", out)
	}
	// the git CLI's own clone and pull agree
	cli := filepath.Join(t.TempDir(), "cli")
	if out, err := exec.Command("git", "clone", "-q", remote, cli).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	git(t, cli, "pull", "-q", "--no-rebase")
	if git(t, cli, "rev-parse", "HEAD^{tree}") != git(t, ls[0].dir, "rev-parse", "HEAD^{tree}") {
		t.Error("the git CLI's clone has another tree")
	}
	// a clone's index finds what the others made, right after sync
	ix, err := index.Open(ctx, ls[n-1].repo(), index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Search(ctx, index.Query{Text: ls[0].name, Statuses: []string{"current", "archived", "superseded"}, Limit: 1000})
	if err != nil || res.Total == 0 {
		t.Errorf("%s's index does not find %s's learnings: %v", ls[n-1].name, ls[0].name, err)
	}
	t.Logf("%d clones, %d rounds: %d learnings made, %d in the end, HEAD %s", n, rounds, len(made), len(all), head[:7])
}

// TestPushRace: three clones sync at the same moment against one remote; all converge.
func TestPushRace(t *testing.T) {
	setHome(t)
	remote := bare(t)
	ls := laptops(t, remote, 3)
	for round := 0; round < 3; round++ {
		for _, l := range ls {
			l.add(fmt.Sprintf("%s race %d", l.name, round))
		}
		var wg gosync.WaitGroup
		errs := make([]error, len(ls))
		for i, l := range ls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = Sync(context.Background(), l.repo(), Options{Attempts: 10})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%s: %v", ls[i].name, err)
			}
		}
	}
	for _, l := range ls {
		l.sync()
	}
	head := git(t, ls[0].dir, "rev-parse", "HEAD")
	for _, l := range ls {
		if git(t, l.dir, "rev-parse", "HEAD") != head {
			t.Fatalf("%s did not converge", l.name)
		}
		l.healthy()
	}
	if n := strings.Count(git(t, ls[0].dir, "ls-files", "learnings"), "\n") + 1; n != 9 {
		t.Errorf("%d learnings, want 9", n)
	}
}
