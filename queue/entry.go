package queue

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/oklog/ulid/v2"

	"github.com/reflect-memory/reflect/gitstore"
)

// Dir and FailedDir are where pending and failed entries live in the repository.
const (
	Dir       = "queue"
	FailedDir = "queue/failed"
)

// Entry is one pending capture: a session (or the part of it since its last capture).
type Entry struct {
	ID      string    `json:"id"` // "q-" + ULID
	Harness string    `json:"harness"`
	Session string    `json:"session"`
	Trigger string    `json:"trigger"` // precompact | stop | session-end
	Project string    `json:"project"`
	Branch  string    `json:"branch,omitempty"`
	Commit  string    `json:"commit,omitempty"` // HEAD of the project repository when captured
	Machine string    `json:"machine"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// From and To are the byte range of the transcript this entry covers.
	From     int64  `json:"from"`
	To       int64  `json:"to"`
	Messages int    `json:"messages"`
	Digest   Digest `json:"digest"`
	// Error and Attempts are set when the drain gives up on the entry (queue/failed).
	Error    string `json:"error,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
}

// NewID returns a fresh entry id; ids sort by creation time.
func NewID(t time.Time) string {
	return "q-" + ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
}

// sessionID returns a fresh id for an entry of the harness's session: a ULID like NewID's
// whose first 40 bits of randomness are the session's tag (sessionTag), the other 40 random.
// A capture finds its session's pending entry among the names of queue/ alone, under the
// repository lock, without reading an entry of another session: the committed queue, not
// the marks saved after the commit, says whether the session already has one.
func sessionID(t time.Time, harness, session string) string {
	var u ulid.ULID
	if err := u.SetTime(ulid.Timestamp(t)); err != nil {
		u.SetTime(ulid.MaxTime())
	}
	copy(u[6:11], tagBytes(harness, session))
	rand.Read(u[11:])
	return "q-" + u.String()
}

// sessionTag is the part of an id that sessionID derives from the session: characters
// 10–17 of the ULID (its first 40 bits of randomness, five whole characters of
// Crockford base32 after the 48-bit time). Ids from NewID, and the entries written before,
// carry a random tag: only the marks find those.
func sessionTag(harness, session string) string {
	var u ulid.ULID
	copy(u[6:11], tagBytes(harness, session))
	return u.String()[10:18]
}

func tagBytes(harness, session string) []byte {
	h := sha256.Sum256([]byte(harness + "\x00" + session))
	return h[:5]
}

// tagOf is the session tag an id carries, or "" for a name that is no entry's id.
func tagOf(id string) string {
	if len(id) != 2+ulid.EncodedSize || !strings.HasPrefix(id, "q-") {
		return ""
	}
	return id[2+10 : 2+18]
}

// Path is where a pending entry is committed.
func Path(id string) string { return Dir + "/" + id + ".json" }

// Render is the committed form of an entry: indented JSON a person can read in a diff.
func (e *Entry) Render() ([]byte, error) {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Parse reads an entry file; path names it in errors.
func Parse(path string, data []byte) (*Entry, error) {
	var e Entry
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&e); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
			return nil, &ParseError{Path: path, Line: line, Err: err}
		}
		return nil, &ParseError{Path: path, Err: err}
	}
	if !strings.HasPrefix(e.ID, "q-") || e.Session == "" {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("not a queue entry (id %q, session %q)", e.ID, e.Session)}
	}
	if strings.HasPrefix(path, Dir+"/") && filepath.Base(path) != e.ID+".json" {
		// an entry is known by its id (provenance, the drain's records): a file may not claim
		// another's, as a pushed one could to pass for the user's own capture
		return nil, &ParseError{Path: path, Err: fmt.Errorf("claims id %q, not its file's name", e.ID)}
	}
	return &e, nil
}

// ParseError is a queue file that is no entry: its path (as a sync may have named it, so a
// command built from it must quote it), the line of a syntax error (0: none), and why.
type ParseError struct {
	Path string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrUnknownEntry means no pending or failed entry has the id asked for.
var ErrUnknownEntry = errors.New("no queue entry with that id")

// Item is a pending or failed entry as List finds it.
type Item struct {
	Entry  *Entry
	Path   string
	Failed bool
	// Blob is the version of the file read: a capture rewrites a session's pending entry in
	// place, and the drain that read an older one must not delete the newer (Changed).
	Blob plumbing.Hash
}

// Changed says whether data, what the entry's file holds now, is another version than the
// one read (a capture of its session rewrote it meanwhile).
func (it Item) Changed(data []byte) bool {
	return plumbing.ComputeHash(plumbing.BlobObject, data) != it.Blob
}

// List returns the pending entries, oldest first, then the failed ones. A file that does not
// parse is returned among bad and does not stop the others.
func List(r *gitstore.Repo) (items []Item, bad []error, err error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return nil, nil, err
	}
	return collect(files, func(f gitstore.File) ([]byte, error) { return r.ReadBlob(f.ID) })
}

func listTx(tx *gitstore.Tx) ([]Item, []error, error) {
	files, err := tx.Walk(Dir)
	if err != nil {
		return nil, nil, err
	}
	return collect(files, func(f gitstore.File) ([]byte, error) { return tx.Read(f.Path) })
}

// collect parses the entry files, pending first (oldest first), then failed.
func collect(files []gitstore.File, read func(gitstore.File) ([]byte, error)) (items []Item, bad []error, err error) {
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".json") {
			continue
		}
		data, err := read(f)
		if err != nil {
			return nil, nil, err
		}
		e, err := Parse(f.Path, data)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		items = append(items, Item{Entry: e, Path: f.Path, Failed: strings.HasPrefix(f.Path, FailedDir+"/"), Blob: f.ID})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Failed != items[j].Failed {
			return !items[i].Failed
		}
		return items[i].Entry.ID < items[j].Entry.ID
	})
	return items, bad, nil
}

// Find returns the entry whose id is, or starts with, prefix.
func Find(items []Item, prefix string) (Item, error) {
	var found []Item
	for _, it := range items {
		if it.Entry.ID == prefix {
			return it, nil
		}
		if strings.HasPrefix(it.Entry.ID, prefix) || strings.HasPrefix(it.Entry.ID, "q-"+prefix) {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 0:
		return Item{}, fmt.Errorf("%w: %s", ErrUnknownEntry, prefix)
	case 1:
		return found[0], nil
	}
	return Item{}, fmt.Errorf("%w: %q matches %d entries", ErrUnknownEntry, prefix, len(found))
}

// Drop removes an entry (pending or failed) in one commit, for good.
func Drop(ctx context.Context, r *gitstore.Repo, id string) (*Entry, error) {
	var dropped *Entry
	_, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		items, _, err := listTx(tx)
		if err != nil {
			return "", err
		}
		it, err := Find(items, id)
		if err != nil {
			return "", err
		}
		dropped = it.Entry
		tx.Delete(it.Path)
		return fmt.Sprintf("queue: drop %s (%s session %s)", it.Entry.ID, it.Entry.Harness, Short(it.Entry.Session)), nil
	})
	return dropped, err
}

// Short is the first eight characters of a session id, as commit messages and lists show it.
func Short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}
