// Package printable is the one filter for text that came from elsewhere — a team's remote, a
// synced learning, a transcript — before a terminal or a model reads it: control characters
// go, newlines and tabs stay. An ESC starts a sequence a terminal acts on (it can retitle the
// window, rewrite what was printed above, or on some terminals answer with keystrokes), a BEL
// rings it; with the ESC gone, the rest of a sequence is inert text. Bytes that are not UTF-8
// go too, so no terminal assembles one from them. JSON output needs none of this:
// encoding/json escapes every control character.
package printable

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String is s without its control characters (but newlines and tabs) and invalid bytes.
func String(s string) string {
	for _, r := range s {
		if drop(r) {
			return strings.Map(keep, s)
		}
	}
	return s
}

func drop(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' || r == utf8.RuneError
}

func keep(r rune) rune {
	if drop(r) {
		return -1
	}
	return r
}

// Writer filters what is written to w as String does. Each Write is filtered on its own, so
// a rune split across two writes is dropped: fmt's functions write whole strings in one call.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
