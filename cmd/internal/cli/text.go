package cli

import (
	"fmt"
	"os"

	"golang.org/x/term"
)

// Plural is n what, with an s when n is not 1.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ShortID is the first seven characters of an id, as lists show it.
func ShortID(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// IsTerminal says whether w is a terminal (progress bars, colour).
func (a *App) IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
