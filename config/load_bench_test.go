package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads the two settings files as reflect init writes them (every key, with its
// comment): every hook process does it once, as the memory opens.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	shared, local := filepath.Join(dir, FileName), filepath.Join(dir, LocalFileName)
	if err := os.WriteFile(shared, []byte(DefaultFile), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(local, []byte(DefaultLocalFile), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Load(shared, local); err != nil {
			b.Fatal(err)
		}
	}
}
