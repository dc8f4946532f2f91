package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWriteVolatileState: the first write, a longer and a shorter rewrite, a file over
// swapMax (written as writeAtomic does), a nested name; the result is always the last
// content whole, and ReadState reads it.
func TestWriteVolatileState(t *testing.T) {
	r := newRepo(t)
	big := bytes.Repeat([]byte("x"), swapMax+1)
	for _, c := range []struct {
		rel  string
		data []byte
	}{
		{"last-event.json", []byte(`{"event":"Stop"}`)},
		{"last-event.json", []byte(`{"event":"PostToolUse","harness":"claude-code"}`)},
		{"last-event.json", []byte(`{}`)},
		{"last-event.json", big},
		{"last-event.json", []byte(`{"after":"big"}`)},
		{"state/watch/claude-code-s1.json", []byte(`{"armed":true}`)},
		{"state/watch/claude-code-s1.json", []byte(`{"armed":false,"longer":"than before"}`)},
	} {
		if err := r.WriteVolatileState(c.rel, c.data); err != nil {
			t.Fatalf("%s: %v", c.rel, err)
		}
		got, err := r.ReadState(c.rel)
		if err != nil || !bytes.Equal(got, c.data) {
			t.Fatalf("%s: read %q, %v; want %q", c.rel, got, err, c.data)
		}
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(filepath.Join(r.StateDir(), "last-event.json.spare")); err != nil {
			t.Errorf("no spare beside last-event.json after a swap: %v", err)
		}
	}
	for _, rel := range []string{"last-event.json", "state/watch/claude-code-s1.json", "never-written.json"} {
		if err := r.RemoveVolatileState(rel); err != nil {
			t.Fatalf("remove %s: %v", rel, err)
		}
		for _, name := range []string{rel, rel + ".spare"} {
			if _, err := os.Stat(filepath.Join(r.StateDir(), filepath.FromSlash(name))); !os.IsNotExist(err) {
				t.Errorf("%s is still there after RemoveVolatileState(%s): %v", name, rel, err)
			}
		}
	}
}

// TestSweepState: the records of a state directory last written before the cutoff go, with
// their spares (an orphan spare too); newer ones, other directories and sub-directories stay;
// a missing directory is no error; a swept record is written again as new.
func TestSweepState(t *testing.T) {
	r := newRepo(t)
	if n, err := r.SweepState("state/recall", time.Now()); n != 0 || err != nil {
		t.Fatalf("missing directory: %d, %v", n, err)
	}
	old, cutoff := time.Now().Add(-40*24*time.Hour), time.Now().Add(-30*24*time.Hour)
	for _, rel := range []string{"state/recall/claude-code-old.json", "state/recall/codex-new.json", "state/watch/claude-code-old.json"} {
		for range 2 { // twice: a spare beside it where the system swaps
			if err := r.WriteVolatileState(rel, []byte("lrn-1\n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.WriteFile(filepath.Join(r.StateDir(), "state", "recall", "gone.json.spare"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(r.StateDir(), "state", "recall", "sub"), 0o755)
	for _, name := range []string{"state/recall/claude-code-old.json", "state/recall/claude-code-old.json.spare", "state/recall/gone.json.spare", "state/watch/claude-code-old.json", "state/recall/sub"} {
		os.Chtimes(filepath.Join(r.StateDir(), filepath.FromSlash(name)), old, old)
	}
	n, err := r.SweepState("state/recall", cutoff)
	if n != 1 || err != nil {
		t.Fatalf("swept %d, %v; want 1", n, err)
	}
	for name, want := range map[string]bool{
		"state/recall/claude-code-old.json": false, "state/recall/claude-code-old.json.spare": false,
		"state/recall/gone.json.spare": false, "state/recall/codex-new.json": true,
		"state/watch/claude-code-old.json": true, "state/recall/sub": true,
	} {
		if _, err := os.Stat(filepath.Join(r.StateDir(), filepath.FromSlash(name))); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", name, err == nil, want)
		}
	}
	if err := r.WriteVolatileState("state/recall/claude-code-old.json", []byte("lrn-2\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.ReadState("state/recall/claude-code-old.json"); string(got) != "lrn-2\n" {
		t.Errorf("written again after the sweep: %q", got)
	}
}

// TestWriteVolatileStateConcurrent: writers on goroutines (each an open file of its own, as
// hook processes are) rewrite one file with contents of different lengths while a reader
// reads it in a loop: every read is one of the contents whole, and the last write stands.
func TestWriteVolatileStateConcurrent(t *testing.T) {
	r := newRepo(t)
	want := map[string]bool{}
	var contents [][]byte
	for i := range 6 {
		b := fmt.Appendf(nil, `{"writer":%d,"pad":%q}`, i, bytes.Repeat([]byte("p"), i*37))
		contents = append(contents, b)
		want[string(b)] = true
	}
	if err := r.WriteVolatileState("last-event.json", contents[0]); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var reads, bad atomic.Int64
	var rd sync.WaitGroup
	rd.Go(func() {
		for !stop.Load() {
			data, err := r.ReadState("last-event.json")
			reads.Add(1)
			if err != nil || !want[string(data)] {
				bad.Add(1)
				t.Errorf("read %q, %v: not one of the contents whole", data, err)
				return
			}
		}
	})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				if err := r.WriteVolatileState("last-event.json", contents[(w+i)%len(contents)]); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	final := contents[5]
	if err := r.WriteVolatileState("last-event.json", final); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	stop.Store(true)
	rd.Wait()
	if got, _ := r.ReadState("last-event.json"); !bytes.Equal(got, final) {
		t.Errorf("after the writers: %q, want %q", got, final)
	}
	t.Logf("%d reads, %d not whole", reads.Load(), bad.Load())
}

// BenchmarkWriteVolatileState: a hook's last-event.json, rewritten.
func BenchmarkWriteVolatileState(b *testing.B) {
	r := newRepo(b)
	data := []byte(`{"event":"Stop","harness":"claude-code","session":"bench-session","at":"2026-11-24T18:50:35.800212918Z","ms":0.429,"recalled":0,"skipped":"nothing new since the last capture"}`)
	for b.Loop() {
		if err := r.WriteVolatileState("last-event.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
