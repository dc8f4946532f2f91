package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"

	rcfg "github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore/gitindex"
)

// Repo is an open knowledge repository.
type Repo struct {
	root     string // the work tree
	gitDir   string
	stateDir string // .git/reflect: local state, never committed
	storer   *filesystem.Storage
	cfg      rcfg.Config
	cfgWarn  []rcfg.Warning // keys ignored in the settings files
	cfgErr   error          // a settings file that did not load: cfg holds defaults for its keys
	gitCfg   *config.Config // .git/config, for the author and core.splitIndex

	reshareAt int                     // split-index size that triggers a new shared index (tests lower it)
	failpoint func(phase string) bool // tests: stop a write dead after phase
	poolMu    sync.Mutex              // pool is taken from by the writes of several goroutines
	pool      []string                // names left in the file pool, once listed (pool.go)
	zw        [2]*zlib.Writer         // by level (0, 1), reused for every loose object written
	zr        io.ReadCloser           // reused for every loose object this process reads
	trees     map[plumbing.Hash][]treeEntry
	treeSize  int // entries held in trees (see cacheTree)
}

// Root is the work tree of the repository.
func (r *Repo) Root() string { return r.root }

// maxOpenPacks bounds the pack files a Repo keeps open until Close.
const maxOpenPacks = 8

// Close releases the pack files the repository keeps open. A closed Repo opens them again
// when it reads, so Close is only a matter of file descriptors for long-lived processes.
func (r *Repo) Close() error { return r.storer.Close() }

// GitDir is the repository's .git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// StateDir is .git/reflect, where local, never-committed state lives.
func (r *Repo) StateDir() string { return r.stateDir }

// Config is the settings: reflect.toml of the work tree with this machine's
// .git/reflect/config.toml over it. When a file did not load (see SettingsError), its keys
// hold their defaults.
func (r *Repo) Config() rcfg.Config { return r.cfg }

// SettingsError is why a settings file did not load, or nil. A hook goes on with the
// defaults and logs it; a command refuses to run on settings a person got wrong, except
// those that can mend them (sync, doctor, config).
func (r *Repo) SettingsError() error { return r.cfgErr }

// SettingsWarnings lists the keys the settings files hold and reflect ignored: a local key
// in the shared file (whoever can push may not set it), a shared key in the local one.
func (r *Repo) SettingsWarnings() []rcfg.Warning { return r.cfgWarn }

// LocalSettingsPath is this machine's settings file, .git/reflect/config.toml.
func (r *Repo) LocalSettingsPath() string { return filepath.Join(r.stateDir, rcfg.LocalFileName) }

// reloadSettings reads both settings files again.
func (r *Repo) reloadSettings() {
	r.cfg, r.cfgWarn, r.cfgErr = rcfg.Load(filepath.Join(r.root, rcfg.FileName), r.LocalSettingsPath())
}

// Open opens the knowledge repository whose work tree is root.
func Open(root string) (*Repo, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	gitDir := filepath.Join(abs, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return nil, &NotInitialisedError{Dir: abs}
	}
	if _, err := os.Stat(filepath.Join(abs, rcfg.FileName)); err != nil {
		// a clone still being filled has reflect's state directory but no reflect.toml yet
		if _, err := os.Stat(filepath.Join(gitDir, "reflect")); err != nil {
			return nil, &NotInitialisedError{Dir: abs}
		}
	}
	return open(abs, gitDir)
}

func open(abs, gitDir string) (*Repo, error) {
	r := &Repo{
		root:     abs,
		gitDir:   gitDir,
		stateDir: filepath.Join(gitDir, "reflect"),
		// a few pack files stay open between reads: opening one per object read (go-git's
		// default) costs more than the read once a fetch has brought packs
		storer: filesystem.NewStorageWithOptions(osfs.New(gitDir), cache.NewObjectLRUDefault(),
			filesystem.Options{MaxOpenDescriptors: maxOpenPacks}),

		reshareAt: gitindex.DefaultReshareAt,
	}
	for _, d := range []string{"locks", "tmp", "pool"} {
		if err := os.MkdirAll(filepath.Join(r.stateDir, d), 0o755); err != nil {
			return nil, fmt.Errorf("open %s: %w", abs, err)
		}
	}
	r.reloadSettings()
	return r, r.loadGitConfig()
}

func (r *Repo) loadGitConfig() error {
	r.gitCfg = config.New()
	data, err := os.ReadFile(filepath.Join(r.gitDir, "config"))
	if err != nil {
		return nil
	}
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(r.gitCfg); err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(r.gitDir, "config"), err)
	}
	return nil
}

// branch returns the ref HEAD points to, e.g. refs/heads/main.
func (r *Repo) branch() (string, error) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	s := strings.TrimSpace(string(data))
	ref, ok := strings.CutPrefix(s, "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/heads/") {
		return "", fmt.Errorf("HEAD is detached (%s); check out a branch first", s)
	}
	return ref, nil
}

// Head returns the commit HEAD points to; zero in a repository with no commit yet.
func (r *Repo) Head() (plumbing.Hash, error) {
	ref, err := r.branch()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return r.readRef(ref)
}

// readRef reads a ref from its loose file or from packed-refs; zero when it does not exist.
func (r *Repo) readRef(name string) (plumbing.Hash, error) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, filepath.FromSlash(name)))
	if err == nil {
		s := strings.TrimSpace(string(data))
		if !plumbing.IsHash(s) {
			return plumbing.ZeroHash, fmt.Errorf("ref %s is malformed: %q", name, s)
		}
		return plumbing.NewHash(s), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
	}
	f, err := os.Open(filepath.Join(r.gitDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if id, ref, ok := strings.Cut(line, " "); ok && ref == name && plumbing.IsHash(id) {
			return plumbing.NewHash(id), nil
		}
	}
	return plumbing.ZeroHash, sc.Err()
}

// headTree returns HEAD and its root tree.
func (r *Repo) headTree() (head, root plumbing.Hash, err error) {
	if head, err = r.Head(); err != nil {
		return head, root, err
	}
	root, err = r.commitTree(head)
	return head, root, err
}

// ReadFile returns the content of path in HEAD.
func (r *Repo) ReadFile(path string) ([]byte, error) {
	_, root, err := r.headTree()
	if err != nil {
		return nil, err
	}
	return r.readAt(root, path)
}

func (r *Repo) readAt(root plumbing.Hash, path string) ([]byte, error) {
	e, ok, err := r.lookup(root, path)
	if err != nil {
		return nil, err
	}
	if !ok || e.isDir() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	return r.readBlob(e.hash)
}

// File is a file of HEAD found by Walk.
type File struct {
	Path string
	ID   plumbing.Hash     // blob id (a commit id for a gitlink)
	Mode filemode.FileMode // regular or executable, unless a tree reflect did not write holds more
}

// Walk lists the files of HEAD under dir (recursively), in path order.
func (r *Repo) Walk(dir string) ([]File, error) {
	_, root, err := r.headTree()
	if err != nil {
		return nil, err
	}
	return r.walkAt(root, dir)
}

func (r *Repo) walkAt(root plumbing.Hash, dir string) ([]File, error) {
	dir = strings.Trim(dir, "/")
	tree := root
	if dir != "" {
		e, ok, err := r.lookup(root, dir)
		if err != nil || !ok || !e.isDir() {
			return nil, err
		}
		tree = e.hash
	}
	var out []File
	var walk func(prefix string, id plumbing.Hash) error
	walk = func(prefix string, id plumbing.Hash) error {
		entries, err := r.readTree(id)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := e.name
			if prefix != "" {
				p = prefix + "/" + e.name
			}
			if e.isDir() {
				if err := walk(p, e.hash); err != nil {
					return err
				}
			} else {
				out = append(out, File{Path: p, ID: e.hash, Mode: e.mode})
			}
		}
		return nil
	}
	if err := walk(dir, tree); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ReadBlob returns a blob found by Walk.
func (r *Repo) ReadBlob(id plumbing.Hash) ([]byte, error) { return r.readBlob(id) }

// indexOptions says how .git/index is written: split unless git is told not to, a shared
// index through the file pool like every other file under .git.
func (r *Repo) indexOptions() gitindex.Options {
	return gitindex.Options{
		Split:       r.gitCfg.Section("core").Option("splitIndex") != "false",
		ReshareAt:   r.reshareAt,
		WriteShared: func(path string, data []byte) error { return r.writeAtomic(path, data, 0o644) },
	}
}

// Ref reads a ref by its full name (refs/remotes/origin/main); zero when it does not exist.
func (r *Repo) Ref(name string) (plumbing.Hash, error) { return r.readRef(name) }
