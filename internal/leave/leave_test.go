package leave

import (
	"path/filepath"
	"testing"
)

func TestAsk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "watch") // not there yet: Ask makes it
	if Asked(dir) {
		t.Fatal("asked before Ask")
	}
	stay, err := Ask(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Asked(dir) || Asked(t.TempDir()) {
		t.Fatal("Ask asks its own directory, and only it")
	}
	stay()
	if Asked(dir) {
		t.Fatal("still asked after stay")
	}
}
