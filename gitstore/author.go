package gitstore

import (
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// signature names who a commit is by: reflect.toml's [author], else git's user.name and
// user.email (the repository's config, then the user's), else user@host.
func (r *Repo) signature(now time.Time) object.Signature {
	name, email := r.cfg.Author.Name, r.cfg.Author.Email
	for _, c := range []*config.Config{r.gitCfg, globalGitConfig()} {
		if c == nil {
			continue
		}
		u := c.Section("user")
		if name == "" {
			name = u.Option("name")
		}
		if email == "" {
			email = u.Option("email")
		}
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	login := "reflect"
	if u, err := user.Current(); err == nil && u.Username != "" {
		login = u.Username
	}
	if name == "" {
		name = login
	}
	if email == "" {
		email = login + "@" + host
	}
	return object.Signature{Name: name, Email: email, When: now}
}

// globalGitConfig reads the user's git config ($XDG_CONFIG_HOME/git/config, ~/.gitconfig;
// the later wins, as in git). Absent or unreadable files are skipped.
func globalGitConfig() *config.Config {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	merged := config.New()
	for _, f := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		c := config.New()
		err = config.NewDecoder(fh).Decode(c)
		fh.Close()
		if err != nil {
			continue
		}
		for _, s := range c.Sections {
			for _, o := range s.Options {
				merged.Section(s.Name).SetOption(o.Key, o.Value)
			}
		}
	}
	return merged
}

// Signature is who this repository's commits are by, at now (see signature): a commit
// reflect makes outside Update, such as a promotion's on a team's branch, takes it.
func (r *Repo) Signature(now time.Time) object.Signature { return r.signature(now) }
