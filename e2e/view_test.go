package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestViewProcess runs reflect view as a person does, a real process on a real repository:
// the printed URL opens the list; a learning added by another reflect process meanwhile
// shows up; a form posted from the page commits an edit; a form whose learning another
// process archived after the page loaded is refused; Ctrl-C ends it with exit 0 and the
// repository healthy.
func TestViewProcess(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	id := run(t, environ, ".", bin, "--home", home, "add", "--global", "-t", "Pin the Go toolchain in go.mod")

	cmd := exec.Command(bin, "--home", home, "--format", "json", "view", "--no-open")
	cmd.Env = environ
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var printed struct{ URL string }
	if err := json.NewDecoder(bufio.NewReader(stdout)).Decode(&printed); err != nil || !strings.HasPrefix(printed.URL, "http://127.0.0.1:") {
		t.Fatalf("reflect view printed %+v (%v)", printed, err)
	}
	go io.Copy(io.Discard, stdout)
	u, _ := url.Parse(printed.URL)
	origin := "http://" + u.Host
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(path string) string {
		t.Helper()
		resp, err := client.Get(origin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, origin+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if page := get(strings.TrimPrefix(printed.URL, origin)); !strings.Contains(page, "Pin the Go toolchain in go.mod") {
		t.Fatalf("the printed URL does not show the learning:\n%s", page)
	}
	other := run(t, environ, ".", bin, "--home", home, "add", "--global", "-t", "Run gofmt before committing")
	if page := get("/"); !strings.Contains(page, "Run gofmt before committing") {
		t.Errorf("a learning added by another process is not listed")
	}

	field := regexp.MustCompile(`name="(token|base)" value="([^"]+)"`)
	formOf := func(page string) url.Values {
		v := url.Values{}
		for _, m := range field.FindAllStringSubmatch(page, -1) {
			v.Set(m[1], m[2])
		}
		if v.Get("token") == "" || v.Get("base") == "" {
			t.Fatalf("no token or base in the form:\n%s", page)
		}
		return v
	}
	form := formOf(get("/learning/" + id + "/edit"))
	for k, x := range map[string]string{"title": "Pin the Go toolchain with a toolchain line", "project": "_global",
		"kind": "rule", "confidence": "high", "body": "Add `toolchain go1.26.8` to go.mod.\n"} {
		form.Set(k, x)
	}
	if code, body := post("/learning/"+id+"/edit", form); code != 200 || !strings.Contains(body, "Saved: one commit.") {
		t.Fatalf("edit: %d\n%s", code, body)
	}
	if s := run(t, environ, home, "git", "log", "-1", "--format=%s"); s != "edit: Pin the Go toolchain with a toolchain line ("+id+")" {
		t.Errorf("the edit's commit: %q", s)
	}

	stale := formOf(get("/learning/" + other))
	run(t, environ, ".", bin, "--home", home, "archive", other, "--reason", "from the CLI")
	before := run(t, environ, home, "git", "rev-parse", "HEAD")
	if code, body := post("/learning/"+other+"/supersede", url.Values{"token": {stale.Get("token")}, "base": {stale.Get("base")}, "by": {id}}); code != 409 ||
		!strings.Contains(body, "changed since this page was loaded") {
		t.Errorf("a supersede from a page older than the archive: %d\n%s", code, body)
	}
	if after := run(t, environ, home, "git", "rev-parse", "HEAD"); after != before {
		t.Errorf("a stale write committed")
	}

	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("reflect view after Ctrl-C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reflect view did not stop on Ctrl-C")
	}
	assertHealthy(t, environ, home)
}
