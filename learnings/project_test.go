package learnings

import "testing"

func TestNormalizeRemote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"git@github.com:acme/auth.git", "github.com/acme/auth"},
		{"github.com:acme/auth", "github.com/acme/auth"},
		{"git@github.com:/acme/auth.git/", "github.com/acme/auth"},
		{"ssh://git@github.com/acme/auth.git", "github.com/acme/auth"},
		{"ssh://git@github.com:22/acme/auth.git", "github.com/acme/auth"},
		{"git+ssh://git@github.com/acme/auth", "github.com/acme/auth"},
		{"https://github.com/acme/auth", "github.com/acme/auth"},
		{"https://github.com/acme/auth/", "github.com/acme/auth"},
		{"https://github.com/acme/auth.git", "github.com/acme/auth"},
		{"https://user:tok@github.com/acme/auth/", "github.com/acme/auth"},
		{"https://x-access-token:ghp_abc@github.com:443/acme/auth.git?ref=main#frag", "github.com/acme/auth"},
		{"http://GitHub.com/acme/auth.git", "github.com/acme/auth"},
		{"HTTPS://GITHUB.COM./Acme/Auth.git", "github.com/Acme/Auth"},
		{"  https://github.com/acme/auth.git\n", "github.com/acme/auth"},
		{"git://host/x/y", "host/x/y"},
		{"git@gitlab.com:group/sub/project.git", "gitlab.com/group/sub/project"},
		{"https://gitlab.com/group/sub/project", "gitlab.com/group/sub/project"},
		{"https://gitlab.example.com/my%20group/app.git", "gitlab.example.com/my-group/app"},
		{"ssh://git@git.example.com:2222/~user/repo.git", "git.example.com/-user/repo"},
		{"https://dev.azure.com/org/proj/_git/repo", "dev.azure.com/org/proj/_git/repo"},
		{"persistent-https::https://github.com/acme/auth", "github.com/acme/auth"},
		{"https://github.com/acme/auth/.git", "github.com/acme/auth"},
		{"file:///srv/git/x.git", "local/x"},
		{"file://localhost/srv/git/My Repo.git/", "local/my-repo"},
		{"/srv/git/x.git", "local/x"},
		{"/home/me/proj/.git", "local/proj"},
		{"../shared/x.git", "local/x"},
		{"./x", "local/x"},
		{"~/repos/x.git", "local/x"},
		{`C:\repos\x.git`, "local/x"},
		{"srv/git/x", "local/x"},
	} {
		wantRemoteKey(t, tc.in, tc.want)
	}
	for _, in := range []string{
		"", "   ", "garbage", "not a url", "http://", "https://github.com", "https://github.com/", "git@github.com:",
		"git@github.com:.git", ":acme/auth", "::", "ssh://git@github.com:acme/auth.git", "https://github.com/acme/../x",
		"https://exa mple.com/a", "ht@tp://x/y", "https://[::1]/x", "/", "file:///",
	} {
		if got, err := NormalizeRemote(in); err == nil {
			t.Errorf("NormalizeRemote(%q) = %q, want an error", in, got)
		}
	}
}

// wantRemoteKey checks that NormalizeRemote gives want, a key ValidProjectKey accepts.
func wantRemoteKey(t *testing.T, remote, want string) {
	t.Helper()
	got, err := NormalizeRemote(remote)
	if err != nil || got != want {
		t.Errorf("NormalizeRemote(%q) = %q, %v; want %q", remote, got, err, want)
	}
	if err == nil {
		if verr := ValidProjectKey(got); verr != nil {
			t.Errorf("NormalizeRemote(%q) = %q: %v", remote, got, verr)
		}
	}
}

func TestValidProjectKey(t *testing.T) {
	for key, want := range map[string]bool{
		Global:                         true,
		"github.com/acme/auth-service": true,
		"gitlab.com/a/b/c":             true,
		"host/x":                       true,
		"local/auth":                   true,
		"local/My_Repo.v2":             true,
		"github.com/Acme/Auth":         true,
		"":                             false,
		"_global/x":                    false,
		"github.com":                   false,
		"GitHub.com/acme/auth":         false,
		"github.com:22/acme/auth":      false,
		"/github.com/acme/auth":        false,
		"github.com/acme/auth/":        false,
		"github.com//auth":             false,
		"github.com/acme/..":           false,
		"github.com/./auth":            false,
		"github.com/acme/a b":          false,
		"local":                        false,
		"local/a/b":                    false,
		"local/..":                     false,
		".hidden/x":                    false,
	} {
		if err := ValidProjectKey(key); (err == nil) != want {
			t.Errorf("ValidProjectKey(%q) = %v, want valid %v", key, err, want)
		}
	}
}
