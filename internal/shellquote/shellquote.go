// Package shellquote writes a word for a POSIX shell: the one quoting of the commands reflect
// prints for a person to run (doctor's fixes, the hooks' command lines) or records (a Codex
// session's command), so that a path with a space or a quote in it is still one word. sync
// keeps a quoting of its own: for git's remote shell it quotes always and escapes !, as git's
// sq_quote_buf does.
package shellquote

import "strings"

// Quote returns s as it is when it holds only characters no shell treats specially
// (letters, digits and /._-+:@%=,), and otherwise in single quotes, each single quote in it
// closed, escaped and reopened. The empty word is a pair of single quotes.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+:@%=,", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
