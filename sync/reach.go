package sync

import (
	"context"
	"errors"
	"fmt"
	"net"

	gogit "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/reflect-memory/reflect/gitstore"
)

// Reach asks remote name of r (origin when empty) which refs it has, as `git ls-remote`
// does, with the credentials a sync would use, and gives up when ctx ends. It returns the
// remote's URL with any password hidden. An empty remote counts as reached. A failure wraps
// ErrNoRemote, ErrAuth or ErrNetwork, as Sync's do. Nothing is fetched or written.
func Reach(ctx context.Context, r *gitstore.Repo, name string) (string, error) {
	if name == "" {
		name = "origin"
	}
	url := r.Remote(name)
	if url == "" {
		return "", fmt.Errorf("%w: remote %q is not set; run reflect remote set URL", ErrNoRemote, name)
	}
	shown := RedactURL(url)
	a, err := auth(ctx, url)
	if err != nil {
		if errors.Is(err, ErrAuth) {
			return shown, err
		}
		return shown, fmt.Errorf("%w: %v", ErrNetwork, err)
	}
	rem := gogit.NewRemote(memory.NewStorage(), &gitconfig.RemoteConfig{Name: name, URLs: []string{url}})
	_, err = rem.ListContext(ctx, &gogit.ListOptions{Auth: a})
	switch {
	case err == nil, errors.Is(err, transport.ErrEmptyRemoteRepository):
		return shown, nil
	case ctx.Err() != nil:
		return shown, fmt.Errorf("%w: %s: no answer in time", ErrNetwork, shown)
	case errors.As(err, new(*net.OpError)):
		// no connection at all; classify's reading of the text could take a port such as
		// 40391 for an HTTP 403
		return shown, fmt.Errorf("%w: %s: %v", ErrNetwork, shown, err)
	}
	return shown, classify(err, url)
}
