package redact

import "testing"

// BenchmarkString redacts 1 MB of transcript-like text with a few secrets,
// the load of a capture. The target is at least 50 MB/s.
func BenchmarkString(b *testing.B) {
	text := transcriptText(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		String(text)
	}
}

// BenchmarkStringClean is the common case: nothing to redact.
func BenchmarkStringClean(b *testing.B) {
	text := transcriptText(1 << 20)
	text = String(text) // what a clean digest looks like
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		String(text)
	}
}
