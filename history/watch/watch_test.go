package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/internal/lockfile"
)

// A poke with no importer watching says so; one watching imports again for it, and for pokes
// that come while it imports; it leaves after idle, and a poke after that finds none.
func TestPokeAndWatch(t *testing.T) {
	state := t.TempDir()
	transcript := session(t)
	if watched, err := Poke(state, transcript); err != nil || watched {
		t.Fatalf("Poke with no importer = %v, %v; want false", watched, err)
	}
	var runs atomic.Int32
	first := make(chan struct{})
	var once sync.Once
	done := make(chan bool)
	go func() {
		watched, err := Watch(context.Background(), state, transcript, 400*time.Millisecond, func() error {
			runs.Add(1)
			once.Do(func() { close(first) })
			return nil
		}, func(err error) { t.Error(err) })
		if err != nil {
			t.Error(err)
		}
		done <- watched
	}()
	<-first
	if watched, err := Poke(state, transcript); err != nil || !watched {
		t.Fatalf("Poke with an importer watching = %v, %v; want true", watched, err)
	}
	waitFor(t, func() bool { return runs.Load() == 2 })
	// a second importer for the same transcript does nothing
	if watched, err := Watch(context.Background(), state, transcript, time.Second, func() error {
		t.Error("a second watcher imported")
		return nil
	}, nil); err != nil || watched {
		t.Fatalf("a second Watch = %v, %v; want false", watched, err)
	}
	// another transcript is watched apart
	if watched, _ := Poke(state, transcript+".other"); watched {
		t.Fatal("a poke of another transcript found a watcher")
	}
	if !<-done {
		t.Fatal("Watch said it did not watch")
	}
	if watched, _ := Poke(state, transcript); watched {
		t.Fatal("a poke after the importer left found it watching")
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d imports; want 2", n)
	}
}

// An importer that is told to stop (its context: a signal), asked to leave, or whose memory is
// removed leaves, importing a last poke it had not seen; an import that fails is reported and
// the watch goes on.
func TestWatchLeaves(t *testing.T) {
	state := t.TempDir()
	transcript := session(t)
	ctx, cancel := context.WithCancel(context.Background())
	var runs atomic.Int32
	var failures atomic.Int32
	done := make(chan struct{})
	go func() {
		Watch(ctx, state, transcript, time.Hour, func() error {
			if runs.Add(1) == 1 {
				return errors.New("transcript unreadable")
			}
			return nil
		}, func(error) { failures.Add(1) })
		close(done)
	}()
	waitFor(t, func() bool { return runs.Load() == 1 })
	Poke(state, transcript)
	waitFor(t, func() bool { return runs.Load() == 2 })
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not leave when its context ended")
	}
	if failures.Load() != 1 {
		t.Fatalf("%d failures reported; want 1", failures.Load())
	}

	// asked to leave (what tests and the bench ask), after a poke it had not seen
	done = make(chan struct{})
	runs.Store(0)
	go func() {
		Watch(context.Background(), state, transcript, time.Hour, func() error { runs.Add(1); return nil }, func(error) {})
		close(done)
	}()
	waitFor(t, func() bool { return runs.Load() == 1 })
	Poke(state, transcript)
	stay, err := Leave(state)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not leave when asked to")
	}
	stay()
	if runs.Load() != 2 {
		t.Fatalf("%d imports; want 2: the poke before the leave is imported", runs.Load())
	}
	if watched, _ := Poke(state, transcript); watched {
		t.Fatal("an importer still watches after it left")
	}

	gone := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(gone, 0o755)
	done = make(chan struct{})
	go func() {
		Watch(context.Background(), gone, transcript, time.Hour, func() error { return nil }, func(error) {})
		close(done)
	}()
	time.Sleep(2 * Every)
	os.RemoveAll(gone)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Watch did not leave when the memory was removed")
	}
}

// Markers of transcripts no one poked for a week go; the watched one and recent ones stay.
func TestPrune(t *testing.T) {
	state := t.TempDir()
	Poke(state, "/old")
	Poke(state, "/recent")
	oldMarker, oldLock := paths(state, "/old")
	week := time.Now().Add(-8 * 24 * time.Hour)
	os.Chtimes(oldMarker, week, week)
	keep, _ := paths(state, "/kept")
	os.WriteFile(keep, []byte("."), 0o600)
	os.Chtimes(keep, week, week)
	prune(Dir(state), keep)
	if _, err := os.Stat(oldMarker); err == nil {
		t.Error("a week-old marker stayed")
	}
	if _, err := os.Stat(oldLock); err == nil {
		t.Error("a week-old lock stayed")
	}
	recent, _ := paths(state, "/recent")
	for _, p := range []string{recent, keep} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// session is a transcript file to watch.
func session(t testing.TB) string {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// At most MaxWatchers importers stay; none for a transcript that is there but not a file.
func TestWatchBounds(t *testing.T) {
	state := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	started := make(chan struct{}, MaxWatchers)
	for range MaxWatchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Watch(ctx, state, session(t), time.Hour, func() error { started <- struct{}{}; return nil }, func(error) {})
		}()
	}
	for range MaxWatchers {
		<-started
	}
	if watched, _ := Watch(ctx, state, session(t), time.Hour, func() error { return nil }, func(error) {}); watched {
		t.Error("a watcher past MaxWatchers stayed")
	}
	cancel()
	wg.Wait()
	for _, p := range []string{t.TempDir(), "/dev/null"} {
		if watched, _ := Watch(context.Background(), state, p, time.Hour, func() error { return nil }, func(error) {}); watched {
			t.Errorf("%s was watched", p)
		}
	}
}

// A session start's transcript, which its first turn writes, is watched before it is there:
// nothing is imported until a poke finds it.
func TestWatchBeforeTheTranscript(t *testing.T) {
	state := t.TempDir()
	transcript := filepath.Join(t.TempDir(), "new-session.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	go Watch(ctx, state, transcript, time.Hour, func() error { runs.Add(1); return nil }, func(err error) { t.Error(err) })
	waitFor(t, func() bool { watched, _ := Poke(state, transcript); return watched })
	time.Sleep(3 * Every)
	if runs.Load() != 0 {
		t.Fatalf("%d imports of a transcript not yet there", runs.Load())
	}
	os.WriteFile(transcript, []byte("{}\n"), 0o644)
	Poke(state, transcript)
	waitFor(t, func() bool { return runs.Load() == 1 })
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("timed out")
}

// BenchmarkPoke is what a Stop hook pays with an importer watching its session.
func BenchmarkPoke(b *testing.B) {
	state := b.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	transcript := session(b)
	go Watch(ctx, state, transcript, time.Hour, func() error {
		select {
		case <-started:
		default:
			close(started)
		}
		return nil
	}, func(error) {})
	<-started
	for b.Loop() {
		if watched, err := Poke(state, transcript); err != nil || !watched {
			b.Fatal(watched, err)
		}
	}
}

// TestWatchWhilePoked: an importer that starts while a poke holds the session's lock for a
// look still watches the session (it once took the lock so held for another importer's and
// left).
func TestWatchWhilePoked(t *testing.T) {
	state := t.TempDir()
	transcript := session(t)
	_, lock := paths(state, transcript)
	unlock, err := lockfile.Take(context.Background(), lock, 0) // the poke's look
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	done := make(chan bool, 1)
	go func() {
		watched, _ := Watch(ctx, state, transcript, time.Hour, func() error { runs.Add(1); return nil }, func(err error) { t.Error(err) })
		done <- watched
	}()
	time.Sleep(10 * time.Millisecond)
	unlock()
	waitFor(t, func() bool { watched, _ := Poke(state, transcript); return watched })
	waitFor(t, func() bool { return runs.Load() >= 1 })
	cancel()
	if !<-done {
		t.Error("the importer did not watch")
	}
}
