package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/hooks/resident"
	"github.com/reflect-memory/reflect/internal/testenv"
)

// TestResidentEngine, with the real programs: a session's start (answered by a reflect-engine
// child) leaves a resident engine, which then answers the session's prompts, as the child
// would have (the same injected text, a "remember:" committed in the hook's environment);
// one killed -9 costs no prompt its recall (its socket is left behind: the hook answers
// through a child again, and a new engine stays); with recall.resident 0 none is asked or
// started; asked to leave, it leaves, and the memory is healthy.
func TestResidentEngine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	environ := env(t)
	home := initRepo(t, environ)
	bin := reflectBin(t)
	run(t, environ, ".", bin, "--home", home, "add", "--global", "--title", "Postgres listens on 5433 in the integration tests",
		"--body", "The docker compose file maps postgres to 5433, so DATABASE_URL in the tests must use port 5433.")
	run(t, environ, ".", bin, "--home", home, "reindex")
	cwd := t.TempDir()
	last := func() map[string]any {
		var m map[string]any
		b, _ := os.ReadFile(filepath.Join(home, ".git", "reflect", "last-event.json"))
		json.Unmarshal(b, &m)
		return m
	}
	// await waits until one resident engine runs and listens, and returns it
	await := func() []string {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if r := residents(home); len(r) == 1 && resident.Listening(filepath.Join(home, ".git", "reflect")) {
				return r
			}
		}
		t.Fatalf("resident engines %v, none listening; want one", residents(home))
		return nil
	}
	prompt := func(session, text string) (string, map[string]any) {
		t.Helper()
		out := hook(t, environ, home, "claude", map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": cwd,
			"prompt": text})
		return out, last()
	}
	ask := "the tests fail with connect: connection refused on 127.0.0.1:5433, is postgres up?"

	hook(t, environ, home, "claude", map[string]any{"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup", "cwd": cwd})
	if ev := last(); ev["resident"] == true {
		t.Fatalf("the first session start was answered by a resident engine: %v", ev)
	}
	first := await()
	out, ev := prompt("s1", ask)
	if ev["resident"] != true || !strings.Contains(out, "5433") {
		t.Fatalf("a prompt after the session start: resident %v, printed %q; want the resident engine's recall of the 5433 learning", ev["resident"], out)
	}
	// the same prompt in another session, through a child (REFLECT_DEBUG keeps the resident
	// engine out: its stderr is not the hook's), injects the same text
	child := append(environ[:len(environ):len(environ)], "REFLECT_DEBUG=1")
	if viaChild := hook(t, child, home, "claude", map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s2", "cwd": cwd, "prompt": ask}); viaChild != out {
		t.Fatalf("the resident engine printed\n%s\na child printed\n%s", out, viaChild)
	}
	if ev := last(); ev["resident"] == true {
		t.Fatalf("a debugging hook was answered by the resident engine")
	}
	// a "remember:" is committed by the resident engine in the hook's environment, not the
	// one it was started with: here another HOME, whose git identity names its commit
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, ".gitconfig"), []byte("[user]\n\tname = Hook Person\n\temail = hook@example.org\n"), 0o644)
	otherEnv := append(environ[:len(environ):len(environ)], "HOME="+other, "XDG_CONFIG_HOME="+filepath.Join(other, ".config"))
	hook(t, otherEnv, home, "claude", map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": cwd,
		"prompt": "remember: the staging cluster drains its nodes before an upgrade"})
	if ev := last(); ev["resident"] != true {
		t.Fatalf("the remember: prompt was not answered by the resident engine: %v", ev)
	}
	if subj := run(t, environ, home, "git", "log", "-1", "--format=%s|%an"); !strings.Contains(subj, "staging cluster") || !strings.HasSuffix(subj, "|Hook Person") {
		t.Fatalf("the last commit after a remember: prompt: %q; want it by Hook Person, the hook's git identity", subj)
	}
	if now := residents(home); len(now) != 1 || now[0] != first[0] {
		t.Fatalf("resident engines %v after the prompts; want the first, %v", now, first)
	}
	// what it started for that prompt (the new learning's indexing) ended and was waited for:
	// an engine that stays leaves no zombie behind
	var z []string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if z = zombiesOf(first[0]); len(z) == 0 && len(testenv.Processes(home, "")) == 1 {
			break
		}
	}
	if len(z) > 0 {
		t.Fatalf("the resident engine's children %v are zombies", z)
	}
	// the engine closed the index once each hook had answered (hookengine): the new
	// learning's indexing, which needs the index to itself, was done, and a search finds it
	// without catching up (one waiting for the index would have fallen back, behind HEAD)
	var found struct {
		Source string `json:"source"`
		Note   string `json:"note"`
		Hits   []struct {
			Title string `json:"title"`
		} `json:"hits"`
	}
	searched := run(t, environ, ".", bin, "--home", home, "search", "--format", "json", "staging cluster drains")
	if err := json.Unmarshal([]byte(searched), &found); err != nil { // a note on stderr comes first
		t.Fatalf("a search after the resident engine's prompts printed %q; want the remembered learning, from an index up to date", searched)
	}
	if found.Source != "index" || found.Note != "" || len(found.Hits) == 0 || !strings.Contains(found.Hits[0].Title, "staging cluster") {
		t.Fatalf("a search after the resident engine's prompts: %+v; want the remembered learning, from an index up to date", found)
	}

	// killed -9: its socket stays behind; the next prompt is answered all the same, and a new
	// engine stays
	pid, _ := strconv.Atoi(first[0])
	syscall.Kill(pid, syscall.SIGKILL)
	for end := time.Now().Add(5 * time.Second); len(residents(home)) > 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	out, ev = prompt("s3", ask)
	if ev["resident"] == true || !strings.Contains(out, "5433") {
		t.Fatalf("the prompt after the engine was killed: resident %v, printed %q", ev["resident"], out)
	}
	second := await()
	if second[0] == first[0] {
		t.Fatal("the killed engine is still listed")
	}

	// recall.resident 0: the resident engine is not asked, leaves (it reads the setting again
	// every few seconds), and no other is started
	run(t, environ, ".", bin, "--home", home, "config", "set", "recall.resident", "0")
	out, ev = prompt("s4", ask)
	if ev["resident"] == true || !strings.Contains(out, "5433") {
		t.Fatalf("recall.resident 0: resident %v, printed %q", ev["resident"], out)
	}
	for end := time.Now().Add(10 * time.Second); len(residents(home)) > 0 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
	}
	if r := residents(home); len(r) != 0 {
		t.Fatalf("resident engines %v stay with recall.resident 0", r)
	}
	waitBackground(home)
	if procs := testenv.Processes(home, ""); len(procs) != 0 {
		t.Fatalf("processes %v still on the memory", procs)
	}
	assertHealthy(t, environ, home)
}

// zombiesOf are the pids of the children of ppid that ended and were not waited for (Linux's
// /proc/PID/stat: state Z; a zombie's cmdline is empty, so testenv.Processes misses it).
func zombiesOf(ppid string) []string {
	var pids []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so fields count from its last ')'
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[0] == "Z" && f[1] == ppid {
			pids = append(pids, filepath.Base(filepath.Dir(st)))
		}
	}
	return pids
}
