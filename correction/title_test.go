package correction

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"no, use pnpm instead of npm", "Use pnpm instead of npm"},
		{"remember: we deploy from the release branch only.", "We deploy from the release branch only"},
		{"Nope. Don't use sudo!", "Don't use sudo"},
		{"please don't run the migrations against prod", "Don't run the migrations against prod"},
		{"the staging db is read-only", "The staging db is read-only"},
		{"no need to mock the database", "No need to mock the database"},
		{"## Remember that the API is v2.\nmore text", "The API is v2"},
		{"`go test` must pass. Also x.", "`go test` must pass"},
		{"ünïcode first letter", "Ünïcode first letter"},
		{"wrong, the port is 8443", "The port is 8443"},
		{"from now on, use pnpm", "Use pnpm"},
		{"\n\n  actually, put it in the handler.\nand more", "Put it in the handler"},
		{"Use e.g. the v2 client. Then test.", "Use e.g. the v2 client"},
		{"", ""},
		{"   \n\n", ""},
		{"...", ""},
	} {
		if got := Title(tc.in); got != tc.want {
			t.Errorf("Title(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := Title(strings.Repeat("very long words here ", 10))
	if utf8.RuneCountInString(long) > titleMax || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "Very") {
		t.Errorf("long title: %d runes %q", utf8.RuneCountInString(long), long)
	}
}

func TestVerdictTitle(t *testing.T) {
	for _, tc := range []struct {
		v      Verdict
		prompt string
		want   string
	}{
		{Verdict{Instead: "pnpm", Avoid: "npm"}, "no, use pnpm instead of npm", "Use pnpm instead of npm"},
		{Verdict{Instead: "`uv`", Avoid: "pip"}, "nope", "Use `uv` instead of pip"},
		{Verdict{Instead: "the v2 client"}, "no, the v2 client", "Use the v2 client"},
		{Verdict{Avoid: "sudo"}, "Nope. Don't use sudo!", "Don't use sudo"},
		{Verdict{}, "wrong, the port is 8443", "The port is 8443"},
		{Verdict{}, "```\ncode only\n```", ""},
	} {
		if got := tc.v.Title(tc.prompt); got != tc.want {
			t.Errorf("%+v.Title(%q) = %q, want %q", tc.v, tc.prompt, got, tc.want)
		}
	}
}
