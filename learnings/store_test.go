package learnings

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

// TestCommitsAreRedacted writes secrets into every free-text field of a learning, through
// Create and through SaveEdit, and reads back the file and the commit subject.
func TestCommitsAreRedacted(t *testing.T) {
	const (
		vault  = "hvs.CAESID1hP0LuK0o3gW0-dPXrtvS8ZlPz8f4CD5wRvwe6g7NgnMDOCoy"
		twilio = "SK2b92bcd013e7b2fad6e57dd6d987df49"
		age    = "AGE-SECRET-KEY-14F0PKZNYZ2DA0FZGKD0QK86NZR5LRR556Z80FVNAGACJQYE2KKVHFPQDNR"
	)
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := New("Log in with "+vault, Global, time.Now())
	l.Body = "export TWILIO_API_KEY=" + twilio + "\n"
	l.Tags, l.Entities, l.Triggers = []string{"key " + age}, []string{"vault " + vault}, []string{"error with " + twilio}
	if _, err := Create(ctx, r, l, "learn: "+l.Title+" with "+twilio); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		file, err := r.ReadFile(l.RelPath())
		if err != nil {
			t.Fatal(err)
		}
		subject, err := exec.Command("git", "-C", r.Root(), "log", "-1", "--format=%s").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{vault, twilio, age} {
			if strings.Contains(string(file), secret) || strings.Contains(string(subject), secret) {
				t.Errorf("%s: %.20s… was committed:\n%s\n%s", step, secret, subject, file)
			}
		}
		if !strings.Contains(string(file), "[REDACTED:vault-token]") || !strings.Contains(string(subject), "[REDACTED:") {
			t.Errorf("%s: no marker in the file or the subject:\n%s\n%s", step, subject, file)
		}
	}
	check("create")

	base, old := committed(t, r, l)
	edited := strings.Replace(string(base), "title: ", "title: "+age+" ", 1) + "Pasted: VAULT_TOKEN=" + vault + "\n"
	if _, _, err := SaveEdit(ctx, r, old, base, []byte(edited)); err != nil {
		t.Fatal(err)
	}
	check("edit")
}

// TestEditRedactsTheWholeFile: an edit can put a secret where Redact's fields do not reach —
// a comment, a key reflect does not know, the source's fields. None reaches a git object
// (the file or the commit); the edit is kept, with markers, and still parses.
func TestEditRedactsTheWholeFile(t *testing.T) {
	const (
		ghp    = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
		vault  = "hvs.CAESID1hP0LuK0o3gW0-dPXrtvS8ZlPz8f4CD5wRvwe6g7NgnMDOCoy"
		twilio = "SK2b92bcd013e7b2fad6e57dd6d987df49"
		aws    = "AKIAZ7QW3ERTY5UIOPLK"
	)
	secrets := []string{ghp, vault, twilio, aws}
	cases := []struct {
		name string
		edit func(file string) string
	}{
		{"a comment", func(f string) string {
			return strings.Replace(f, "\n---\n", "\n# docker login --password "+vault+"\n---\n", 1)
		}},
		{"a comment on a key's line", func(f string) string {
			return strings.Replace(f, "\nkind: rule", "\nkind: rule # token "+ghp, 1)
		}},
		{"an unknown key", func(f string) string {
			return strings.Replace(f, "\n---\n", "\ndeploy_token: "+ghp+"\n---\n", 1)
		}},
		{"source fields", func(f string) string {
			return strings.NewReplacer(`session: ""`, "session: "+twilio, `machine: ""`, "machine: "+aws,
				`commit: ""`, "commit: "+ghp, "files: []", "files: ["+vault+"]").Replace(f)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			l := New("Rotate the deploy keys monthly", Global, time.Now())
			l.Body = "body\n"
			if _, err := Create(ctx, r, l, "learn: "+l.Title); err != nil {
				t.Fatal(err)
			}
			base, old := committed(t, r, l)
			edited := c.edit(string(base))
			if edited == string(base) {
				t.Fatalf("the case changed nothing in:\n%s", base)
			}
			if _, _, err := SaveEdit(ctx, r, old, base, []byte(edited)); err != nil {
				t.Fatal(err)
			}
			objects, err := exec.Command("git", "-C", r.Root(), "log", "--all", "-p", "--format=%B").Output()
			if err != nil {
				t.Fatal(err)
			}
			for _, secret := range secrets {
				if strings.Contains(string(objects), secret) {
					t.Errorf("%.12s… was committed:\n%s", secret, objects)
				}
			}
			file, _ := r.ReadFile(l.RelPath())
			if !strings.Contains(string(file), "[REDACTED:") {
				t.Errorf("no marker in the file:\n%s", file)
			}
			if _, err := Parse(l.RelPath(), file); err != nil {
				t.Errorf("the redacted file does not parse: %v\n%s", err, file)
			}
		})
	}
}

// TestEditRefusedWhenRedactionBreaksTheFile: a value the redactor takes for a secret only
// beside its key (session: …) turns into a marker YAML reads as a list; the edit is refused,
// naming the line, and nothing is committed.
func TestEditRefusedWhenRedactionBreaksTheFile(t *testing.T) {
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := New("Rotate the deploy keys monthly", Global, time.Now())
	if _, err := Create(ctx, r, l, "learn: "+l.Title); err != nil {
		t.Fatal(err)
	}
	base, old := committed(t, r, l)
	head, _ := exec.Command("git", "-C", r.Root(), "rev-parse", "HEAD").Output()
	edited := strings.Replace(string(base), `session: ""`, "session: rollout-2025-01-01T10-00-00-0a1b2c3d4e5f", 1)
	_, _, err = SaveEdit(ctx, r, old, base, []byte(edited))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Line != 14 || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("SaveEdit: %v, want a refusal naming line 14", err)
	}
	if now, _ := exec.Command("git", "-C", r.Root(), "rev-parse", "HEAD").Output(); string(now) != string(head) {
		t.Error("a refused edit committed")
	}
}

// TestChangeRedactsItsMessage: a reason typed for an archive (reflect archive --reason, the
// viewer, reflect stale --review) is part of the commit message Change writes: a secret in it
// is redacted there, as Create's message is.
func TestChangeRedactsItsMessage(t *testing.T) {
	const twilio = "SK2b92bcd013e7b2fad6e57dd6d987df49"
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := New("Rotate the Twilio key", Global, time.Now())
	if _, err := Create(ctx, r, l, "learn"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Change(ctx, r, []string{l.ID}, func(ls []*Learning) (string, error) {
		ls[0].Archive(time.Now())
		return ArchiveMessage(ls[0], "the old key "+twilio+" was revoked"), nil
	}); err != nil {
		t.Fatal(err)
	}
	msg, err := exec.Command("git", "-C", r.Root(), "log", "-1", "--format=%B").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(msg), twilio) || !strings.Contains(string(msg), "[REDACTED:") {
		t.Errorf("the archive reason reached git as typed:\n%s", msg)
	}
}

// committed reads l's file as HEAD holds it, and parses it: the base of an edit.
func committed(t *testing.T, r *gitstore.Repo, l *Learning) ([]byte, *Learning) {
	t.Helper()
	base, err := r.ReadFile(l.RelPath())
	if err != nil {
		t.Fatal(err)
	}
	old, err := Parse(l.RelPath(), base)
	if err != nil {
		t.Fatal(err)
	}
	return base, old
}
