package sync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/reflect-memory/reflect/gitstore"
)

// Side branches: a team memory's promotions (reflect/promote/<id>) live on branches beside
// main until a reviewer merges them. Sync itself only ever fetches and pushes main; these
// are the few exchanges a promotion needs, under the same bounds as a sync.

// side is one exchange with a remote about side branches: its context carries the sync's
// time-outs, and the repository is open for go-git.
type side struct {
	ctx   context.Context
	url   string
	auth  transport.AuthMethod
	g     *gogit.Repository
	close func()
}

func openSide(ctx context.Context, r *gitstore.Repo, name string) (*side, error) {
	url := r.Remote(remoteName(name))
	if url == "" {
		return nil, fmt.Errorf("%w: remote %q is not set", ErrNoRemote, remoteName(name))
	}
	t, err := Timeouts{}.resolve()
	if err != nil {
		return nil, err
	}
	netCtx, cancel := context.WithTimeout(withTimeouts(ctx, t), t.Overall)
	a, err := auth(netCtx, url)
	if err != nil {
		cancel()
		return nil, err
	}
	g, closeGit, err := openGit(r.Root())
	if err != nil {
		cancel()
		return nil, err
	}
	return &side{ctx: netCtx, url: url, auth: a, g: g, close: func() { closeGit(); cancel() }}, nil
}

// Branches lists the branches of remote name of r whose names start with prefix, with their
// tips, as `git ls-remote --heads` does. An empty remote has none.
func Branches(ctx context.Context, r *gitstore.Repo, name, prefix string) (map[string]plumbing.Hash, error) {
	sd, err := openSide(ctx, r, name)
	if err != nil {
		return nil, err
	}
	defer sd.close()
	netCtx, url, a := sd.ctx, sd.url, sd.auth
	rem, err := sd.g.Remote(remoteName(name))
	if err != nil {
		return nil, err
	}
	refs, err := rem.ListContext(netCtx, &gogit.ListOptions{Auth: a})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return map[string]plumbing.Hash{}, nil
	} else if err != nil {
		return nil, classify(err, url)
	}
	out := map[string]plumbing.Hash{}
	for _, ref := range refs {
		if n := ref.Name(); n.IsBranch() && strings.HasPrefix(n.Short(), prefix) && ref.Type() == plumbing.HashReference {
			out[n.Short()] = ref.Hash()
		}
	}
	return out, nil
}

// FetchBranches fetches the remote's branches whose names start with prefix into
// refs/remotes/<name>/…, so that their commits can be read. Nothing else changes: no branch
// of r moves and no file of the work tree is written.
func FetchBranches(ctx context.Context, r *gitstore.Repo, name, prefix string) error {
	sd, err := openSide(ctx, r, name)
	if err != nil {
		return err
	}
	defer sd.close()
	netCtx, url, a, g := sd.ctx, sd.url, sd.auth, sd.g
	spec := gitconfig.RefSpec("+refs/heads/" + prefix + "*:refs/remotes/" + remoteName(name) + "/" + prefix + "*")
	err = g.FetchContext(netCtx, &gogit.FetchOptions{RemoteName: remoteName(name), Auth: a, RefSpecs: []gitconfig.RefSpec{spec}})
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate), errors.Is(err, transport.ErrEmptyRemoteRepository),
		strings.Contains(err.Error(), "couldn't find remote ref"):
		return nil
	case errors.As(gitstore.AsWriteError(r.Root(), err), new(*gitstore.WriteError)):
		return gitstore.AsWriteError(r.Root(), err)
	}
	return classify(err, url)
}

// PushBranch makes branch of remote name point at commit, creating it or moving it from
// whatever it held: a promotion's branch is its promoter's to replace. have is a commit
// the remote holds (its main), so only what commit adds to it is sent.
func PushBranch(ctx context.Context, r *gitstore.Repo, name, branch string, commit, have plumbing.Hash) error {
	sd, err := openSide(ctx, r, name)
	if err != nil {
		return err
	}
	defer sd.close()
	netCtx, url, a, g := sd.ctx, sd.url, sd.auth, sd.g
	ref := plumbing.NewBranchReferenceName(branch)
	old := plumbing.ZeroHash
	for range 3 { // the branch moved between the look and the push: look again
		_, err = pushRef(netCtx, g.Storer, url, a, ref, old, have, commit)
		if !errors.Is(err, errRemoteMoved) {
			break
		}
		tips, lerr := Branches(ctx, r, name, branch)
		if lerr != nil {
			return lerr
		}
		old = tips[branch]
	}
	if err != nil {
		return classify(err, url)
	}
	return nil
}

func remoteName(name string) string {
	if name == "" {
		return "origin"
	}
	return name
}
