// Package testenv is what the tests of several packages share: a home of their own, so
// that nothing of the user's git or reflect configuration is read or written.
package testenv

import (
	"path/filepath"
	"testing"
)

// SetHome gives the test an empty HOME and XDG_CONFIG_HOME, no system git config, and a
// git identity for the commits the git CLI makes.
func SetHome(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		t.Setenv(k+"_NAME", "t")
		t.Setenv(k+"_EMAIL", "t@example.org")
	}
}
