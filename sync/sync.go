// Package sync keeps one memory across laptops through a git remote: fetch, integrate
// (fast-forward, or a merge reflect computes itself, since go-git cannot), push, and again
// when the remote moved meanwhile. Merges follow rules that give the same file on every
// machine and never write a conflict marker. Every transport is bounded (timeouts.go): a
// remote that stops answering ends the sync with ErrNetwork, never hangs it.
package sync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/internal/lockfile"
)

// Options shape one sync.
type Options struct {
	Remote string // remote name; "" → origin
	// Attempts bounds fetch-merge-push rounds when the remote keeps moving; 0 → 5.
	Attempts int
	// Timeouts bound the talk with the remote; zero fields take the defaults (tests shorten
	// them here or through REFLECT_SYNC_TIMEOUTS).
	Timeouts Timeouts
	// Follow makes the remote's main the only truth, for a clone that never commits to it (a
	// team memory): a history that diverged (the remote was rewritten) is replaced by the
	// remote's, after the same checks, and nothing is pushed unless the remote has no main.
	Follow bool
}

// Result says what a sync did.
type Result struct {
	Remote       string   `json:"remote"`
	URL          string   `json:"url"`
	Before       string   `json:"before"`
	After        string   `json:"after"`
	Action       string   `json:"action"` // up-to-date | fast-forward | merge | push | first push
	In           []string `json:"in"`     // paths that came in from the remote
	Out          int      `json:"out"`    // commits the remote did not have
	Pushed       bool     `json:"pushed"`
	Rounds       int      `json:"rounds"`
	MergeCommits int      `json:"merge_commits"`
	// Notes say what the sync did not take as the remote has it: settings that do not load
	// (this machine's copy kept), local keys in the remote's reflect.toml (ignored).
	Notes []string `json:"notes,omitempty"`
}

// Errors a sync returns (wrapped with the detail).
var (
	ErrNoRemote = errors.New("no remote to sync with")
	ErrAuth     = errors.New("the remote refused the credentials")
	ErrNetwork  = errors.New("the remote could not be reached")
	ErrBusy     = lockfile.Busy("another sync is running")
	ErrNoMain   = errors.New("the remote has no main branch")
)

// Sync fetches from the remote, integrates what came in, and pushes what the remote lacks,
// fetching and merging again (with backoff, bounded) when another machine pushed meanwhile.
// Local commits are never lost: a failure leaves the repository as the last step left it.
func Sync(ctx context.Context, r *gitstore.Repo, o Options) (*Result, error) {
	name := o.Remote
	if name == "" {
		name = "origin"
	}
	url := r.Remote(name)
	if url == "" {
		return nil, fmt.Errorf("%w: remote %q is not set; run reflect remote set URL", ErrNoRemote, name)
	}
	unlock, err := lockfile.Take(ctx, filepath.Join(r.StateDir(), "locks", "sync"), r.Config().Git.LockTimeout.Std())
	if errors.Is(err, lockfile.ErrHeld) {
		return nil, ErrBusy
	} else if err != nil {
		return nil, err
	}
	defer unlock()

	t, err := o.Timeouts.resolve()
	if err != nil {
		return nil, err
	}
	// the remote's share of the sync is bounded; merging what came in is not cut short
	netCtx, cancel := context.WithTimeout(withTimeouts(ctx, t), t.Overall)
	defer cancel()
	a, err := auth(netCtx, url)
	if err != nil {
		return nil, err
	}
	res := &Result{Remote: name, URL: RedactURL(url)}
	if h, err := r.Head(); err == nil {
		res.Before = h.String()
	}
	attempts := o.Attempts
	if attempts <= 0 {
		attempts = 5
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval = 50*time.Millisecond, 2*time.Second
	caller := r
	defer func() {
		if r != caller {
			r.Close()
		}
	}()
	op := func() error {
		res.Rounds++
		rs, err := round(ctx, netCtx, r.Root(), name, url, a, res, o.Follow)
		if err != nil {
			if errors.Is(err, errRemoteMoved) {
				return err // fetch and merge again
			}
			return backoff.Permanent(err)
		}
		if rs != r && r != caller {
			r.Close()
		}
		r = rs
		return nil
	}
	err = backoff.Retry(op, backoff.WithContext(backoff.WithMaxRetries(b, uint64(attempts-1)), netCtx))
	if h, herr := r.Head(); herr == nil {
		res.After = h.String()
	}
	var te *timeoutError
	switch {
	case errors.Is(err, errRemoteMoved):
		err = fmt.Errorf("the remote kept moving: gave up after %d rounds; your commits are kept, sync again", res.Rounds)
	case errors.As(err, &te), err != nil && ctx.Err() == nil && errors.Is(netCtx.Err(), context.DeadlineExceeded):
		what := fmt.Sprintf("the time allowed ran out (%s for one sync)", t.Overall)
		if te != nil && !strings.Contains(te.what, "time allowed") {
			what = te.what
		}
		err = fmt.Errorf("%w: remote %s (%s) timed out: %s; your commits are kept, sync again later", ErrNetwork, name, res.URL, what)
	}
	return res, err
}

// openGit opens the repository at root for go-git's fetch and push, keeping pack files
// open between object reads (a push of a thousand commits reads every object it sends).
func openGit(root string) (*gogit.Repository, func(), error) {
	s := filesystem.NewStorageWithOptions(osfs.New(filepath.Join(root, ".git")), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	g, err := gogit.Open(s, osfs.New(root))
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return g, func() { s.Close() }, nil
}

var errRemoteMoved = errors.New("the remote moved during the push")

// round is one fetch, integrate, push; the fetch and the push run under netCtx. It returns
// the repository reopened after the fetch (new packs are only seen by a fresh open).
func round(ctx, netCtx context.Context, root, name, url string, a transport.AuthMethod, res *Result, follow bool) (*gitstore.Repo, error) {
	g, closeGit, err := openGit(root)
	if err != nil {
		return nil, err
	}
	defer closeGit()
	branch := "refs/heads/main"
	tracking := "refs/remotes/" + name + "/main"
	q := quarantine(root, g, tracking)
	err = g.FetchContext(netCtx, &gogit.FetchOptions{RemoteName: name, Auth: a,
		RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec("+" + branch + ":" + tracking)}})
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		// an empty remote: everything goes out
	case errors.As(gitstore.AsWriteError(root, err), new(*gitstore.WriteError)):
		// the pack could not be written here (a full disk): not the remote's doing
		return nil, fmt.Errorf("fetch from %s: %w", RedactURL(url), gitstore.AsWriteError(root, err))
	case strings.Contains(err.Error(), "couldn't find remote ref"):
		if err := noMain(netCtx, g, name, url, a); err != nil {
			return nil, err
		}
		// refs/heads/main is missing, and so is any other ref: an empty remote
	default:
		return nil, classify(err, url)
	}
	r, err := gitstore.Open(root)
	if err != nil {
		return nil, err
	}
	remote, err := r.Ref(tracking)
	if err != nil {
		return nil, err
	}
	local, err := r.Head()
	if err != nil {
		return nil, err
	}
	if !remote.IsZero() && remote != local {
		in, action, err := integrate(ctx, r, g, local, remote, res, follow)
		var refused *RefusedError
		if errors.As(err, &refused) {
			r.Close()
			if qerr := q.drop(); qerr != nil {
				return nil, fmt.Errorf("%w (and removing what the fetch brought failed: %v)", err, qerr)
			}
			return nil, err
		}
		if err != nil {
			return nil, err
		}
		res.In = append(res.In, in...)
		if res.Action == "" || action == "merge" {
			res.Action = action
		}
		if action == "merge" {
			res.MergeCommits++
		}
		if local, err = r.Head(); err != nil {
			return nil, err
		}
	}
	if local == remote || local.IsZero() || follow && !remote.IsZero() {
		if res.Action == "" {
			res.Action = "up-to-date"
		}
		return r, nil
	}
	out, err := push(netCtx, g.Storer, url, a, plumbing.ReferenceName(branch), remote, local)
	switch {
	case err == nil:
	case errors.Is(err, errRemoteMoved), errors.Is(err, gogit.ErrNonFastForwardUpdate), strings.Contains(err.Error(), "non-fast-forward"),
		strings.Contains(err.Error(), "fetch first"), strings.Contains(err.Error(), "reference has changed concurrently"),
		strings.Contains(err.Error(), "failed to update ref"), strings.Contains(err.Error(), "cannot lock ref"):
		return nil, errRemoteMoved
	default:
		return nil, classify(err, url)
	}
	res.Pushed, res.Out = true, out
	if res.Action == "" || res.Action == "up-to-date" {
		res.Action = "push"
		if remote.IsZero() {
			res.Action = "first push"
		}
	}
	// remember where the remote is now, as git push does
	if err := g.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(tracking), local)); err != nil {
		return nil, gitstore.AsWriteError(root, err)
	}
	return r, nil
}

// integrate brings remote into local: nothing when local already has it, a fast-forward
// when local has nothing of its own, else a merge commit. What the remote changed is checked
// first (checkIncoming) and where its learnings came from recorded (recordArrivals), before
// anything is written.
func integrate(ctx context.Context, r *gitstore.Repo, g *gogit.Repository, local, remote plumbing.Hash, res *Result, follow bool) (in []string, action string, err error) {
	base := local // a fast-forward, or a first sync that takes everything
	if !local.IsZero() {
		lc, err := g.CommitObject(local)
		if err != nil {
			return nil, "", err
		}
		rc, err := g.CommitObject(remote)
		if err != nil {
			return nil, "", err
		}
		if ok, err := rc.IsAncestor(lc); err != nil || ok && !follow {
			return nil, "up-to-date", err
		}
		ok, err := lc.IsAncestor(rc)
		if err != nil {
			return nil, "", err
		}
		if !ok && !follow {
			bases, err := lc.MergeBase(rc)
			if err != nil {
				return nil, "", err
			}
			base = plumbing.ZeroHash
			if len(bases) > 0 {
				base = bases[0].Hash
			}
		}
	}
	trees := [3]plumbing.Hash{}
	for i, c := range []plumbing.Hash{base, local, remote} {
		if trees[i], err = r.TreeOf(c, ""); err != nil {
			return nil, "", err
		}
	}
	theirs, err := r.DiffTrees(trees[0], trees[2], "")
	if err != nil {
		return nil, "", err
	}
	if err := checkIncoming(r, theirs, local, trees[1], trees[2], remote, base); err != nil {
		return nil, "", err
	}
	keepSettings, notes, err := sharedSettings(r, theirs, follow)
	if err != nil {
		return nil, "", err
	}
	for _, n := range notes {
		if !slices.Contains(res.Notes, n) { // a later round finds the same
			res.Notes = append(res.Notes, n)
		}
	}
	// recorded before the learnings land: a sync that dies between the two leaves a record
	// of a version not yet here, never a learning that passes for this machine's own
	if err := recordArrivals(r, theirs, remote, base, time.Now()); err != nil {
		return nil, "", fmt.Errorf("record where the incoming learnings come from: %w", err)
	}
	switch {
	case follow:
		// a clone that only reads (a team memory) never commits: a commit of this machine's
		// on its main would be this user's, and a merge of theirs would read as a review. A
		// reflect.toml that does not load is taken as it is and not used (its keys keep their
		// defaults; a team's settings choose nothing here anyway).
		return fastForward(ctx, r, local, remote)
	case base == local && local.IsZero():
		in, action, err = fastForward(ctx, r, local, remote)
		if err == nil && keepSettings { // nothing of this machine's to keep: start from the defaults
			_, err = r.Commit(ctx, "sync: the remote's reflect.toml does not load: replaced by the defaults", map[string][]byte{config.FileName: []byte(config.DefaultFile)})
		}
		return in, action, err
	case base == local && !keepSettings:
		return fastForward(ctx, r, local, remote)
	}
	keep := map[string]bool{}
	if keepSettings {
		keep[config.FileName] = true
	}
	return merge(ctx, r, base, remote, keep)
}

// fastForward moves local to remote, writing only the files that differ.
func fastForward(ctx context.Context, r *gitstore.Repo, local, remote plumbing.Hash) ([]string, string, error) {
	var in []string
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		in = nil
		from, err := tx.TreeOf(tx.Head(), "")
		if err != nil {
			return "", err
		}
		to, err := tx.TreeOf(remote, "")
		if err != nil {
			return "", err
		}
		changes, err := r.DiffTrees(from, to, "")
		if err != nil {
			return "", err
		}
		if tx.Head() != local {
			return "", fmt.Errorf("%w", errRemoteMoved) // a capture landed meanwhile: merge next round
		}
		for _, c := range changes {
			if err := stage(r, tx, c); err != nil {
				return "", err
			}
			in = append(in, c.Path)
		}
		tx.FastForward(remote)
		return "", nil
	})
	return in, "fast-forward", err
}

// merge commits the union of both sides' changes since base, file by file, with remote as
// the second parent. The paths of keep stay as this side has them (a reflect.toml the remote
// brings that does not load).
func merge(ctx context.Context, r *gitstore.Repo, base, remote plumbing.Hash, keep map[string]bool) ([]string, string, error) {
	var in []string
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		in = nil
		baseTree, err := tx.TreeOf(base, "")
		if err != nil {
			return "", err
		}
		localTree, err := tx.TreeOf(tx.Head(), "")
		if err != nil {
			return "", err
		}
		remoteTree, err := tx.TreeOf(remote, "")
		if err != nil {
			return "", err
		}
		ours, err := r.DiffTrees(baseTree, localTree, "")
		if err != nil {
			return "", err
		}
		theirs, err := r.DiffTrees(baseTree, remoteTree, "")
		if err != nil {
			return "", err
		}
		mine := map[string]gitstore.Change{}
		for _, c := range ours {
			mine[c.Path] = c
		}
		both := 0
		for _, c := range theirs {
			m, changedHere := mine[c.Path]
			switch {
			case keep[c.Path]:
				continue
			case !changedHere:
				if err := stage(r, tx, c); err != nil {
					return "", err
				}
			case m.To == c.To:
				continue // the same change on both sides
			case c.To.IsZero():
				continue // deleted there, edited here: kept, edited
			case m.To.IsZero():
				if err := stage(r, tx, c); err != nil { // deleted here, edited there
					return "", err
				}
			default:
				both++
				var baseData []byte
				if !c.From.IsZero() {
					if baseData, err = r.ReadBlob(c.From); err != nil {
						return "", err
					}
				}
				a, err := r.ReadBlob(m.To)
				if err != nil {
					return "", err
				}
				b, err := r.ReadBlob(c.To)
				if err != nil {
					return "", err
				}
				merged := mergeFile(c.Path, baseData, a, b)
				if c.Path == config.FileName {
					if _, _, err := config.ParseShared(config.FileName, merged); err != nil {
						merged = a // the two together do not load: this side's stands
					}
				}
				tx.Write(c.Path, merged)
			}
			in = append(in, c.Path)
		}
		tx.MergeWith(remote)
		msg := fmt.Sprintf(gitstore.SyncMergeSubject+"%d changes from the remote (%s)", len(in), short(remote))
		if both > 0 {
			msg += fmt.Sprintf("; %d files changed on both sides, merged field by field", both)
		}
		for p := range keep {
			msg += fmt.Sprintf("; kept this machine's %s (the remote's does not load)", p)
		}
		return msg, nil
	})
	return in, "merge", err
}

// stage writes the file a change leads to in tx (a deletion when it has none).
func stage(r *gitstore.Repo, tx *gitstore.Tx, c gitstore.Change) error {
	if c.To.IsZero() {
		tx.Delete(c.Path)
		return nil
	}
	data, err := r.ReadBlob(c.To)
	if err != nil {
		return err
	}
	tx.WriteBlob(c.Path, c.To, c.Mode, data)
	return nil
}

// classify turns a transport error into one that says what to do.
func classify(err error, url string) error {
	err = scrub(err, url)
	if e := classifySSH(err, url); e != nil {
		return e
	}
	msg := err.Error()
	var netErr net.Error
	var opErr *net.OpError
	var te *timeoutError
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &pathErr):
		// this machine's disk (full, read-only), not the remote
		return fmt.Errorf("syncing with %s: this machine's disk failed: %w", RedactURL(url), err)
	case errors.As(err, &te):
		return fmt.Errorf("%w: %s: %w", ErrNetwork, RedactURL(url), te) // Sync names the remote
	case errors.As(err, &opErr), errors.As(err, &netErr):
		// a refused connection or a time-out: whatever digits its address holds
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		strings.Contains(msg, "authentication"), strings.Contains(msg, "authorization"), httpStatus.MatchString(msg):
		return fmt.Errorf("%w: %s: %v (https: set REFLECT_GIT_TOKEN or a git credential helper; ssh: load your key into ssh-agent)", ErrAuth, RedactURL(url), err)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%w: %s: no repository there", ErrNetwork, RedactURL(url))
	}
	return fmt.Errorf("%w: %s: %v", ErrNetwork, RedactURL(url), err)
}

// httpStatus finds a refusal's HTTP status in an error message, not any 401 or 403 (a port
// number, a hash).
var httpStatus = lazyregexp.New(`\b(status|code|HTTP/[0-9.]+)[: ]+(401|403)\b|\b(401|403) (Unauthorized|Forbidden)\b`)

func short(h plumbing.Hash) string { return h.String()[:7] }

// Clone makes dir a new knowledge repository holding the memory at url (`reflect init
// --from`). When the remote is empty, dir starts a fresh memory and pushes it there. Only
// o.Follow is read: a clone that will only follow its remote (a team memory) takes what it
// fetched as it is, with no commit of this machine's on top.
func Clone(ctx context.Context, dir, url string, o Options) (*gitstore.Repo, *Result, error) {
	if r, err := gitstore.Open(dir); err == nil {
		return nil, nil, fmt.Errorf("%s is already a knowledge repository (%s); use reflect remote set and reflect sync", dir, r.Root())
	}
	_, statErr := os.Stat(dir)
	r, _, err := gitstore.Init(ctx, dir, gitstore.InitOptions{Remote: url, Empty: true})
	if err != nil {
		return nil, nil, err
	}
	res, err := Sync(ctx, r, Options{Follow: o.Follow})
	if err != nil {
		if os.IsNotExist(statErr) { // nothing came: leave no half-made repository behind
			os.RemoveAll(dir)
		}
		return nil, res, err
	}
	if r, err = gitstore.Open(dir); err != nil {
		return nil, res, err
	}
	if h, _ := r.Head(); h.IsZero() { // the remote was empty: start the memory, then share it
		os.RemoveAll(dir)
		if r, _, err = gitstore.Init(ctx, dir, gitstore.InitOptions{Remote: url}); err != nil {
			return nil, res, err
		}
		if res, err = Sync(ctx, r, Options{Follow: o.Follow}); err != nil {
			return r, res, err
		}
	}
	if err := r.FillPool(); err != nil {
		return r, res, err
	}
	return r, res, nil
}

// noMain explains a remote that has refs but no main: it names the branches there. reflect
// syncs main and nothing else, so it neither takes another branch's files for the memory
// nor pushes a main of its own beside them. It returns nil for a remote with no ref at all
// but a HEAD (go-git's server lists one in a new repository): an empty remote.
func noMain(ctx context.Context, g *gogit.Repository, name, url string, a transport.AuthMethod) error {
	rem, err := g.Remote(name)
	if err != nil {
		return err
	}
	refs, err := rem.ListContext(ctx, &gogit.ListOptions{Auth: a})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil
	} else if err != nil {
		return classify(err, url)
	}
	var branches, others []string
	for _, ref := range refs {
		switch n := ref.Name(); {
		case n.IsBranch():
			branches = append(branches, n.Short())
		case n != plumbing.HEAD:
			others = append(others, n.String())
		}
	}
	var has string
	switch {
	case len(branches) > 0:
		sort.Strings(branches)
		has = "branches " + strings.Join(branches, ", ")
	case len(others) > 0:
		has = "only " + strings.Join(others, ", ")
	default:
		return nil
	}
	return fmt.Errorf("%w: %s has %s but no main; reflect syncs only main, so nothing was fetched or pushed. "+
		"If a branch there holds a reflect memory, rename it to main on the remote; otherwise use an empty remote "+
		"or one whose main is a reflect memory", ErrNoMain, RedactURL(url), has)
}
