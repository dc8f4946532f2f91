package correction

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var rememberPositives = []struct{ prompt, note string }{
	{"remember: we deploy from the release branch only", "we deploy from the release branch only"},
	{"Remember that the staging DB is read-only.", "the staging DB is read-only."},
	{"please remember the API keys live in 1Password, not in .env", "the API keys live in 1Password, not in .env"},
	{"note for the future: integration tests need docker running", "integration tests need docker running"},
	{"Note to self: the cache TTL is 5 minutes", "the cache TTL is 5 minutes"},
	{"from now on, use pnpm in this repo", "use pnpm in this repo"},
	{"From now on use `slog` instead of `log`. Also fix the test.", "use `slog` instead of `log`."},
	{"going forward, put new handlers in internal/api", "put new handlers in internal/api"},
	{"for future reference, the CI runner is arm64", "the CI runner is arm64"},
	{"fix the flaky test, and remember that CI runs with -race", "CI runs with -race"},
	{"Looks good. Remember, the public API must stay backwards compatible", "the public API must stay backwards compatible"},
	{"- remember: staging uses a self-signed cert", "staging uses a self-signed cert"},
	{"next time, ask before deleting files", "ask before deleting files"},
	// "remember to" with a standing marker.
	{"remember to run go generate before every commit", "run go generate before every commit"},
	// A marker that ends its line takes the next line, or the list under it.
	{"remember:\n- use pnpm\n- run tests with -race\n\nnow fix the bug", "use pnpm; run tests with -race"},
	{"Note for the future:\n\nthe e2e suite needs `make up` first. It takes a minute.", "the e2e suite needs `make up` first."},
	// Standing instructions keep their "always"/"never".
	{"Always run `go vet` before committing", "Always run `go vet` before committing"},
	{"never edit files under gen/ by hand", "never edit files under gen/ by hand"},
	{"please always squash before merging", "always squash before merging"},
	{"Fix the import. Never use dot imports in this repo.", "Never use dot imports in this repo."},
	// A rule about what the sentence before it names carries that sentence.
	{"the key is STRIPE_KEY in 1Password. never commit it to the repo", "the key is STRIPE_KEY in 1Password; never commit it to the repo"},
}

var rememberNegatives = []string{
	"never commit it to the repo", // about something this prompt does not name
	"Never do this again",
	"Remember this for later",
	"ok. never do that to a prod database",
	"do you remember the API?",
	"I can't remember the flag name",
	"I don't remember how this works",
	"the cache should remember the last value",
	"make the widget remember its position",
	"remember to free the buffer in the loop", // a task reminder, not a standing note
	"add a 'remember me' checkbox to the login form",
	"Remember when we fixed the flaky test? Do the same here",
	"remember the retry helper we wrote?",
	"the counter should count from now on",
	"note: this file is generated",
	"it always fails on CI",
	"Always-on logging is too noisy",
	"Always returns nil when the input is empty, fix that", // describes code
	"the retry should always back off",
	"never mind, I'll do it",
	"`remember: true` in the config enables the cache",
	"```\nremember: this is in a code block\n```\nfix it",
	"remember",
	"remember:",
	"remembering the old API was painful",
	"In future versions we might drop v1",
	"set the remember_me cookie to 30 days",
	"",
}

func TestRemember(t *testing.T) {
	if len(rememberPositives) < 12 || len(rememberNegatives) < 12 {
		t.Fatalf("%d positives, %d negatives: keep at least 12 of each", len(rememberPositives), len(rememberNegatives))
	}
	for _, tc := range rememberPositives {
		if n, ok := Remember(tc.prompt); !ok || n != tc.note {
			t.Errorf("Remember(%q) = %q, %v; want %q", tc.prompt, n, ok, tc.note)
		}
	}
	for _, p := range rememberNegatives {
		if n, ok := Remember(p); ok {
			t.Errorf("Remember(%q) = %q, want none", p, n)
		}
	}
}

func TestRememberLength(t *testing.T) {
	n, ok := Remember("remember: " + strings.Repeat("the build cache must be warmed ", 40))
	if !ok || utf8.RuneCountInString(n) > rememberNoteMax || !strings.HasSuffix(n, "…") {
		t.Errorf("long note: %d runes, %v, %q", utf8.RuneCountInString(n), ok, n)
	}
}

func BenchmarkRemember(b *testing.B) {
	for _, p := range append(benchPrompts(), struct{ name, prompt string }{"note-at-end",
		(strings.Repeat("2024-05-01T10:00:00Z ERROR handler: something went wrong\n", 40))[:1990] + "\nremember: CI needs docker"}) {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(p.prompt)))
			b.ReportAllocs()
			for b.Loop() {
				Remember(p.prompt)
			}
		})
	}
}
