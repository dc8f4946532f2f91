package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	gogit "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	rcfg "github.com/reflect-memory/reflect/config"
)

// InitOptions are the choices of `reflect init`.
type InitOptions struct {
	Remote string // URL of the remote "origin"; empty for none
	// Empty leaves the new repository without a first commit (a clone fills it).
	Empty bool
}

// Init creates the knowledge repository at root (a new git repository with branch main and
// a first commit holding the default reflect.toml), or opens the one already there. created
// says which. A remote is added (or its URL changed) when opts.Remote is set.
func Init(ctx context.Context, root string, opts InitOptions) (r *Repo, created bool, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, false, err
	}
	r, err = Open(abs)
	if err != nil && !errors.Is(err, ErrNotInitialised) {
		return nil, false, err
	}
	if r == nil {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, false, fmt.Errorf("create %s: %w", abs, err)
		}
		_, err := gogit.PlainInitWithOptions(abs, &gogit.PlainInitOptions{
			InitOptions: gogit.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
		})
		if err != nil && !errors.Is(err, gogit.ErrRepositoryAlreadyExists) {
			return nil, false, fmt.Errorf("git init %s: %w", abs, err)
		}
		if r, err = open(abs, filepath.Join(abs, ".git")); err != nil {
			return nil, false, err
		}
		// a new memory, or a clone about to be filled: this machine's settings start at
		// their defaults, never from what a remote's reflect.toml says
		if err := r.WriteState(rcfg.LocalFileName, []byte(rcfg.DefaultLocalFile)); err != nil {
			return nil, false, fmt.Errorf("write %s: %w", r.LocalSettingsPath(), err)
		}
		if !opts.Empty {
			_, err = r.Update(ctx, func(tx *Tx) (string, error) {
				tx.Write(rcfg.FileName, []byte(rcfg.DefaultFile))
				return "init: reflect knowledge repository", nil
			})
			if err != nil {
				return nil, false, err
			}
		}
		if r, err = Open(abs); err != nil {
			return nil, false, err
		}
		if err := r.FillPool(); err != nil {
			return nil, false, err
		}
		created = true
	}
	if opts.Remote != "" {
		if err := r.SetRemote("origin", opts.Remote); err != nil {
			return nil, created, err
		}
	}
	return r, created, nil
}

// SetRemote adds remote name with url, or changes its url.
func (r *Repo) SetRemote(name, url string) error {
	repo, err := gogit.PlainOpen(r.root)
	if err != nil {
		return fmt.Errorf("open %s: %w", r.root, err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return err
	}
	cfg.Remotes[name] = &gitconfig.RemoteConfig{
		Name:  name,
		URLs:  []string{url},
		Fetch: []gitconfig.RefSpec{gitconfig.RefSpec("+refs/heads/*:refs/remotes/" + name + "/*")},
	}
	if err := repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("set remote %s: %w", name, err)
	}
	return r.loadGitConfig()
}

// Remote returns the URL of remote name, or "".
func (r *Repo) Remote(name string) string {
	s := r.gitCfg.Section("remote").Subsection(name)
	return s.Option("url")
}
