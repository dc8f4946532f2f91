package printable

import (
	"bytes"
	"fmt"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain title", "plain title"},
		{"lines\nand\ttabs", "lines\nand\ttabs"},
		{"red \x1b[31mtitle\x1b[0m", "red [31mtitle[0m"},
		{"bell\a here", "bell here"},
		{"osc \x1b]0;owned\x07 title", "osc ]0;owned title"},
		{"cr\rover", "crover"},
		{"c1 \u009b31m csi", "c1 31m csi"},
		{"bad \xff\xfe bytes", "bad  bytes"},
		{"unicode ünïcödé → 日本", "unicode ünïcödé → 日本"},
		{"", ""},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	n, err := fmt.Fprintf(w, "%s\t%s\n", "a\x1b[2Jb", "c\ad")
	if err != nil || n != len("a\x1b[2Jb\tc\ad\n") {
		t.Fatalf("Fprintf = %d, %v", n, err)
	}
	if got, want := b.String(), "a[2Jb\tcd\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func BenchmarkStringClean(b *testing.B) {
	s := "a title of a learning that holds nothing to filter, as nearly all do"
	for b.Loop() {
		String(s)
	}
}
