package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    func(Config) bool
		wantErr string // substring; empty means no error
	}{
		{name: "empty file gives defaults", in: "", want: func(c Config) bool { return c == Default() }},
		{name: "default file is the defaults", in: DefaultFile, want: func(c Config) bool { return c == Default() }},
		{name: "author", in: "[author]\nname = \"Ada\"\nemail = \"ada@example.org\"\n",
			want: func(c Config) bool { return c.Author.Name == "Ada" && c.Author.Email == "ada@example.org" }},
		{name: "duration", in: "[git]\nlock_timeout = \"250ms\"\n",
			want: func(c Config) bool { return c.Git.LockTimeout.Std() == 250*time.Millisecond }},
		{name: "unknown keys are tolerated", in: "[future]\nknob = 3\n[git]\nnew_thing = true\n",
			want: func(c Config) bool { return c == Default() }},
		{name: "bad duration names the key", in: "[git]\nlock_timeout = \"soon\"\n", wantErr: "reflect.toml:2: key git.lock_timeout"},
		{name: "wrong type names the key", in: "[author]\nname = 5\n", wantErr: "key author.name"},
		{name: "zero timeout", in: "[git]\nlock_timeout = \"0s\"\n", wantErr: "key git.lock_timeout: must be greater than zero"},
		{name: "hook deadline", in: "[hooks]\ncapture_timeout = \"250ms\"\n",
			want: func(c Config) bool { return c.Hooks.CaptureTimeout.Std() == 250*time.Millisecond }},
		{name: "tiny digest budget", in: "[queue]\ndigest_max_bytes = 10\n", wantErr: "key queue.digest_max_bytes: must be at least 1024"},
		{name: "zero hook deadline", in: "[hooks]\nrecall_timeout = \"0s\"\n", wantErr: "key hooks.recall_timeout"},
		{name: "digest budget of the wrong type", in: "[queue]\ndigest_max_bytes = \"big\"\n", wantErr: "reflect.toml:2: key queue.digest_max_bytes"},
		{name: "bad email", in: "[author]\nemail = \"nobody\"\n", wantErr: "key author.email"},
		{name: "syntax error has a line", in: "[git\n", wantErr: "reflect.toml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("reflect.toml", []byte(tt.in))
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
		})
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	got, err := Load(t.TempDir() + "/reflect.toml")
	if err != nil || got != Default() {
		t.Fatalf("Load(missing) = %+v, %v", got, err)
	}
}
