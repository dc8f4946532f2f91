package doctor

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/install"
	"github.com/reflect-memory/reflect/internal/shellquote"
	"github.com/reflect-memory/reflect/internal/testenv"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/team"
)

// setup is a healthy reflect: a knowledge repository with three learnings and a fresh index,
// hooks installed into Claude Code and Codex (in the test's HOME) running bin, and Codex's
// trust recorded for each of reflect's handlers.
type setup struct {
	home string // the knowledge repository
	r    *gitstore.Repo
	bin  string // the reflect the hooks run
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	return newSetupAt(t, filepath.Join(t.TempDir(), "mem"))
}

// newSetupAt is newSetup with the knowledge repository at home.
func newSetupAt(t *testing.T, home string) *setup {
	t.Helper()
	testenv.SetHome(t)
	user, _ := os.UserHomeDir()
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(user, ".claude"))
	t.Setenv("CODEX_HOME", filepath.Join(user, ".codex"))
	ctx := context.Background()
	s := &setup{home: home, bin: filepath.Join(t.TempDir(), "reflect")}
	if err := os.WriteFile(s.bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(install.EngineBeside(s.bin), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{install.Claude, install.Codex} {
		path, err := install.ConfigPath(h, false, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := install.Install(ctx, install.Options{Harness: h, Path: path, Binary: s.bin, Home: s.home}); err != nil {
			t.Fatal(err)
		}
	}
	trustCodex(t, s.bin)
	r, err := gitstore.Open(s.home)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range fixtures.Learnings()[:3] {
		l, err := learnings.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		files[learnings.PathFor(l.Project, l.ID)] = f.Data
	}
	if _, err := r.Commit(ctx, "fixtures", files); err != nil {
		t.Fatal(err)
	}
	s.r = r
	s.reindex(t)
	return s
}

// trustCodex records in config.toml what Codex's /hooks writes when the user trusts each of
// reflect's handlers (install puts each in a group of its own: group 0, handler 0): the hash
// of the handler as installed, computed as Codex does.
func trustCodex(t *testing.T, bin string) {
	t.Helper()
	home, _ := install.HostHome(install.Codex)
	hooks := filepath.Join(home, "hooks.json")
	var b strings.Builder
	for _, ev := range install.Events(install.Codex) {
		timeout := int64(ev.Timeout)
		hash := install.CodexHookHash(install.CodexHook{Event: ev.Name, Command: install.Command(bin, install.Codex), Timeout: &timeout})
		fmt.Fprintf(&b, "[hooks.state.%q]\ntrusted_hash = %q\n\n", install.CodexTrustKey(hooks, ev.Name, 0, 0), hash)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// codexOnPath puts a codex command on PATH: Codex is installed.
func codexOnPath(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "codex"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// editCodexState rewrites Codex's config.toml with edit, which gets the file and the header
// line of the trust state of reflect's handler for event.
func editCodexState(t *testing.T, event string, edit func(cfg, state string) string) {
	t.Helper()
	home, _ := install.HostHome(install.Codex)
	path := filepath.Join(home, "config.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	state := fmt.Sprintf("[hooks.state.%q]\n", install.CodexTrustKey(filepath.Join(home, "hooks.json"), event, 0, 0))
	write(t, path, edit(string(data), state))
}

// codexHooksOff switches Codex's hooks off in its config.toml.
func codexHooksOff(t *testing.T) {
	t.Helper()
	home, _ := install.HostHome(install.Codex)
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("[features]\nhooks = false\n")
}

func (s *setup) reindex(t *testing.T) {
	t.Helper()
	if _, err := index.Rebuild(context.Background(), s.r, index.Options{}); err != nil {
		t.Fatal(err)
	}
}

func (s *setup) commit(t *testing.T, files map[string][]byte) {
	t.Helper()
	if _, err := s.r.Commit(context.Background(), "test", files); err != nil {
		t.Fatal(err)
	}
}

// aLearning returns the path of one learning in HEAD and its blob.
func (s *setup) aLearning(t *testing.T) gitstore.File {
	t.Helper()
	files, err := s.r.Walk(learnings.Dir)
	if err != nil || len(files) == 0 {
		t.Fatalf("no learnings: %v", err)
	}
	return files[0]
}

func configPath(t *testing.T, harness string) string {
	t.Helper()
	p, err := install.ConfigPath(harness, false, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// want is a finding a broken setup must produce: its check and severity, and words its
// message or details hold and its fix holds.
type want struct {
	check string
	sev   Severity
	text  string
	fix   string
}

func TestRun(t *testing.T) {
	haveGit := exec.Command("git", "version").Run() == nil
	cases := []struct {
		name  string
		noGit bool
		needs string // "git": skipped without the git CLI
		brk   func(t *testing.T, s *setup)
		want  []want // every finding that is not ok; nothing else may be
	}{
		{name: "healthy"},
		{
			name: "healthy with a reachable remote",
			brk: func(t *testing.T, s *setup) {
				bare := filepath.Join(t.TempDir(), "remote.git")
				if out, err := exec.Command("git", "init", "--bare", "-q", bare).CombinedOutput(); err != nil {
					t.Fatalf("git init --bare: %v\n%s", err, out)
				}
				s.r.SetRemote("origin", bare)
			},
			needs: "git",
		},
		{
			name: "not wired into claude",
			brk: func(t *testing.T, s *setup) {
				if _, err := install.Uninstall(install.Options{Harness: install.Claude, Path: configPath(t, install.Claude)}); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"claude", Warn, filepath.Join(".claude", "settings.json") + ": Claude Code sessions are not captured", "reflect install claude"}},
		},
		{
			name: "not wired into codex",
			brk: func(t *testing.T, s *setup) {
				if _, err := install.Uninstall(install.Options{Harness: install.Codex, Path: configPath(t, install.Codex)}); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"codex", Warn, filepath.Join(".codex", "hooks.json") + ": Codex sessions are not captured", "reflect install codex"}},
		},
		{
			name: "wired for some events only",
			brk: func(t *testing.T, s *setup) {
				write(t, configPath(t, install.Claude), `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "`+s.bin+` hook claude"}]}]}}`)
			},
			want: []want{{"claude", Warn, "1 of 7 events (missing UserPromptSubmit, PostToolUse", "reflect install claude"}},
		},
		{
			name: "settings that are not JSON",
			brk: func(t *testing.T, s *setup) {
				write(t, configPath(t, install.Claude), "{\n  \"hooks\": {,\n}\n")
			},
			want: []want{{"claude", Error, "settings.json:2:13: invalid character", "reflect install claude"}},
		},
		{
			name: "hook binary missing",
			brk: func(t *testing.T, s *setup) {
				os.Remove(s.bin)
			},
			want: []want{
				{"binary", Error, "does not exist", "reflect install claude"},
				{"binary", Error, "does not exist", "reflect install codex"},
			},
		},
		{
			name: "no reflect-engine beside the hooks' reflect",
			brk: func(t *testing.T, s *setup) {
				os.Remove(install.EngineBeside(s.bin))
			},
			want: []want{{"engine", Error, "which has no reflect-engine beside it", "go install github.com/reflect-memory/reflect/cmd/...@latest"}},
		},
		{
			name: "hook binary not executable",
			brk: func(t *testing.T, s *setup) {
				os.Chmod(s.bin, 0o644)
			},
			want: []want{
				{"binary", Error, "is not executable", "reflect install claude"},
				{"binary", Error, "is not executable", "reflect install codex"},
			},
		},
		{
			name: "codex hooks not trusted",
			brk: func(t *testing.T, s *setup) {
				home, _ := install.HostHome(install.Codex)
				os.Remove(filepath.Join(home, "config.toml"))
			},
			want: []want{{"codex", Warn, "not trusted in Codex", "/hooks"}},
		},
		{
			name: "codex hook disabled in /hooks",
			brk: func(t *testing.T, s *setup) {
				editCodexState(t, "Stop", func(cfg, state string) string {
					return strings.Replace(cfg, state, state+"enabled = false\n", 1)
				})
			},
			want: []want{{"codex", Warn, "reflect's Stop hooks are disabled in Codex", "/hooks"}},
		},
		{
			name: "codex hooks switched off",
			brk:  func(t *testing.T, s *setup) { codexHooksOff(t) },
			want: []want{{"codex", Warn, "Codex hooks are disabled", "hooks = true under [features]"}},
		},
		{
			name: "codex installed, hooks never trusted",
			brk: func(t *testing.T, s *setup) {
				codexOnPath(t)
				home, _ := install.HostHome(install.Codex)
				os.Remove(filepath.Join(home, "config.toml"))
			},
			want: []want{{"codex", Error, "not trusted in Codex", "type /hooks and trust"}},
		},
		{
			name: "codex installed, hooks switched off",
			brk: func(t *testing.T, s *setup) {
				codexOnPath(t)
				codexHooksOff(t)
			},
			want: []want{{"codex", Error, "Codex hooks are disabled", "hooks = true under [features]"}},
		},
		{
			// the hooks now run another binary: what the user trusted is not what is installed
			name: "codex installed, trust out of date",
			brk: func(t *testing.T, s *setup) {
				codexOnPath(t)
				moved := filepath.Join(t.TempDir(), "reflect")
				os.Link(s.bin, moved)
				os.Link(install.EngineBeside(s.bin), install.EngineBeside(moved))
				if _, err := install.Install(context.Background(), install.Options{Harness: install.Codex, Path: configPath(t, install.Codex), Binary: moved}); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"codex", Error, "reflect's SessionStart, UserPromptSubmit, PostToolUse, PreCompact, Stop, SessionEnd hooks changed since they were trusted", "type /hooks and trust"}},
		},
		{
			name: "codex trust of one hook out of date",
			brk: func(t *testing.T, s *setup) {
				codexOnPath(t)
				editCodexState(t, "Stop", func(cfg, state string) string {
					key := state + "trusted_hash = \"sha256:"
					i := strings.Index(cfg, key) + len(key)
					return cfg[:i] + strings.Repeat("0", 64) + cfg[i+64:]
				})
			},
			want: []want{{"codex", Error, "reflect's Stop hooks changed since they were trusted", "type /hooks and trust"}},
		},
		{
			// a Codex that does not know SessionEnd never lists it in /hooks
			name: "codex installed, one hook never trusted",
			brk: func(t *testing.T, s *setup) {
				codexOnPath(t)
				editCodexState(t, "SessionEnd", func(cfg, state string) string {
					return strings.Replace(cfg, state, "[unrelated]\n", 1)
				})
			},
			want: []want{{"codex", Warn, "1 of 6 reflect hooks are not trusted in Codex (SessionEnd)", "type /hooks and trust"}},
		},
		{
			name: "settings file that does not parse",
			brk: func(t *testing.T, s *setup) {
				toml, _ := s.r.ReadFile("reflect.toml")
				s.commit(t, map[string][]byte{"reflect.toml": append(toml, "\n[hooks]\nrecall_timeout = \"10m\"\n"...)})
			},
			want: []want{{"settings", Error, "reflect.toml:", "commit"}},
		},
		{
			name: "a second file claims a learning's id",
			brk: func(t *testing.T, s *setup) {
				f := s.aLearning(t)
				data, _ := s.r.ReadBlob(f.ID)
				id, _ := learnings.IDFromPath(f.Path)
				s.commit(t, map[string][]byte{"learnings/_global/" + id + ".md": data})
				s.reindex(t)
			},
			want: []want{{"ids", Error, "1 id claimed by more than one file", "rm"}, {"learnings", Warn, "field project says", "edit"}},
		},
		{
			name: "a learning under another project's directory",
			brk: func(t *testing.T, s *setup) {
				f := s.aLearning(t)
				data, _ := s.r.ReadBlob(f.ID)
				id, _ := learnings.IDFromPath(f.Path)
				s.commit(t, map[string][]byte{f.Path: nil, "learnings/github.com/other/x/" + id + ".md": data})
				s.reindex(t)
			},
			want: []want{{"learnings", Warn, "1 learning hold what a reviewer should know", "edit"}},
		},
		{
			name: "a symlink committed by hand",
			brk: func(t *testing.T, s *setup) {
				if err := os.Symlink("/etc/passwd", filepath.Join(s.home, "passwd")); err != nil {
					t.Fatal(err)
				}
				gitCmd(t, s.home, "add", "passwd")
				gitCmd(t, s.home, "commit", "-qm", "a link")
			},
			want: []want{{"paths", Error, "1 file reflect would refuse from a remote", "rm --cached"}},
		},
		{
			name: "local settings that do not load",
			brk: func(t *testing.T, s *setup) {
				os.WriteFile(s.r.LocalSettingsPath(), []byte("[drain]\nattempts = \"many\"\n"), 0o644)
			},
			want: []want{{"settings", Error, "config.toml:2: key drain.attempts", "reflect config set"}},
		},
		{
			name: "a local key in the shared file",
			brk: func(t *testing.T, s *setup) {
				toml, _ := s.r.ReadFile("reflect.toml")
				s.commit(t, map[string][]byte{"reflect.toml": append(toml, "\n[drain]\nextractor = \"command:sh\"\n"...)})
			},
			want: []want{{"settings", Warn, "drain.extractor ignored", "reflect config set"}},
		},
		{
			name: "repository missing",
			brk: func(t *testing.T, s *setup) {
				os.RemoveAll(s.home)
			},
			want: []want{{"repo", Error, "no knowledge repository", "reflect init"}},
		},
		{
			name:  "corrupted object, git fsck too",
			needs: "git",
			brk:   corruptBlob,
			want:  []want{{"objects", Error, "zlib", "fsck"}},
		},
		{
			name:  "corrupted object, in process",
			noGit: true,
			brk:   corruptBlob,
			want:  []want{{"objects", Error, "zlib", "fsck"}},
		},
		{
			name:  "dirty work tree, in process",
			noGit: true,
			brk:   modifyLearning,
			want:  []want{{"worktree", Warn, "(modified)", "commit"}},
		},
		{
			name:  "dirty work tree, untracked file seen by git status",
			needs: "git",
			brk: func(t *testing.T, s *setup) {
				write(t, filepath.Join(s.home, "learnings", "notes.txt"), "mine\n")
			},
			want: []want{{"worktree", Warn, "learnings/notes.txt (untracked)", "add -A"}},
		},
		{
			name:  "a write killed midway",
			needs: "git",
			brk:   killWriteMidway,
			want:  []want{{"worktree", Warn, "learnings/_global/half-written.md (untracked)", "reflect doctor --repair"}},
		},
		{
			name:  "a write killed midway, in process",
			noGit: true,
			brk:   killWriteMidway,
			want:  []want{{"worktree", Warn, "a reflect write was interrupted", "reflect doctor --repair"}},
		},
		{
			name: "a journal that cannot be read",
			brk: func(t *testing.T, s *setup) {
				write(t, filepath.Join(s.r.StateDir(), "journal.json"), `{"paths":["learn`)
			},
			want: []want{{"worktree", Error, "journal.json: unexpected end of JSON input", "remove the file"}},
		},
		{
			name: "invalid learning file",
			brk: func(t *testing.T, s *setup) {
				f := s.aLearning(t)
				data, _ := s.r.ReadBlob(f.ID)
				l, _ := learnings.Parse(f.Path, data)
				bad := strings.Replace(string(data), "kind: "+string(l.Kind), "kind: banana", 1)
				path := learnings.PathFor(l.Project, learnings.NewID(time.Now()))
				bad = strings.Replace(bad, l.ID, strings.TrimSuffix(filepath.Base(path), ".md"), 1)
				s.commit(t, map[string][]byte{path: []byte(bad)})
				s.reindex(t)
			},
			want: []want{{"learnings", Warn, ".md:5: field kind", "commit"}},
		},
		{
			name: "stale index",
			brk: func(t *testing.T, s *setup) {
				l := learnings.New("Run the migrations before the seed", learnings.Global, time.Now())
				l.Body = "The seed needs the new columns.\n"
				if _, err := learnings.Create(context.Background(), s.r, l, "add"); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"index", Warn, "stale: 1 changed learning", "reflect reindex"}},
		},
		{
			name: "missing index",
			brk: func(t *testing.T, s *setup) {
				os.RemoveAll(filepath.Join(s.r.StateDir(), "index"))
			},
			want: []want{{"index", Warn, "missing", "reflect reindex"}},
		},
		{
			name: "unreachable remote, manual sync",
			brk: func(t *testing.T, s *setup) {
				s.r.SetRemote("origin", filepath.Join(t.TempDir(), "gone.git"))
			},
			want: []want{{"remote", Warn, "origin (sync is manual): the remote could not be reached", "reflect remote set URL"}},
		},
		{
			name: "unreachable remote, automatic sync",
			brk: func(t *testing.T, s *setup) {
				s.r.SetRemote("origin", "http://"+closedPort(t)+"/mem.git")
				if _, err := s.r.SetSetting(context.Background(), "sync.auto", "true"); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"remote", Error, "origin (sync.auto is on): the remote could not be reached", "reflect remote set URL"}},
		},
		{
			name: "failed queue entries",
			brk: func(t *testing.T, s *setup) {
				now := time.Now().UTC().Truncate(time.Second)
				e := &queue.Entry{ID: queue.NewID(now), Harness: "claude", Session: "s-1", Trigger: "stop",
					Project: learnings.Global, Machine: "m", Created: now, Updated: now, Error: "unparseable answer", Attempts: 3}
				data, err := e.Render()
				if err != nil {
					t.Fatal(err)
				}
				s.commit(t, map[string][]byte{queue.FailedPath(e.ID): data})
			},
			want: []want{{"queue", Warn, "unparseable answer", "reflect queue retry --all"}},
		},
		{
			// a remote chose the file's name: the fix's command holds it as one quoted word
			name: "unreadable queue file named to run a command",
			brk: func(t *testing.T, s *setup) {
				s.commit(t, map[string][]byte{"queue/q-1;touch pwned;.json": []byte("{not json\n")})
			},
			want: []want{{"queue", Warn, "1 queue file the drain cannot read", " rm -q 'queue/q-1;touch pwned;.json' && git -C "}},
		},
		{
			name: "paused drain",
			brk: func(t *testing.T, s *setup) {
				s.r.WriteState("drain/paused.json", []byte(`{"since":"2026-11-20T10:00:00Z","extractor":"claude","reason":"quota exceeded"}`))
			},
			want: []want{{"drain", Warn, "paused since", "reflect queue retry --all"}},
		},
		{
			name: "caps close",
			brk: func(t *testing.T, s *setup) {
				day := time.Now().Format("2006-01-02")
				s.r.WriteState("usage/"+day+".json", []byte(`{"day":"`+day+`","calls":17,"input_tokens":1200}`))
			},
			want: []want{{"caps", Warn, "17 of 20 LLM calls today", "drain.max_calls_per_day"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needs == "git" && !haveGit {
				t.Skip("needs the git CLI")
			}
			s := newSetup(t)
			if tc.brk != nil {
				tc.brk(t, s)
			}
			rep := Run(context.Background(), Options{Home: s.home, NoGit: tc.noGit, RemoteTimeout: 3 * time.Second})
			var bad []Finding
			for _, f := range rep.Findings {
				if f.Severity != OK {
					bad = append(bad, f)
				}
				if f.Severity != OK && f.Fix == "" {
					t.Errorf("%s %s finding without a fix: %s", f.Severity, f.Check, f.Message)
				}
			}
		next:
			for _, w := range tc.want {
				for i, f := range bad {
					text := f.Message + "\n" + strings.Join(f.Details, "\n")
					if f.Check == w.check && f.Severity == w.sev && strings.Contains(text, w.text) && strings.Contains(f.Fix, w.fix) {
						bad = append(bad[:i], bad[i+1:]...)
						continue next
					}
				}
				t.Errorf("no %s %s finding with %q (fix %q)", w.sev, w.check, w.text, w.fix)
			}
			for _, f := range bad {
				t.Errorf("unexpected %s %s: %s", f.Severity, f.Check, f.Message)
			}
			if t.Failed() {
				t.Logf("report:\n%s", dump(rep))
			}
			errs := 0
			for _, w := range tc.want {
				if w.sev == Error {
					errs++
				}
			}
			if rep.Healthy != (errs == 0) || rep.Errors != errs {
				t.Errorf("healthy %v with %d errors; want %d errors", rep.Healthy, rep.Errors, errs)
			}
		})
	}
}

// TestFixQuotesPaths: a fix names a memory whose path holds a space or a quote as one word of
// the command (a "rm -rf" or "mv" the user copies must not reach anything else).
func TestFixQuotesPaths(t *testing.T) {
	if exec.Command("git", "version").Run() != nil {
		t.Skip("needs the git CLI")
	}
	s := newSetupAt(t, filepath.Join(t.TempDir(), "Ann's notes", "mem"))
	write(t, filepath.Join(s.home, "learnings", "notes.txt"), "mine\n")
	os.MkdirAll(filepath.Join(team.Root(s.r), ".removed-old-1700000000"), 0o755)
	rep := Run(context.Background(), Options{Home: s.home, RemoteTimeout: 3 * time.Second})
	quoted := shellquote.Quote(s.home)
	for check, want := range map[string]string{
		"worktree": "git -C " + quoted + " add -A && git -C " + quoted + " commit",
		"team":     "rm -rf " + shellquote.Quote(filepath.Join(team.Root(s.r), ".removed-old-1700000000")),
	} {
		found := false
		for _, f := range rep.Findings {
			if f.Check == check && f.Severity != OK {
				found = true
				if !strings.HasPrefix(f.Fix, want) {
					t.Errorf("%s fix %q, want it to begin %q", check, f.Fix, want)
				}
			}
		}
		if !found {
			t.Errorf("no %s finding:\n%s", check, dump(rep))
		}
	}
	if !strings.HasPrefix(quoted, "'") {
		t.Fatalf("the test's home %s needs no quoting", s.home)
	}
}

// corruptBlob overwrites the loose object of a learning's blob with bytes that are not zlib.
func corruptBlob(t *testing.T, s *setup) {
	f := s.aLearning(t)
	hex := f.ID.String()
	obj := filepath.Join(s.r.GitDir(), "objects", hex[:2], hex[2:])
	os.Chmod(obj, 0o644)
	write(t, obj, "not an object")
}

// modifyLearning changes a learning in the work tree without committing it.
func modifyLearning(t *testing.T, s *setup) {
	f := s.aLearning(t)
	path := filepath.Join(s.home, filepath.FromSlash(f.Path))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, string(data)+"\nAn edit by hand.\n")
}

func dump(rep *Report) string {
	var b bytes.Buffer
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "  %-5s %-9s %s", f.Severity, f.Check, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "  → %s", f.Fix)
		}
		b.WriteString("\n")
		for _, d := range f.Details {
			fmt.Fprintf(&b, "        %s\n", d)
		}
	}
	return b.String()
}

func TestReflectProgram(t *testing.T) {
	for _, tc := range []struct {
		command, harness, prog string
		ok                     bool
	}{
		{"/usr/local/bin/reflect hook claude", "claude", "/usr/local/bin/reflect", true},
		{"'/Users/a b/bin/reflect' hook codex", "codex", "/Users/a b/bin/reflect", true},
		{`'/tmp/it'\''s/reflect' hook claude`, "claude", "/tmp/it's/reflect", true},
		{"reflect hook claude", "claude", "reflect", true},
		{"/usr/local/bin/reflect hook codex", "claude", "", false},
		{"~/.claude/hooks/validate.py hook claude", "claude", "~/.claude/hooks/validate.py", false},
	} {
		prog, ok := install.HookProgram(tc.command, tc.harness)
		if ok != tc.ok || ok && prog != tc.prog {
			t.Errorf("install.HookProgram(%q, %s) = %q, %v; want %q, %v", tc.command, tc.harness, prog, ok, tc.prog, tc.ok)
		}
	}
}

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// writerEnv names the repository in which the test binary, started again, writes a learning
// (TestMain): a reflect process for killWriteMidway to kill.
const writerEnv = "DOCTOR_TEST_WRITER"

func TestMain(m *testing.M) {
	if home := os.Getenv(writerEnv); home != "" {
		r, err := gitstore.Open(home)
		if err == nil {
			_, err = r.Commit(context.Background(), "killed", map[string][]byte{"learnings/_global/half-written.md": []byte("half\n")})
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1) // only a kill should end it
	}
	os.Exit(m.Run())
}

// killWriteMidway kills a writing process after it has put its file in the work tree and
// before it moves the branch: as git would, the test holds the branch's lock file, on which
// the writer waits; then it lets go of it.
func killWriteMidway(t *testing.T, s *setup) {
	t.Helper()
	refLock := filepath.Join(s.home, ".git", "refs", "heads", "main.lock")
	write(t, refLock, "")
	defer os.Remove(refLock)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+s.home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(s.home, "learnings", "_global", "half-written.md")
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(half); err == nil {
			break
		}
		if time.Now().After(end) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the writer never reached the work tree: %s", stderr.String())
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
}
