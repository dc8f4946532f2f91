package learnings

import (
	"context"
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

	base, err := r.ReadFile(l.RelPath())
	if err != nil {
		t.Fatal(err)
	}
	old, err := Parse(l.RelPath(), base)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(base), "title: ", "title: "+age+" ", 1) + "Pasted: VAULT_TOKEN=" + vault + "\n"
	if _, _, err := SaveEdit(ctx, r, old, base, []byte(edited)); err != nil {
		t.Fatal(err)
	}
	check("edit")
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
