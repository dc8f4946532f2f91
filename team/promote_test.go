package team

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

func TestScanSecrets(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		name, text string
		line       int
		kind       string
	}{
		{"clean", "---\nid: x\n---\nRun make migrate.\n", 0, ""},
		{"aws key in the body", "---\nid: x\n---\nfirst\nexport AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLF\n", 5, "aws-access-key"},
		{"token in the title", "---\ntitle: use ghp_0123456789abcdefghijABCDEFGHIJ012345\n---\n", 2, ""},
		{"already redacted", "---\nid: x\n---\nthe key was [REDACTED:aws-access-key]\n", 0, ""},
		{"the user's home", "---\nid: x\n---\nsee " + filepath.Join(home, "notes.txt") + "\n", 4, "personal path or login"},
		// a shell line continuation splits the token over two lines; the shell joins them
		{"token split by a continuation", "---\nid: x\n---\nfirst\ncurl -H \"Authorization: token ghp_\\\n0123456789abcdefghijABCDEFGHIJ012345\" https://api.github.com\n", 5, "github-token"},
		{"token split by a continuation, CRLF", "---\r\nid: x\r\n---\r\ncurl -H \"Authorization: token ghp_\\\r\n0123456789abcdefghijABCDEFGHIJ012345\"\r\n", 4, "github-token"},
		{"token split by an indented continuation", "---\nid: x\n---\n    curl -H \"Authorization: token ghp_\\\n        0123456789abcdefghijABCDEFGHIJ012345\"\n", 4, "github-token"},
		// continuations that join no secret are no finding
		{"a plain continuation", "---\nid: x\n---\nmake migrate \\\n  DB=dev \\\n  VERBOSE=1\n", 0, ""},
		{"a backslash ending a line of prose", "---\nid: x\n---\nWindows paths end in \\\nand that is all.\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, kind, text, found := ScanSecrets([]byte(tt.text))
			if found != (tt.line > 0) || line != tt.line || tt.kind != "" && kind != tt.kind {
				t.Fatalf("got line %d kind %q found %v; want line %d kind %q", line, kind, found, tt.line, tt.kind)
			}
			if found && (strings.Contains(text, "AKIAIOSFODNN7EXAMPLF") || strings.Contains(text, "ghp_0123") || strings.Contains(text, "0123456789abcdefghijABCDEFGHIJ012345")) {
				t.Errorf("the refusal shows the secret: %q", text)
			}
		})
	}
}

func TestWithPromotedBy(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"added before the closing line", "---\nid: a\ntitle: t\n---\nbody\n", "---\nid: a\ntitle: t\npromoted_by: Ann <ann@x>\n---\nbody\n"},
		{"replaced", "---\nid: a\npromoted_by: Bob <bob@x>\ntitle: t\n---\nbody\n", "---\nid: a\npromoted_by: Ann <ann@x>\ntitle: t\n---\nbody\n"},
		{"a body line is not the field", "---\nid: a\n---\npromoted_by: someone\n", "---\nid: a\npromoted_by: Ann <ann@x>\n---\npromoted_by: someone\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(withPromotedBy([]byte(tt.in), "Ann <ann@x>")); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if got := PromotedBy([]byte(tt.want)); got != "ann@x" {
				t.Errorf("PromotedBy = %q", got)
			}
		})
	}
}

func TestCompareURL(t *testing.T) {
	b := "reflect/promote/lrn-01"
	tests := []struct{ remote, want string }{
		{"git@github.com:acme/memory.git", "https://github.com/acme/memory/compare/main...reflect/promote/lrn-01?expand=1"},
		{"https://github.com/acme/memory", "https://github.com/acme/memory/compare/main...reflect/promote/lrn-01?expand=1"},
		{"ssh://git@gitlab.example.com/team/memory.git", "https://gitlab.example.com/team/memory/-/merge_requests/new?merge_request%5Bsource_branch%5D=reflect%2Fpromote%2Flrn-01"},
		{"https://ann:s3cret@git.example.com/memory.git", "git fetch https://xxxxx@git.example.com/memory.git reflect/promote/lrn-01 && git diff main...FETCH_HEAD && git merge --no-ff FETCH_HEAD"},
		{"https://ghp_R8x2Lq7Vt4Nz9Kc3Wm6Yb1Hd5Jf0Gs8Pa2Ue@git.example.com/memory.git", "git fetch https://xxxxx@git.example.com/memory.git reflect/promote/lrn-01 && git diff main...FETCH_HEAD && git merge --no-ff FETCH_HEAD"},
		{"/srv/git/memory.git", "git fetch /srv/git/memory.git reflect/promote/lrn-01 && git diff main...FETCH_HEAD && git merge --no-ff FETCH_HEAD"},
	}
	for _, tt := range tests {
		if got := CompareURL(tt.remote, b); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.remote, got, tt.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{"acme": true, "acme-web.2": true, "..": false, "a/b": false, "Acme": false, "": false, ".x": false, strings.Repeat("a", 41): false} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}

// TestPromote promotes through a real bare remote with a stand-in gh on PATH that records
// its arguments, then refuses a learning holding a secret without pushing anything.
func TestPromote(t *testing.T) {
	p, remote, _ := setup(t)
	ctx := context.Background()
	bin := t.TempDir()
	args := filepath.Join(bin, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + args + "\n[ \"$1\" = pr ] && echo https://github.com/acme/memory/pull/42\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l := learnings.New("Run migrations with make migrate", project, time.Now())
	l.Body = "go run ./cmd/migrate misses the environment make loads."
	l.Source.Files = []string{"Makefile"}
	if _, err := learnings.Create(ctx, p, l, "add"); err != nil {
		t.Fatal(err)
	}
	res, err := Promote(ctx, p, PromoteOptions{Team: "acme", IDs: []string{l.ID}, GH: filepath.Join(bin, "gh")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != BranchPrefix+l.ID || res.PR != "https://github.com/acme/memory/pull/42" {
		t.Errorf("promotion: %+v", res)
	}
	out, err := exec.Command("git", "-C", remote, "show", res.Branch+":"+l.RelPath()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "promoted_by: ") || !strings.Contains(string(out), "id: "+l.ID) {
		t.Errorf("the branch's file: %v\n%s", err, out)
	}
	if out, _ := exec.Command("git", "-C", remote, "rev-parse", "main:"+l.RelPath()).CombinedOutput(); !strings.Contains(string(out), "fatal") {
		t.Errorf("the promotion reached main before review: %s", out)
	}
	got, _ := os.ReadFile(args)
	for _, want := range []string{"auth\nstatus", "pr\ncreate\n--head\n" + res.Branch + "\n--base\nmain\n--title\nreflect: Run migrations with make migrate"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("gh was called with\n%s\nwant %q in it", got, want)
		}
	}
	body := ReviewBody([]*learnings.Learning{l}, "Ann <ann@x>")
	for _, want := range []string{"**What:** Run migrations with make migrate", "**Why:**\n\ngo run ./cmd/migrate misses", "**Anchors:** `Makefile`", "Promoted by Ann <ann@x>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the pull request's description lacks %q:\n%s", want, body)
		}
	}
	pending, err := ListPending(ctx, p, "acme")
	if err != nil || len(pending) != 1 || pending[0].IDs[0] != l.ID {
		t.Errorf("pending: %+v, %v", pending, err)
	}

	// a learning whose file holds a secret (written by hand, past reflect's redaction)
	s := learnings.New("Deploy with the token", project, time.Now())
	data, _ := s.Render()
	data = append(data, []byte("curl -H 'Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345' …\n")...)
	if _, err := p.Update(ctx, func(tx *gitstore.Tx) (string, error) { tx.Write(s.RelPath(), data); return "hand-written", nil }); err != nil {
		t.Fatal(err)
	}
	_, err = Promote(ctx, p, PromoteOptions{Team: "acme", IDs: []string{s.ID}, GH: filepath.Join(bin, "gh")})
	var se *SecretError
	if !errors.As(err, &se) || se.Line == 0 || strings.Contains(err.Error(), "ghp_0123") {
		t.Fatalf("a secret promoted: %v", err)
	}
	if out, _ := exec.Command("git", "-C", remote, "branch", "--list", "*"+s.ID).CombinedOutput(); len(out) != 0 {
		t.Errorf("the refused promotion pushed a branch: %s", out)
	}
}
