package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/atomicfile"
	"github.com/reflect-memory/reflect/internal/lockfile"
)

// Archive is the session history of one knowledge repository, under .git/reflect/history.
type Archive struct {
	dir  string // .git/reflect/history
	lock string // .git/reflect/locks/history: one import at a time
}

// At returns the archive whose local state lives in stateDir (gitstore.Repo.StateDir).
func At(stateDir string) *Archive {
	return &Archive{dir: filepath.Join(stateDir, "history"), lock: filepath.Join(stateDir, "locks", "history")}
}

func (a *Archive) statePath() string   { return filepath.Join(a.dir, "state.json") }
func (a *Archive) catalogPath() string { return filepath.Join(a.dir, "catalog.bin") }
func (a *Archive) indexDir() string    { return filepath.Join(a.dir, "index") }
func (a *Archive) storesDir() string   { return filepath.Join(a.dir, "sessions") }
func (a *Archive) storePath(stream string) string {
	return filepath.Join(a.storesDir(), stream+".jsonl")
}

// Errors a command maps to a message and an exit code.
var (
	// ErrEmpty: nothing has been imported yet.
	ErrEmpty = errors.New("no session history yet: run `reflect history import`")
	// ErrBusy: another import, or a reader, held the archive past the timeout. It wraps
	// gitstore.ErrLocked, so commands report it as a busy repository.
	ErrBusy = fmt.Errorf("session history busy (another import is running): %w", gitstore.ErrLocked)
)

// stateVersion changes when the layout of the stores or the index does; an archive of
// another version is rebuilt from the transcripts.
const stateVersion = 1

// state is what imports remember, in state.json. It is the truth the stores and the index
// are measured against: a store longer than its stream's Bytes holds the leftovers of an
// import that died, and is cut back before it grows again.
type state struct {
	Version int `json:"version"`
	// Generation counts the imports that changed something; the catalog carries the
	// generation it was derived from.
	Generation int                   `json:"generation"`
	Files      map[string]*fileState `json:"files"`
	Streams    map[string]*Stream    `json:"streams"`
	Sessions   map[string]*Session   `json:"sessions"`
}

// fileState is one transcript file as the last import left it.
type fileState struct {
	Harness string    `json:"harness"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// Offset is where the next read resumes: Session.End of the last read (before a line
	// the host was still writing).
	Offset int64 `json:"offset"`
	// Head is a hash of the first HeadLen bytes: when they change, the file was rewritten
	// and is read again from the start.
	Head    string `json:"head"`
	HeadLen int64  `json:"head_len"`
	Stream  string `json:"stream,omitempty"`
	Lines   int    `json:"lines"`
	Skipped int    `json:"skipped,omitempty"`
}

// Stream is the message store of one transcript file: a session's main transcript, or
// one of its Claude subagents.
type Stream struct {
	Name     string `json:"name"`
	Session  string `json:"session"`         // key of the session it belongs to
	Agent    string `json:"agent,omitempty"` // the subagent file's name; "" for the main transcript
	Path     string `json:"path"`            // the transcript it is read from
	Messages int    `json:"messages"`
	Bytes    int64  `json:"bytes"` // size of the store after the last import
}

// Session is one session of the archive: what `history recent` lists and what a search
// result is grouped by.
type Session struct {
	Key     string    `json:"key"` // harness-id
	Harness string    `json:"harness"`
	ID      string    `json:"id"`
	Project string    `json:"project"`
	CWD     string    `json:"cwd,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Started time.Time `json:"started"`
	Updated time.Time `json:"updated"`
	// Messages counts the messages kept (system lines and thinking are not).
	Messages int `json:"messages"`
	// Prompt is the first thing a person typed in it, redacted and clipped.
	Prompt  string   `json:"prompt,omitempty"`
	Streams []string `json:"streams"`
}

func newState() *state {
	return &state{Version: stateVersion, Files: map[string]*fileState{}, Streams: map[string]*Stream{}, Sessions: map[string]*Session{}}
}

// loadState reads state.json; a missing one, or one of another version, is a new state.
func (a *Archive) loadState() (*state, error) {
	data, err := os.ReadFile(a.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, err
	}
	st := newState()
	if err := json.Unmarshal(data, st); err != nil || st.Version != stateVersion {
		return newState(), nil // unreadable: start again (the stores are cut back as they are rewritten)
	}
	for _, m := range []bool{st.Files == nil, st.Streams == nil, st.Sessions == nil} {
		if m {
			return newState(), nil
		}
	}
	return st, nil
}

// loadCatalog reads the catalog (catalog.go): catalog.bin as the last import wrote it, else,
// for an archive an older reflect wrote, one built from state.json until the next import
// writes catalog.bin.
func (a *Archive) loadCatalog() (*catalog, error) {
	data, err := os.ReadFile(a.catalogPath())
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat(a.statePath()); serr != nil {
			return nil, ErrEmpty
		}
		st, err := a.loadState()
		if err != nil {
			return nil, err
		}
		if len(st.Sessions) == 0 {
			return nil, ErrEmpty
		}
		return catalogFromState(st), nil
	}
	if err != nil {
		return nil, err
	}
	c, err := openCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("read %s (the next import rewrites it): %w", a.catalogPath(), err)
	}
	return c, nil
}

// save writes state.json, then the catalog derived from it, each atomically. A crash
// between leaves a catalog of the previous import, which searches can still use.
func (a *Archive) save(st *state) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := writeAtomic(a.statePath(), data); err != nil {
		return err
	}
	return a.saveCatalog(st)
}

func (a *Archive) saveCatalog(st *state) error {
	if err := writeAtomic(a.catalogPath(), encodeCatalog(st)); err != nil {
		return err
	}
	os.Remove(filepath.Join(a.dir, "catalog.gob")) // an older reflect's
	return nil
}

// writeAtomic replaces path with data so that it survives a crash (atomicfile).
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// takeLock takes the import lock, waiting at most timeout.
func (a *Archive) takeLock(ctx context.Context, timeout time.Duration) (func(), error) {
	if timeout <= 0 {
		timeout = defaultLockTimeout
	}
	unlock, err := lockfile.Take(ctx, a.lock, timeout)
	if errors.Is(err, lockfile.ErrHeld) {
		return nil, ErrBusy
	}
	return unlock, err
}

const defaultLockTimeout = 10 * time.Second
