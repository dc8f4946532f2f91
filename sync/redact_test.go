package sync

import "testing"

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
