package team

import (
	"os"
	"path/filepath"
	"testing"
)

// localPath knows a path remote as git does (learnings.IsLocalPath): absolute, relative to the
// clone, home-relative, a Windows drive, a file:// URL; and no host:path or URL is one.
func TestLocalPath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	dir := "/clones/acme"
	for _, tt := range []struct {
		remote, want string
	}{
		{"/srv/git/team.git", "/srv/git/team.git"},
		{"file:///srv/git/team.git", "/srv/git/team.git"},
		{"../team.git", filepath.Join(dir, "../team.git")},
		{"./team.git", filepath.Join(dir, "team.git")},
		{"repos/team.git", filepath.Join(dir, "repos/team.git")},
		{"~/repos/team.git", filepath.Join(home, "repos/team.git")},
		{`C:\repos\team.git`, `C:\repos\team.git`},
		{"git@github.com:acme/team.git", ""},
		{"github.com:acme/team.git", ""},
		{"https://github.com/acme/team.git", ""},
		{"ssh://git@host/acme/team.git", ""},
		{"team", ""},
	} {
		got, ok := localPath(tt.remote, dir)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("localPath(%q) = %q, %v; want %q", tt.remote, got, ok, tt.want)
		}
	}
}
