package redact

import "testing"

// A path that names the person loses the name, in every form the hosts write it; text that
// merely contains the same letters keeps them.
func TestPersonal(t *testing.T) {
	p := newPersonal("/Users/alice", "alice")
	for in, want := range map[string]string{
		"open /Users/alice/src/shop/main.go":                  "open ~/src/shop/main.go",
		"cd /Users/alice && make":                             "cd ~ && make",
		"~/.claude/projects/-Users-alice-src-shop/4c2d.jsonl": "~/.claude/projects/~-src-shop/4c2d.jsonl",
		"-Users-alice-src-shop":                               "~-src-shop",
		"PATH=/usr/bin:/Users/alice/go/bin":                   "PATH=/usr/bin:~/go/bin",
		"/home/alice/work and /srv/alice/cache":               "/home/<user>/work and /srv/<user>/cache",
		"/Users/alicia/src":                                   "/Users/alicia/src",
		"/Users/alice-old/src":                                "/Users/alice-old/src",
		"alice wrote the parser; ask alice":                   "alice wrote the parser; ask alice",
		"mysql://alice:secret@db/Users/alice":                 "mysql://alice:secret@db/Users/<user>",
		"make test-Users-alice-things":                        "make test-Users-alice-things",
		"already ~/src and /home/<user>/x":                    "already ~/src and /home/<user>/x",
	} {
		if got := p.apply(in); got != want {
			t.Errorf("apply(%q) = %q, want %q", in, got, want)
		}
	}
	root := newPersonal("/root", "root")
	for in, want := range map[string]string{
		"vault operator generate-root -generate-otp": "vault operator generate-root -generate-otp",
		"mysql://root:pw@127.0.0.1/shop":             "mysql://root:pw@127.0.0.1/shop",
		"ls /root/.ssh":                              "ls ~/.ssh",
		"/var/lib/root/cache":                        "/var/lib/<user>/cache",
	} {
		if got := root.apply(in); got != want {
			t.Errorf("root: apply(%q) = %q, want %q", in, got, want)
		}
	}
	win := newPersonal(`C:\Users\alice`, "alice")
	for in, want := range map[string]string{
		`C:\Users\alice\src\shop`: `~\src\shop`,
		`D:\data\alice\x`:         `D:\data\<user>\x`,
		"C--Users-alice-src-shop": "~-src-shop",
	} {
		if got := win.apply(in); got != want {
			t.Errorf("windows: apply(%q) = %q, want %q", in, got, want)
		}
	}
	if short := newPersonal("/home/al", "al"); short.apply("/srv/al/x") != "/srv/al/x" {
		t.Error("a two-letter login was replaced")
	}
}
