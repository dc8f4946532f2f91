package sync

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// httpRemote serves the bare repository at dir over git's smart-HTTP protocol, with git's
// own http-backend behind net/http/cgi on loopback, requiring token as the basic-auth
// password. It returns the repository's URL.
func httpRemote(t *testing.T, dir, token string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git --exec-path:", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("no git-http-backend:", err)
	}
	git(t, dir, "config", "http.receivepack", "true")
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if _, pass, ok := req.BasicAuth(); !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(dir)
}

func TestSmartHTTPRemote(t *testing.T) {
	setHome(t)
	remote := httpRemote(t, bare(t), "s3cret-token")
	ctx := context.Background()

	// without credentials: a clear error, nothing left behind
	dir := filepath.Join(t.TempDir(), "mem")
	_, _, err := Clone(ctx, dir, remote, Options{})
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "REFLECT_GIT_TOKEN") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("a failed clone left a directory behind")
	}

	t.Setenv("REFLECT_GIT_TOKEN", "s3cret-token")
	ls := laptops(t, remote, 2)
	a, b := ls[0], ls[1]
	la := a.add("Served over smart HTTP")
	a.sync()
	lb := b.add("Merged over smart HTTP")
	if res := b.sync(); res.Action != "merge" || !res.Pushed {
		t.Errorf("b: %+v", res)
	}
	a.sync()
	for _, l := range ls {
		for _, id := range []string{la.ID, lb.ID} {
			if _, err := os.Stat(filepath.Join(l.dir, "learnings", "github.com", "acme", "shop", id+".md")); err != nil {
				t.Errorf("%s lacks %s", l.name, id)
			}
		}
		l.healthy()
	}
	if git(t, a.dir, "rev-parse", "HEAD") != git(t, b.dir, "rev-parse", "HEAD") {
		t.Error("not converged")
	}

	// a wrong token: the error says so, and the local commit stays
	t.Setenv("REFLECT_GIT_TOKEN", "wrong")
	c := a.add("Kept although the push fails")
	before := git(t, a.dir, "rev-parse", "HEAD")
	_, err = Sync(ctx, a.repo(), Options{})
	if !errors.Is(err, ErrAuth) {
		t.Errorf("wrong token: %v", err)
	}
	if git(t, a.dir, "rev-parse", "HEAD") != before {
		t.Error("a failed sync moved HEAD")
	}
	if _, err := os.Stat(filepath.Join(a.dir, "learnings", "github.com", "acme", "shop", c.ID+".md")); err != nil {
		t.Error("the local learning is gone")
	}
}

// TestCredentialHelper: with no token in the environment, the credentials come from git's
// own credential helpers (`git credential fill`), as they would for git push.
func TestCredentialHelper(t *testing.T) {
	setHome(t)
	remote := httpRemote(t, bare(t), "from-the-helper")
	store := filepath.Join(t.TempDir(), "credentials")
	u := strings.Replace(remote, "http://", "http://x-access-token:from-the-helper@", 1)
	u = u[:strings.LastIndex(u, "/")]
	if err := os.WriteFile(store, []byte(u+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitconfig := "[credential]\n\thelper = store --file=" + store + "\n"
	if err := os.WriteFile(filepath.Join(os.Getenv("HOME"), ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("REFLECT_GIT_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	ls := laptops(t, remote, 1)
	ls[0].add("Credentials from git's helper")
	if res := ls[0].sync(); !res.Pushed {
		t.Errorf("%+v", res)
	}
}
