package sync

import (
	"errors"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://user:ghp_secret@github.com/acme/memory.git", "https://xxxxx@github.com/acme/memory.git"},
		{"https://ghp_secret@github.com/acme/memory.git", "https://xxxxx@github.com/acme/memory.git"},
		{"http://x-access-token:tok@127.0.0.1:8080/m.git", "http://xxxxx@127.0.0.1:8080/m.git"},
		{"ssh://git@github.com/acme/memory.git", "ssh://git@github.com/acme/memory.git"},
		{"ssh://git:pw@github.com/acme/memory.git", "ssh://xxxxx@github.com/acme/memory.git"},
		{"git@github.com:acme/memory.git", "git@github.com:acme/memory.git"},
		{"https://github.com/acme/memory.git", "https://github.com/acme/memory.git"},
		{"/home/ann/team.git", "/home/ann/team.git"},
		{"", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestScrub: a transport's error keeps its words; the credentials of the remote's URL go,
// the password (or a token given as the user) wherever it appears, a user name only as a
// URL's user.
func TestScrub(t *testing.T) {
	for _, c := range []struct{ name, remote, msg, want string }{
		{"user and token",
			"https://u:tok@127.0.0.1:1/x.git",
			"git-upload-pack https://u:tok@127.0.0.1:1/x.git: dial tcp 127.0.0.1:1: connect: connection refused",
			"git-upload-pack https://xxxxx@127.0.0.1:1/x.git: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"net/http's redacted URL",
			"https://u:tok@127.0.0.1:1/x.git",
			`Get "https://u:***@127.0.0.1:1/x.git/info/refs?service=git-upload-pack": dial tcp 127.0.0.1:1: connect: connection refused`,
			`Get "https://xxxxx@127.0.0.1:1/x.git/info/refs?service=git-upload-pack": dial tcp 127.0.0.1:1: connect: connection refused`},
		{"user named git",
			"https://git:tok@127.0.0.1:1/x.git",
			"git-upload-pack https://git:tok@127.0.0.1:1/x.git: git said no",
			"git-upload-pack https://xxxxx@127.0.0.1:1/x.git: git said no"},
		{"password quoted alone",
			"https://u:s3cret-pw@h/x.git",
			"auth for u failed with s3cret-pw at h",
			"auth for u failed with xxxxx at h"},
		{"password percent-encoded",
			"https://u:p%40ss@h/x.git",
			"fetch https://u:p%40ss@h/x.git: password p@ss refused",
			"fetch https://xxxxx@h/x.git: password xxxxx refused"},
		{"user only, a token",
			"https://ghp_0123456789abcdefghij@h/x.git",
			"fetch https://ghp_0123456789abcdefghij@h/x.git: token ghp_0123456789abcdefghij revoked",
			"fetch https://xxxxx@h/x.git: token xxxxx revoked"},
		{"user only, a short name",
			"https://git@h/x.git",
			"git-upload-pack https://git@h/x.git: connection refused",
			"git-upload-pack https://xxxxx@h/x.git: connection refused"},
		{"the user inside a longer name stays",
			"https://u:tok@h/x.git",
			"mailto: you@h, https://u:tok@h/x.git",
			"mailto: you@h, https://xxxxx@h/x.git"},
		{"no credentials",
			"https://h/x.git",
			"git-upload-pack https://h/x.git: refused",
			"git-upload-pack https://h/x.git: refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := errors.New(c.msg)
			got := scrub(err, c.remote)
			if got.Error() != c.want {
				t.Errorf("scrub:\n got %q\nwant %q", got.Error(), c.want)
			}
			if !errors.Is(got, err) {
				t.Error("the scrubbed error does not wrap the original")
			}
		})
	}
}
