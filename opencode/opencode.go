// Package opencode reads opencode's sessions and mirrors them as JSON lines that the
// transcript package reads like any host's transcript. opencode keeps no transcript file:
// its sessions live in a SQLite database (~/.local/share/opencode/opencode.db, WAL, written
// by opencode while it runs), and before v1.14 in JSON files under storage/
// (../shared/reference/more-hosts.md §G.4). The database is opened read-only with a
// pure-Go driver (modernc.org/sqlite: no cgo, so reflect still cross-compiles).
//
// A session's mirror (Export) is one "opencode.session" line, then one "opencode.part" line
// per part of each finished message, oldest first, every string redacted: the text never
// leaves the machine (the mirror lives under .git/reflect/opencode, never committed) but
// history and captures hold no secret anywhere. The export stops at the first message still
// being written, so a later export of the same session starts with the earlier one (Mirror
// then appends only what is new, and byte offsets into the mirror stay valid for the
// incremental reads of captures and of the history import).
//
// It never writes to opencode's files.
package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/reflect-memory/reflect/internal/atomicfile"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// DBPath is opencode's database: $OPENCODE_DB when it is an absolute path, else
// $XDG_DATA_HOME/opencode/opencode.db, else ~/.local/share/opencode/opencode.db.
func DBPath() string {
	if p := os.Getenv("OPENCODE_DB"); filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dataDir(), "opencode.db")
}

// StorageDir is the JSON storage of opencode before its database.
func StorageDir() string { return filepath.Join(dataDir(), "storage") }

func dataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "opencode")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "opencode")
}

// Session is one opencode session as listed.
type Session struct {
	ID, Parent, Directory, Title string
	Updated                      time.Time
}

// ErrNoSession is returned by Export for a session neither store holds.
var ErrNoSession = errors.New("no such opencode session")

// open opens the database read-only. busy_timeout: opencode writes it (WAL) while it runs;
// a reader waits at most that long on a checkpoint.
func open(path string) (*sql.DB, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(200)&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// List returns the sessions of the database at path changed at or after since, oldest
// first.
func List(ctx context.Context, path string, since time.Time) ([]Session, error) {
	db, err := open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, COALESCE(parent_id, ''), COALESCE(directory, ''), COALESCE(title, ''), time_updated
		FROM session WHERE time_updated >= ? ORDER BY time_updated, id`, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var s Session
		var ms int64
		if err := rows.Scan(&s.ID, &s.Parent, &s.Directory, &s.Title, &ms); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		s.Updated = time.UnixMilli(ms)
		out = append(out, s)
	}
	return out, rows.Err()
}

// message is one message of a session with its parts, from either store.
type message struct {
	id      string
	created int64
	info    map[string]any
	parts   []part
}

type part struct {
	id   string
	data map[string]any
}

// Export renders the session id of the database at path as JSON lines (see the package
// comment).
func Export(ctx context.Context, path, id string) ([]byte, error) {
	db, err := open(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var s Session
	var ms int64
	err = db.QueryRowContext(ctx, `SELECT id, COALESCE(parent_id, ''), COALESCE(directory, ''), COALESCE(title, ''), time_created
		FROM session WHERE id = ?`, id).Scan(&s.ID, &s.Parent, &s.Directory, &s.Title, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT m.id, m.time_created, m.data, COALESCE(p.id, ''), COALESCE(p.data, '')
		FROM message m LEFT JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id`, id)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer rows.Close()
	var msgs []*message
	for rows.Next() {
		var mid, pid string
		var created int64
		var mdata, pdata []byte
		if err := rows.Scan(&mid, &created, &mdata, &pid, &pdata); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if len(msgs) == 0 || msgs[len(msgs)-1].id != mid {
			m := &message{id: mid, created: created}
			json.Unmarshal(mdata, &m.info) // a message whose data does not parse has no role: skipped
			msgs = append(msgs, m)
		}
		if pid != "" {
			var d map[string]any
			if json.Unmarshal(pdata, &d) == nil {
				m := msgs[len(msgs)-1]
				m.parts = append(m.parts, part{id: pid, data: d})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return render(s, ms, msgs), nil
}

// render writes the session line and the lines of its finished messages.
func render(s Session, created int64, msgs []*message) []byte {
	var b bytes.Buffer
	line := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err == nil {
			b.Write(data)
			b.WriteByte('\n')
		}
	}
	line(map[string]any{"type": "opencode.session", "id": s.ID, "parent": s.Parent, "directory": redact.String(s.Directory),
		"title": redact.String(s.Title), "time": created})
	for _, m := range msgs {
		role, _ := m.info["role"].(string)
		if role == "assistant" && !completed(m.info) {
			break // still being written: a later export takes it, whole
		}
		if role != "user" && role != "assistant" {
			continue
		}
		model, _ := m.info["modelID"].(string)
		for _, p := range m.parts {
			line(map[string]any{"type": "opencode.part", "session": s.ID, "message": m.id, "id": p.id, "role": role,
				"model": model, "time": m.created, "part": redactAll(p.data)})
		}
	}
	return b.Bytes()
}

// completed says whether an assistant message is finished: its time.completed is set, or it
// ended in an error.
func completed(info map[string]any) bool {
	if t, ok := info["time"].(map[string]any); ok {
		if c, ok := t["completed"].(float64); ok && c > 0 {
			return true
		}
	}
	return info["error"] != nil
}

// redactAll redacts every string of a decoded JSON value.
func redactAll(v any) any {
	switch t := v.(type) {
	case string:
		return redact.String(t)
	case map[string]any:
		for k, x := range t {
			t[k] = redactAll(x)
		}
	case []any:
		for i, x := range t {
			t[i] = redactAll(x)
		}
	}
	return v
}

// maxStorageFile bounds one JSON file of the old storage.
const maxStorageFile = 16 << 20

// ListStorage returns the sessions of opencode's old JSON storage changed at or after since.
func ListStorage(dir string, since time.Time) ([]Session, error) {
	files, err := filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, f := range files {
		info, ok := readJSON(f)
		if !ok {
			continue
		}
		s := storageSession(info, f)
		if s.Updated.Before(since) {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Updated.Before(out[k].Updated) })
	return out, nil
}

func storageSession(info map[string]any, path string) Session {
	str := func(k string) string { s, _ := info[k].(string); return s }
	s := Session{ID: str("id"), Parent: str("parentID"), Directory: str("directory"), Title: str("title")}
	if s.ID == "" {
		s.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	if t, ok := info["time"].(map[string]any); ok {
		for _, k := range []string{"updated", "created"} {
			if ms, ok := t[k].(float64); ok {
				s.Updated = time.UnixMilli(int64(ms))
				break
			}
		}
	}
	return s
}

// ExportStorage renders the session id of the old JSON storage as ExportDB does.
func ExportStorage(dir, id string) ([]byte, error) {
	if !safeID(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoSession, id)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "session", "*", id+".json"))
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	info, ok := readJSON(files[0])
	if !ok {
		return nil, fmt.Errorf("%s: not a session", files[0])
	}
	s := storageSession(info, files[0])
	var created int64
	if t, ok := info["time"].(map[string]any); ok {
		c, _ := t["created"].(float64)
		created = int64(c)
	}
	mfiles, _ := filepath.Glob(filepath.Join(dir, "message", id, "*.json"))
	var msgs []*message
	for _, mf := range mfiles {
		mi, ok := readJSON(mf)
		if !ok {
			continue
		}
		m := &message{id: strings.TrimSuffix(filepath.Base(mf), ".json"), info: mi}
		if t, ok := mi["time"].(map[string]any); ok {
			c, _ := t["created"].(float64)
			m.created = int64(c)
		}
		pfiles, _ := filepath.Glob(filepath.Join(dir, "part", m.id, "*.json"))
		sort.Strings(pfiles)
		for _, pf := range pfiles {
			if pd, ok := readJSON(pf); ok {
				m.parts = append(m.parts, part{id: strings.TrimSuffix(filepath.Base(pf), ".json"), data: pd})
			}
		}
		msgs = append(msgs, m)
	}
	sort.SliceStable(msgs, func(i, k int) bool {
		if msgs[i].created != msgs[k].created {
			return msgs[i].created < msgs[k].created
		}
		return msgs[i].id < msgs[k].id
	})
	return render(s, created, msgs), nil
}

func readJSON(path string) (map[string]any, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStorageFile {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var v map[string]any
	return v, json.Unmarshal(data, &v) == nil && v != nil
}

// safeID says whether a session id can name a file: opencode's are ses_ and letters and
// digits; a payload may say anything.
func safeID(id string) bool {
	if id == "" || len(id) > 200 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// MirrorPath is where the mirror of session id lives under dir, or "" for an id that
// cannot name a file.
func MirrorPath(dir, id string) string {
	if !safeID(id) {
		return ""
	}
	return filepath.Join(dir, id+".jsonl")
}

// Mirror brings the mirror of one session up to date: the export's new lines are appended
// when the mirror is a prefix of it (the usual case: the session went on), otherwise the
// mirror is replaced whole (a revert undid messages). It reports whether it changed.
func Mirror(path string, export []byte) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	switch {
	case bytes.Equal(old, export):
		return false, nil
	case len(old) > 0 && bytes.HasPrefix(export, old):
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return false, err
		}
		_, werr := f.Write(export[len(old):])
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return true, werr
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	return true, atomicfile.Write(path, export, 0o600)
}

// MirrorSession exports session id from the database at db, or else from the old storage,
// into its mirror under dir, and returns the mirror's path.
func MirrorSession(ctx context.Context, db, storage, dir, id string) (string, error) {
	path := MirrorPath(dir, id)
	if path == "" {
		return "", fmt.Errorf("%w: %q", ErrNoSession, id)
	}
	export, err := Export(ctx, db, id)
	if err != nil {
		var serr error
		if export, serr = ExportStorage(storage, id); serr != nil {
			return "", err
		}
	}
	_, err = Mirror(path, export)
	return path, err
}

// MirrorAll mirrors every session changed at or after since, from the database and the old
// storage, into dir; it returns how many mirrors changed. A store that is not there is no
// error.
func MirrorAll(ctx context.Context, db, storage, dir string, since time.Time) (int, error) {
	changed := 0
	inDB := map[string]bool{}
	do := func(id string, export []byte) error {
		path := MirrorPath(dir, id)
		if path == "" {
			return nil
		}
		ok, err := Mirror(path, export)
		if ok {
			changed++
		}
		return err
	}
	if _, err := os.Stat(db); err == nil {
		sessions, err := List(ctx, db, since)
		if err != nil {
			return changed, err
		}
		for _, s := range sessions {
			inDB[s.ID] = true
			export, err := Export(ctx, db, s.ID)
			if err != nil {
				return changed, err
			}
			if err := do(s.ID, export); err != nil {
				return changed, err
			}
		}
	}
	sessions, err := ListStorage(storage, since)
	if err != nil {
		return changed, err
	}
	for _, s := range sessions {
		if inDB[s.ID] {
			continue // the database's copy (opencode migrated the storage) is the newer
		}
		export, err := ExportStorage(storage, s.ID)
		if err != nil {
			continue
		}
		if err := do(s.ID, export); err != nil {
			return changed, err
		}
	}
	return changed, nil
}
