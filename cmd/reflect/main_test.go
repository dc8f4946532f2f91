package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/cmd/internal/enginecmd"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
)

// TestMain lets the scripts run the reflect command: testscript puts this test binary on PATH
// under the name reflect, and running it under that name runs Main.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"reflect":        func() { os.Exit(cli.Main(nil)) },
		"reflect-engine": func() { os.Exit(cli.Main(enginecmd.Engine{})) },
	})
}

// TestScripts runs the CLI's executable spec, testdata/script/*.txtar: one story per command.
//
// Every script gets a private, empty HOME ($WORK/home), no REFLECT_HOME, no EDITOR or VISUAL,
// and a git that reads no system or user configuration, so nothing of the machine running the
// tests is read or changed.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the scripts check their repositories with the git CLI, which is not installed")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Ada Person")
			env.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Ada Person")
			env.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
			// testscript starts from an empty environment; these say so for the reader.
			for _, k := range []string{"REFLECT_HOME", "REFLECT_DEBUG", "EDITOR", "VISUAL"} {
				env.Setenv(k, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fails":        cmdFails,
			"gitclean":     cmdGitClean,
			"commits":      cmdCommits,
			"capture":      cmdCapture,
			"waitdetached": cmdWaitDetached,
			"llmserver":    cmdLLMServer,
			"short":        cmdShort,
			"codextrust":   cmdCodexTrust,
			"lone":         cmdLone,
		},
	})
}

// fails N PROG [ARGS...] runs PROG like exec and asserts that it exits with status N.
// stdout and stderr are then those of PROG. When PROG is timeout(1), used to keep a command
// that hangs from stalling the suite, its status 124 is reported as a time-out.
func cmdFails(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fails CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want == 0 {
		ts.Fatalf("fails: CODE must be a non-zero exit status, got %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	var ee *exec.ExitError
	switch {
	case err == nil:
		ts.Fatalf("%s succeeded; want exit status %d", args[1], want)
	case !errors.As(err, &ee):
		ts.Fatalf("run %s: %v", args[1], err)
	case args[1] == "timeout" && ee.ExitCode() == 124 && want != 124:
		ts.Fatalf("%s timed out; want exit status %d", strings.Join(args[3:], " "), want)
	case ee.ExitCode() != want:
		ts.Fatalf("%s exited with status %d; want %d", args[1], ee.ExitCode(), want)
	}
}

// gitclean DIR asserts that the repository at DIR is what reflect promises after every
// command: `git status --porcelain` prints nothing and `git fsck --strict` finds nothing.
// It leaves stdout and stderr as they were.
func cmdGitClean(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitclean DIR")
	}
	if out := git(ts, args[0], "status", "--porcelain", "--untracked-files=all"); out != "" {
		ts.Fatalf("git status in %s is not clean:\n%s", args[0], out)
	}
	git(ts, args[0], "fsck", "--strict", "--no-progress")
}

// commits DIR N asserts that N commits are reachable from HEAD of the repository at DIR.
// It leaves stdout and stderr as they were.
func cmdCommits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: commits DIR N")
	}
	if got := git(ts, args[0], "rev-list", "--count", "HEAD"); got != args[1] {
		ts.Fatalf("%s has %s commits; want %s", args[0], got, args[1])
	}
}

// capture NAME sets the environment variable NAME to the standard output of the last
// command, trimmed of surrounding space: `exec reflect add ...` then `capture ID`.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: capture NAME")
	}
	v := strings.TrimSpace(ts.ReadFile("stdout"))
	if v == "" {
		ts.Fatalf("capture %s: the last command printed nothing", args[0])
	}
	ts.Setenv(args[0], v)
}

// waitdetached DIR waits until the detached reflect processes that hooks and commands
// started on the knowledge repository at DIR (a SessionStart's drain, an index catch-up, a
// pool refill) have ended and left its locks free. A script cannot otherwise know when a
// detached process is done: it uses this before it checks what such a process did, and
// before it ends (so nothing still writes to $WORK when it is removed).
func cmdWaitDetached(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitdetached DIR")
	}
	testenv.WaitDetached(ts.MkAbs(args[0]))
}

// codextrust HOOKS [STALE] writes $CODEX_HOME/config.toml as Codex's /hooks does when the
// user trusts every handler of the hooks file HOOKS: a [hooks.state."<key>"] trusted_hash per
// handler, the handler's hash computed as Codex does. The handlers of event STALE get a hash
// from before they changed.
func cmdCodexTrust(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: codextrust HOOKS [STALE]")
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout *int64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	path := ts.MkAbs(args[0])
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("codextrust: %s: %v", args[0], err)
	}
	var b strings.Builder
	for ev, groups := range doc.Hooks {
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				hash := install.CodexHookHash(install.CodexHook{Event: ev, Matcher: g.Matcher, Command: h.Command, Timeout: h.Timeout})
				if len(args) == 2 && ev == args[1] {
					hash = "sha256:" + strings.Repeat("0", 64)
				}
				fmt.Fprintf(&b, "[hooks.state.%q]\ntrusted_hash = %q\n\n", install.CodexTrustKey(path, ev, gi, hi), hash)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(ts.Getenv("CODEX_HOME"), "config.toml"), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("codextrust: %v", err)
	}
}

// git runs the git CLI in dir with the script's environment and returns its trimmed output,
// failing the script if git fails.
func git(ts *testscript.TestScript, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = ts.MkAbs(dir)
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// llmserver FILE... serves, on loopback, an OpenAI-compatible chat-completions API that
// answers the Nth request with the Nth file (the last one again after that): a first line
// "HTTP <status>", a blank line, then the body. It sets $LLM_URL to its base (…/v1) and
// $LLM_REQUESTS to a file where each request's model is written, one line each. The server
// ends with the script. A stand-in for a model reflect cannot call here.
func cmdLLMServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: llmserver FILE...")
	}
	type answer struct {
		status int
		body   string
	}
	var answers []answer
	for _, f := range args {
		head, body, _ := strings.Cut(ts.ReadFile(f), "\n\n")
		status, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "HTTP")))
		if err != nil {
			ts.Fatalf("llmserver: %s: the first line must be HTTP <status>", f)
		}
		answers = append(answers, answer{status, body})
	}
	log := ts.MkAbs("llm-requests")
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		a := answers[min(n, len(answers)-1)]
		n++
		if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", r.URL.Path, req.Model)
			f.Close()
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("LLM_URL", srv.URL+"/v1")
	ts.Setenv("LLM_REQUESTS", log)
}

// short NAME sets $NAME_SHORT to the form `reflect list` shows the learning id $NAME in: lrn-
// and its last characters (learnings.MinShortID of them; in the few learnings of a script
// no other id holds them).
func cmdShort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: short NAME")
	}
	id := ts.Getenv(args[0])
	if len(id) < learnings.MinShortID {
		ts.Fatalf("short: $%s is not a learning id: %q", args[0], id)
	}
	ts.Setenv(args[0]+"_SHORT", "lrn-"+id[len(id)-learnings.MinShortID:])
}

// lone DIR copies reflect (from PATH) into DIR alone, without reflect-engine beside it.
func cmdLone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lone DIR")
	}
	src, err := exec.LookPath("reflect")
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	dst := filepath.Join(dir, filepath.Base(src))
	// a hard link, not a copy written here: a copy's write descriptor lives on, until exec, in
	// a child another script forks meanwhile, and running the copy then fails with "text file
	// busy" (golang/go#22315; engine.txtar failed so once in four runs)
	if os.Link(src, dst) == nil {
		return
	}
	data, err := os.ReadFile(src)
	ts.Check(err)
	ts.Check(os.WriteFile(dst, data, 0o755))
}
