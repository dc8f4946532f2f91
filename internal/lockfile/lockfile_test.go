package lockfile

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestTake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "drain")
	unlock, err := Take(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, wait := range []time.Duration{0, 30 * time.Millisecond} {
		start := time.Now()
		if _, err := Take(context.Background(), path, wait); !errors.Is(err, ErrHeld) {
			t.Fatalf("a held lock, waiting %v: err = %v; want ErrHeld", wait, err)
		}
		if took := time.Since(start); took < wait {
			t.Errorf("gave up after %v; want at least %v", took, wait)
		}
	}
	unlock()
	again, err := Take(context.Background(), path, time.Second)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}
