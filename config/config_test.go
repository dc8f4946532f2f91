package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseShared(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     func(Config) bool
		wantErr  string // substring; empty means no error
		warnings []string
	}{
		{name: "empty file gives defaults", in: "", want: func(c Config) bool { return c == Default() }},
		{name: "default file is the defaults", in: DefaultFile, want: func(c Config) bool { return c == Default() }},
		{name: "duration", in: "[git]\nlock_timeout = \"250ms\"\n",
			want: func(c Config) bool { return c.Git.LockTimeout.Std() == 250*time.Millisecond }},
		{name: "unknown keys are tolerated", in: "[future]\nknob = 3\n[git]\nnew_thing = true\n",
			want: func(c Config) bool { return c == Default() }},
		{name: "bad duration names the key", in: "[git]\nlock_timeout = \"soon\"\n", wantErr: "reflect.toml:2: key git.lock_timeout"},
		{name: "a bare number is no duration", in: "[hooks]\nrecall_timeout = 5000\n", wantErr: "reflect.toml:2: key hooks.recall_timeout: not a duration like \"500ms\""},
		{name: "nor a float", in: "[git]\nlock_timeout = 10.5\n", wantErr: "reflect.toml:2: key git.lock_timeout: not a duration"},
		{name: "wrong type names the key", in: "[recall]\nmax_chars = \"many\"\n", wantErr: "key recall.max_chars"},
		{name: "zero timeout", in: "[git]\nlock_timeout = \"0s\"\n", wantErr: "reflect.toml:2: key git.lock_timeout: must be greater than zero"},
		{name: "hook deadline", in: "[hooks]\ncapture_timeout = \"250ms\"\n",
			want: func(c Config) bool { return c.Hooks.CaptureTimeout.Std() == 250*time.Millisecond }},
		{name: "a hook deadline has a cap", in: "[hooks]\n\nrecall_timeout = \"10m\"\n", wantErr: "reflect.toml:3: key hooks.recall_timeout: must be at most 5s"},
		{name: "the lock wait has a cap", in: "[git]\nlock_timeout = \"1h\"\n", wantErr: "key git.lock_timeout: must be at most 10m0s"},
		{name: "the correction window has a cap", in: "[hooks]\ncorrection_window = \"100h\"\n", wantErr: "key hooks.correction_window"},
		{name: "tiny digest budget", in: "[queue]\ndigest_max_bytes = 10\n", wantErr: "key queue.digest_max_bytes: must be between 1024"},
		{name: "huge digest budget", in: "[queue]\ndigest_max_bytes = 1000000000\n", wantErr: "key queue.digest_max_bytes"},
		{name: "huge recall budget", in: "[recall]\nmax_chars = 10000000\n", wantErr: "key recall.max_chars"},
		{name: "zero hook deadline", in: "[hooks]\nrecall_timeout = \"0s\"\n", wantErr: "key hooks.recall_timeout"},
		{name: "digest budget of the wrong type", in: "[queue]\ndigest_max_bytes = \"big\"\n", wantErr: "reflect.toml:2: key queue.digest_max_bytes"},
		{name: "syntax error has a line", in: "[git\n", wantErr: "reflect.toml:1"},
		{name: "a local key in the shared file is ignored with a warning",
			in: "[drain]\nextractor = \"command:sh\"\n[sync]\nauto = true\n[author]\nname = \"Mallory\"\n[recall]\nfrom_others = \"all\"\nmax_learnings = 5\n",
			want: func(c Config) bool {
				return c.Drain.Extractor == "auto" && !c.Sync.Auto && c.Author.Name == "" && c.Recall.FromOthers == "auto" && c.Recall.MaxLearnings == 5
			},
			warnings: []string{"reflect.toml:6: key author.name: is local", "reflect.toml:2: key drain.extractor: is local", "reflect.toml:8: key recall.from_others", "reflect.toml:4: key sync.auto"}},
		{name: "an invalid local key in the shared file is only ignored", in: "[drain]\nextractor = 5\ntimeout = \"9999h\"\n",
			want:     func(c Config) bool { return c == Default() },
			warnings: []string{"key drain.extractor", "key drain.timeout"}},
		{name: "dotted keys are found too", in: "drain.extractor = \"claude\"\n",
			want: func(c Config) bool { return c == Default() }, warnings: []string{"reflect.toml:1: key drain.extractor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := ParseShared("reflect.toml", []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("error %T is not a *config.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !tt.want(got) {
				t.Fatalf("unexpected config: %+v", got)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %v, want %d", warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i].String(), w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
		})
	}
}

func TestParseLocal(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    func(Config) bool
		wantErr string
		warn    string
	}{
		{name: "default local file is the defaults", in: DefaultLocalFile, want: func(c Config) bool { return c == Default() }},
		{name: "author", in: "[author]\nname = \"Ada\"\nemail = \"ada@example.org\"\n",
			want: func(c Config) bool { return c.Author.Name == "Ada" && c.Author.Email == "ada@example.org" }},
		{name: "extractor", in: "[drain]\nextractor = \"command:/usr/local/bin/x\"\n",
			want: func(c Config) bool { return c.Drain.Extractor == "command:/usr/local/bin/x" }},
		{name: "bad email", in: "[author]\nemail = \"nobody\"\n", wantErr: "config.toml:2: key author.email"},
		{name: "a name that would split a commit's author line", in: "[author]\nname = \"x\\ny\"\n", wantErr: "config.toml:2: key author.name"},
		{name: "a name that would end it", in: "[author]\nname = \"x <y@z> \"\n", wantErr: "key author.name"},
		{name: "an email with a line break", in: "[author]\nemail = \"a@b\\nc\"\n", wantErr: "key author.email"},
		{name: "a local duration as a number", in: "[drain]\ntimeout = 60\n", wantErr: "config.toml:2: key drain.timeout: not a duration"},
		{name: "bad extractor", in: "[drain]\nextractor = \"gpt\"\n", wantErr: "key drain.extractor"},
		{name: "an openai endpoint", in: "[drain]\nextractor = \"openai:http://127.0.0.1:11434/v1\"\nkey_env = \"OLLAMA_KEY\"\n",
			want: func(c Config) bool {
				return c.Drain.Extractor == "openai:http://127.0.0.1:11434/v1" && c.Drain.KeyEnv == "OLLAMA_KEY"
			}},
		{name: "an openai endpoint that is not a URL", in: "[drain]\nextractor = \"openai:ollama\"\n", wantErr: "openai: takes the http(s) URL"},
		{name: "a key in the URL", in: "[drain]\nextractor = \"openai:https://me:sk-123@api.example.com/v1\"\n", wantErr: "must not hold a user or password"},
		{name: "a key where its variable's name goes", in: "[drain]\nkey_env = \"sk-abc123\"\n", wantErr: "key drain.key_env"},
		{name: "drain timeout has a cap", in: "[drain]\ntimeout = \"5h\"\n", wantErr: "key drain.timeout: must be at most 1h0m0s"},
		{name: "remote name", in: "[sync]\nremote = \"../x\"\n", wantErr: "key sync.remote"},
		{name: "from_others", in: "[recall]\nfrom_others = \"none\"\n", want: func(c Config) bool { return c.Recall.FromOthers == "none" }},
		{name: "bad from_others", in: "[recall]\nfrom_others = \"some\"\n", wantErr: "key recall.from_others"},
		{name: "a shared key here is ignored", in: "[recall]\nmax_chars = 300\n", want: func(c Config) bool { return c == Default() },
			warn: "config.toml:2: key recall.max_chars: is shared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := ParseLocal("config.toml", []byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.want(got) {
				t.Fatalf("got %+v, %v", got, err)
			}
			if tt.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].String(), tt.warn)) {
				t.Fatalf("warnings = %v, want %q", warnings, tt.warn)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	shared, local := filepath.Join(dir, "reflect.toml"), filepath.Join(dir, "config.toml")
	t.Run("missing files give defaults", func(t *testing.T) {
		got, w, err := Load(shared, local)
		if err != nil || got != Default() || len(w) != 0 {
			t.Fatalf("Load(missing) = %+v, %v, %v", got, w, err)
		}
	})
	t.Run("both files", func(t *testing.T) {
		os.WriteFile(shared, []byte("[recall]\nmax_learnings = 5\n[drain]\nextractor = \"command:sh\"\n"), 0o644)
		os.WriteFile(local, []byte("[drain]\nextractor = \"claude\"\n"), 0o644)
		got, w, err := Load(shared, local)
		if err != nil || got.Recall.MaxLearnings != 5 || got.Drain.Extractor != "claude" || len(w) != 1 {
			t.Fatalf("got %+v, %v, %v", got, w, err)
		}
	})
	t.Run("a bad shared file leaves the shared defaults and the local settings", func(t *testing.T) {
		os.WriteFile(shared, []byte("[hooks]\nrecall_timeout = \"10m\"\n[recall]\nmax_learnings = 5\n"), 0o644)
		got, _, err := Load(shared, local)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "hooks.recall_timeout" {
			t.Fatalf("error = %v", err)
		}
		if got.Hooks.RecallTimeout.Std() != time.Second || got.Recall.MaxLearnings != 3 || got.Drain.Extractor != "claude" {
			t.Fatalf("fallback = %+v", got)
		}
	})
}

func TestKeys(t *testing.T) {
	scopes := map[string]Scope{}
	for _, k := range Keys() {
		scopes[k.Name] = k.Scope
	}
	for name, want := range map[string]Scope{
		"drain.extractor": Local, "drain.model": Local, "drain.max_calls_per_day": Local, "sync.auto": Local,
		"sync.remote": Local, "author.email": Local, "recall.from_others": Local,
		"recall.max_chars": Shared, "hooks.recall_timeout": Shared, "queue.digest_max_bytes": Shared, "git.lock_timeout": Shared,
		"handoff.enabled": Shared, "handoff.max_age": Shared, "handoff.max_chars": Shared, "history.watch": Local, "recall.resident": Local,
	} {
		if got, ok := scopes[name]; !ok || got != want {
			t.Errorf("%s: scope %v (known %v), want %v", name, got, ok, want)
		}
	}
	if len(scopes) != 28 {
		t.Errorf("%d keys, want 28", len(scopes))
	}
	if _, err := LookupKey("drain.nope"); err == nil || !strings.Contains(err.Error(), "drain.extractor") {
		t.Errorf("LookupKey(unknown) = %v", err)
	}
}

func TestSet(t *testing.T) {
	key := func(name string) Key {
		k, err := LookupKey(name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	tests := []struct {
		name, in, key, value, want string
	}{
		{"replace in place, comments kept", "# top\n[drain]\n# what runs\nextractor = \"heuristic\"\nmodel = \"\"\n", "drain.extractor", "claude",
			"# top\n[drain]\n# what runs\nextractor = \"claude\"\nmodel = \"\"\n"},
		{"add to an existing section", "[drain]\nmodel = \"x\"\n\n[sync]\nauto = false\n", "drain.extractor", "codex",
			"[drain]\nmodel = \"x\"\nextractor = \"codex\"\n\n[sync]\nauto = false\n"},
		{"add a section", "[drain]\nmodel = \"x\"", "sync.auto", "true", "[drain]\nmodel = \"x\"\n\n[sync]\nauto = true\n"},
		{"empty file", "", "recall.max_chars", "900", "\n[recall]\nmax_chars = 900\n"},
		{"indented and a duration", "[hooks]\n  recall_timeout = \"1s\" # fast\n", "hooks.recall_timeout", "2s", "[hooks]\n  recall_timeout = \"2s\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := key(tt.key)
			lit, err := k.Literal(tt.value)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Set([]byte(tt.in), k, lit)
			if err != nil || string(got) != tt.want {
				t.Fatalf("Set = %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
	for _, bad := range []struct{ key, value string }{{"sync.auto", "yes please"}, {"recall.max_chars", "many"}, {"hooks.recall_timeout", "soon"}, {"recall.min_coverage", "NaN"}, {"recall.min_coverage", "-Inf"}} {
		if _, err := key(bad.key).Literal(bad.value); err == nil || !strings.Contains(err.Error(), bad.key) {
			t.Errorf("Literal(%s, %q) = %v, want an error naming the key", bad.key, bad.value, err)
		}
	}
}

func TestSplitMovesLocalKeys(t *testing.T) {
	old := "# my settings\n[author]\nname = \"Ada\"\nemail = \"ada@example.org\"\n\n[recall]\nmax_learnings = 4\n\n[drain]\n# the LLM\nextractor = \"claude\"\nattempts = 99\n\n[sync]\nauto = true\n"
	shared, local, moved, skipped, err := Split([]byte(old), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(moved, ",") != "author.email,author.name,drain.extractor,sync.auto" || strings.Join(skipped, ",") != "drain.attempts" {
		t.Fatalf("moved %v, skipped %v", moved, skipped)
	}
	sc, w, err := ParseShared(FileName, shared)
	if err != nil || len(w) != 0 || sc.Recall.MaxLearnings != 4 || !strings.Contains(string(shared), "# my settings") {
		t.Fatalf("shared after the split: %q (%v, %v)", shared, w, err)
	}
	lc, w, err := ParseLocal(LocalFileName, local)
	if err != nil || len(w) != 0 || lc.Author.Name != "Ada" || lc.Drain.Extractor != "claude" || !lc.Sync.Auto || lc.Drain.Attempts != 3 {
		t.Fatalf("local after the split: %q → %+v (%v, %v)", local, lc, w, err)
	}
	if s, _, m, _, err := Split([]byte(DefaultFile), true); err != nil || m != nil || string(s) != DefaultFile {
		t.Fatalf("Split(new file) = %v, %v", m, err)
	}
}

// A memory that syncs carries none of them: its shared file is any pusher's, and the keys
// choose this machine's extractor, identity and gates.
func TestSplitCarriesNothingOfASyncedFile(t *testing.T) {
	old := "[recall]\nmax_learnings = 4\n\n[drain]\nextractor = \"command:/tmp/x.sh\"\nkey_env = \"GITHUB_TOKEN\"\n\n[sync]\nauto = true\n"
	shared, local, moved, skipped, err := Split([]byte(old), false)
	if err != nil || len(moved) != 0 || strings.Join(skipped, ",") != "drain.extractor,drain.key_env,sync.auto" {
		t.Fatalf("moved %v, skipped %v, %v", moved, skipped, err)
	}
	if string(local) != DefaultLocalFile || strings.Contains(string(shared), "extractor") || !strings.Contains(string(shared), "max_learnings = 4") {
		t.Fatalf("after the split: shared %q, local %q", shared, local)
	}
}

// An older init wrote every local key at its default into reflect.toml: those values are not
// choices, and do not pin this machine to yesterday's defaults.
func TestSplitLeavesOldDefaults(t *testing.T) {
	old := "[drain]\nextractor = \"heuristic\"\nmax_calls_per_day = 40\nmax_tokens_per_day = 1000000\nmodel = \"\"\n\n[sync]\nauto = false\nremote = \"origin\"\n"
	_, local, moved, _, err := Split([]byte(old), true)
	if err != nil || len(moved) != 0 {
		t.Fatalf("moved %v, %v", moved, err)
	}
	lc, _, err := ParseLocal(LocalFileName, local)
	if err != nil || lc.Drain.Extractor != "auto" || lc.Drain.MaxCallsPerDay != 20 {
		t.Fatalf("local after the split: %+v, %v", lc.Drain, err)
	}
}

// Load skips decoding a file that is its template, unedited: that is the same only while
// decoding the templates gives the defaults with no warning, which this holds.
// The local file init wrote before its comment on recall.from_others changed is a template too.
func TestEarlierLocalTemplate(t *testing.T) {
	if earlierLocalFile == DefaultLocalFile || !strings.Contains(earlierLocalFile, "(a hand edit, or a merge by\n# someone else)") || !isTemplate(Local, []byte(earlierLocalFile)) {
		t.Fatalf("the earlier template is not recognised:\n%s", earlierLocalFile)
	}
}

func TestTemplatesAreDefaults(t *testing.T) {
	for _, tt := range []struct {
		scope Scope
		data  string
	}{{Shared, DefaultFile}, {Local, DefaultLocalFile}} {
		cfg := Default()
		w, err := decode(&cfg, tt.scope, "f", []byte(tt.data))
		if err != nil || len(w) != 0 || cfg != Default() {
			t.Errorf("scope %v: decoding the template gives %+v, warnings %v, %v; want the defaults", tt.scope, cfg, w, err)
		}
		if !isTemplate(tt.scope, []byte(tt.data)) || isTemplate(tt.scope, []byte(tt.data+"\n")) {
			t.Errorf("scope %v: isTemplate does not tell the template from an edit", tt.scope)
		}
	}
	dir := t.TempDir()
	shared, local := filepath.Join(dir, FileName), filepath.Join(dir, LocalFileName)
	os.WriteFile(shared, []byte(DefaultFile), 0o644)
	os.WriteFile(local, []byte(strings.Replace(DefaultLocalFile, `watch = "5m"`, `watch = "1m"`, 1)), 0o644)
	cfg, _, err := Load(shared, local)
	if err != nil || cfg.History.Watch.Std() != time.Minute {
		t.Fatalf("an edited local file beside the shared template: history.watch %v, %v; want 1m", cfg.History.Watch.Std(), err)
	}
}

// TestEveryKeyIsRead: every key, set in its own file to a value other than its default, is
// read back as that value (a key missing from its file's view would be silently ignored).
func TestEveryKeyIsRead(t *testing.T) {
	other := map[string]string{
		"author.name": "A", "author.email": "a@example.org", "drain.extractor": "heuristic", "drain.model": "m",
		"drain.key_env": "K_ENV", "drain.timeout": "1m", "drain.attempts": "2", "drain.retry_wait": "1s",
		"drain.max_calls_per_day": "3", "drain.max_tokens_per_day": "4", "sync.auto": "true", "sync.remote": "up",
		"recall.from_others": "none", "recall.resident": "0s", "history.watch": "0s",
		"git.lock_timeout": "3s", "hooks.recall_timeout": "2s", "hooks.capture_timeout": "1s", "hooks.correction_window": "1m",
		"queue.digest_max_bytes": "2048", "queue.stop_growth_bytes": "5", "recall.max_learnings": "4", "recall.max_chars": "900",
		"recall.min_coverage": "0.5", "recall.half_life": "2h", "handoff.enabled": "false", "handoff.max_age": "2h", "handoff.max_chars": "300",
	}
	for _, k := range Keys() {
		value, ok := other[k.Name]
		if !ok {
			t.Errorf("%s: no value to try; add one", k.Name)
			continue
		}
		lit, err := k.Literal(value)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		data, err := Set(nil, k, lit)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		parse := ParseShared
		if k.Scope == Local {
			parse = ParseLocal
		}
		cfg, _, err := parse("f.toml", data)
		if err != nil {
			t.Fatalf("%s = %s: %v", k.Name, lit, err)
		}
		if got, def := cfg.Value(k), Default().Value(k); got == def {
			t.Errorf("%s = %s in its file is read as %s, the default", k.Name, lit, got)
		}
	}
}
