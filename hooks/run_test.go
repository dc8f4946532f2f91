package hooks

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// failingReader gives n bytes, then an error.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("broken pipe")
	}
	k := min(len(p), f.n)
	f.n -= k
	return k, nil
}

// TestReadPayload: up to maxPayload bytes are the payload; past it the input is read to its
// end (so a host writing it never meets a closed pipe) and thrown away; a read error is
// reported, not taken for a payload.
func TestReadPayload(t *testing.T) {
	for _, tt := range []struct {
		name    string
		size    int
		fail    bool
		wantLen int
		over    bool
	}{
		{"empty", 0, false, 0, false},
		{"small", 100, false, 100, false},
		{"exactly the bound", maxPayload, false, maxPayload, false},
		{"one byte over", maxPayload + 1, false, 0, true},
		{"seven times the bound", 7 * maxPayload, false, 0, true},
		{"read error", 10, true, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader
			src := bytes.NewReader(bytes.Repeat([]byte{'x'}, tt.size))
			r = src
			if tt.fail {
				r = &failingReader{n: tt.size}
			}
			in := <-readPayload(r)
			if tt.fail {
				if in.err == nil {
					t.Fatal("a failed read was not reported")
				}
				return
			}
			if in.err != nil || len(in.data) != tt.wantLen || in.over != tt.over || in.size != int64(tt.size) {
				t.Fatalf("got %d bytes, over %v, size %d, err %v; want %d bytes, over %v, size %d",
					len(in.data), in.over, in.size, in.err, tt.wantLen, tt.over, tt.size)
			}
			if src.Len() != 0 {
				t.Fatalf("%d bytes of stdin were left unread", src.Len())
			}
		})
	}
}
