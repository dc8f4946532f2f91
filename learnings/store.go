package learnings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// Dir is the folder of the knowledge repository that holds the learnings.
const Dir = "learnings"

// ErrUnknownID means no learning has the id (or id prefix) asked for.
var ErrUnknownID = errors.New("no learning with that id")

// ErrChanged means a file changed under an edit, which is refused rather than overwrite it.
var ErrChanged = errors.New("changed while you were editing it")

// AmbiguousIDError means an id prefix matches more than one learning, or (Duplicate) that
// several files claim the same id.
type AmbiguousIDError struct {
	Prefix    string
	Matches   []string // ids; the files' paths when Duplicate
	Duplicate bool
}

func (e *AmbiguousIDError) Error() string {
	m := e.Matches
	more := ""
	if len(m) > 5 {
		m, more = m[:5], fmt.Sprintf(" and %d more", len(e.Matches)-5)
	}
	if e.Duplicate {
		return fmt.Sprintf("%s is claimed by %d files: %s%s; remove the one that should not be there (git rm) and commit", normalizeID(e.Prefix), len(e.Matches), strings.Join(m, ", "), more)
	}
	return fmt.Sprintf("id %q is ambiguous: %d learnings hold it: %s%s; give more of the id", e.Prefix, len(e.Matches), strings.Join(m, ", "), more)
}

// DuplicateIDs lists, for each id that more than one file of HEAD claims, those files.
func DuplicateIDs(r *gitstore.Repo) (map[string][]string, error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return nil, err
	}
	byID := map[string][]string{}
	for _, ref := range refs(files) {
		byID[ref.ID] = append(byID[ref.ID], ref.Path)
	}
	for id, paths := range byID {
		if len(paths) < 2 {
			delete(byID, id)
		}
	}
	return byID, nil
}

// Ref is a learning file of HEAD, found without reading it.
type Ref struct {
	ID   string
	Path string
	Blob plumbing.Hash
}

func refs(files []gitstore.File) []Ref {
	out := make([]Ref, 0, len(files))
	for _, f := range files {
		if id, ok := IDFromPath(f.Path); ok {
			out = append(out, Ref{ID: id, Path: f.Path, Blob: f.ID})
		}
	}
	return out
}

// normalizeID accepts "lrn-01J…", "01J…" and lower case.
func normalizeID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "lrn-"), "LRN-")
	return "lrn-" + strings.ToUpper(s)
}

// Resolve finds the learning whose id is, or holds, s: the whole id, or any part of it that
// only one id holds ("lrn-" is optional, case does not matter). Learnings made in the same
// second share the first 14 characters of their ids, so the part people copy is often the
// end, the part `reflect list` shows.
func Resolve(rs []Ref, s string) (Ref, error) {
	want := normalizeID(s)
	part := strings.TrimPrefix(want, "lrn-")
	if part == "" {
		return Ref{}, fmt.Errorf("%w: empty id", ErrUnknownID)
	}
	var found, exact []Ref
	for _, r := range rs {
		if r.ID == want {
			exact = append(exact, r)
		}
		if strings.Contains(strings.TrimPrefix(r.ID, "lrn-"), part) {
			found = append(found, r)
		}
	}
	switch len(exact) {
	case 1:
		return exact[0], nil
	case 0:
	default: // two files claim one id: acting on either could be acting on the wrong one
		paths := make([]string, len(exact))
		for i, r := range exact {
			paths[i] = r.Path
		}
		sort.Strings(paths)
		return Ref{}, &AmbiguousIDError{Prefix: s, Matches: paths, Duplicate: true}
	}
	switch len(found) {
	case 0:
		return Ref{}, fmt.Errorf("%w: %s", ErrUnknownID, s)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, r := range found {
		ids[i] = r.ID + " (" + projectOfPath(r.Path) + ")"
	}
	sort.Strings(ids)
	return Ref{}, &AmbiguousIDError{Prefix: s, Matches: ids}
}

func projectOfPath(p string) string {
	if _, project, ok := placeOf(p); ok {
		return project
	}
	return p
}

// ShortIDs gives each id the shortest end, of at least MinShortID characters, that no other
// of ids ends with (and that Resolve therefore finds alone), as git abbreviates hashes.
func ShortIDs(ids []string) map[string]string {
	out := make(map[string]string, len(ids))
	for n := MinShortID; len(out) < len(ids) && n <= 26; n++ {
		count := map[string]int{}
		for _, id := range ids {
			if _, done := out[id]; !done {
				count[tail(id, n)]++
			}
		}
		// an end that is unique among the ids still to place may still sit inside another
		// id: Resolve matches any part, so it must be found in no other id at all
		for _, id := range ids {
			if _, done := out[id]; done || count[tail(id, n)] != 1 {
				continue
			}
			t, unique := tail(id, n), true
			for _, other := range ids {
				if other != id && strings.Contains(strings.TrimPrefix(other, "lrn-"), t) {
					unique = false
					break
				}
			}
			if unique {
				out[id] = "lrn-" + t
			}
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = id
		}
	}
	return out
}

// MinShortID is the fewest characters ShortIDs shows: 6 of the ULID's random end make two
// learnings share a short id once in about 10^9 pairs.
const MinShortID = 6

func tail(id string, n int) string {
	s := strings.TrimPrefix(id, "lrn-")
	if n >= len(s) {
		return s
	}
	return s[len(s)-n:]
}

// Get reads the learning id (or a unique prefix of it) from HEAD, with its file's bytes.
func Get(r *gitstore.Repo, id string) (*Learning, []byte, error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return nil, nil, err
	}
	ref, err := Resolve(refs(files), id)
	if err != nil {
		return nil, nil, err
	}
	l, raw, err := Read(r, ref.Path, ref.Blob)
	if err == nil && (l.Created.IsZero() || l.Updated.IsZero()) {
		DatesFromHistory(r, map[string]*Learning{ref.Path: l})
	}
	return l, raw, err
}

// Read parses the learning file at path whose blob is id. A file over MaxFileBytes is
// refused before it is read.
func Read(r *gitstore.Repo, path string, id plumbing.Hash) (*Learning, []byte, error) {
	if n, err := r.BlobSize(id); err == nil && n > MaxFileBytes {
		return nil, nil, &FieldError{Path: path, Msg: fmt.Sprintf("the file is %d bytes; a learning may be at most %d", n, MaxFileBytes)}
	}
	raw, err := r.ReadBlob(id)
	if err != nil {
		return nil, nil, err
	}
	l, err := Parse(path, raw)
	return l, raw, err
}

// datesLimit bounds the commits DatesFromHistory reads back from HEAD.
const datesLimit = 2000

// DatesFromHistory gives the learnings (by path) that lack created or updated the time of
// the commit that gave their file its content: a hand-written learning need not carry dates.
// Learnings whose commit lies further back than a bounded walk keep theirs empty.
func DatesFromHistory(r *gitstore.Repo, byPath map[string]*Learning) {
	head, err := r.Head()
	if err != nil || head.IsZero() || len(byPath) == 0 {
		return
	}
	files, err := r.Walk(Dir)
	if err != nil {
		return
	}
	want := map[string]plumbing.Hash{}
	for _, f := range files {
		if _, ok := byPath[f.Path]; ok {
			want[f.Path] = f.ID
		}
	}
	origins, err := r.Origins(head, want, nil, datesLimit)
	if err != nil {
		return
	}
	for p, o := range origins {
		l := byPath[p]
		when := o.When.UTC().Truncate(time.Second)
		if l.Created.IsZero() {
			l.Created = when
		}
		if l.Updated.IsZero() {
			l.Updated = when
		}
		if l.Updated.Before(l.Created) {
			l.Updated = l.Created
		}
	}
}

// LoadAll parses every learning in HEAD. A malformed file is returned among bad, naming its
// file and line, and never stops the others from loading.
func LoadAll(r *gitstore.Repo) (all []*Learning, bad []error, err error) {
	files, err := r.Walk(Dir)
	if err != nil {
		return nil, nil, err
	}
	undated := map[string]*Learning{}
	for _, ref := range refs(files) {
		l, _, err := Read(r, ref.Path, ref.Blob)
		var fe *FieldError
		switch {
		case errors.As(err, &fe):
			bad = append(bad, err)
			continue
		case err != nil:
			return nil, nil, err
		}
		if l.Created.IsZero() || l.Updated.IsZero() {
			undated[ref.Path] = l
		}
		all = append(all, l)
	}
	DatesFromHistory(r, undated)
	for _, f := range files {
		if strings.HasPrefix(f.Path, Dir+"/") && strings.HasSuffix(f.Path, ".md") {
			if _, ok := IDFromPath(f.Path); !ok {
				bad = append(bad, &FieldError{Path: f.Path, Msg: "the file name is not a learning id (lrn- and 26 letters and digits, as reflect new prints): reflect skips it; rename it to <its id>.md"})
			}
		}
	}
	return all, bad, nil
}

// Create redacts l, validates it and commits it as a new file with message, redacted too.
func Create(ctx context.Context, r *gitstore.Repo, l *Learning, message string) (plumbing.Hash, error) {
	l.Redact()
	message = redact.String(message)
	if err := l.Validate(); err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := l.Render()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		if _, err := tx.Read(l.RelPath()); err == nil {
			return "", fmt.Errorf("%s already exists", l.RelPath())
		}
		tx.Write(l.RelPath(), data)
		return message, nil
	})
}

// Change reads the learnings ids under the repository lock, lets fn change them and commits
// the ones it changed in one commit with the message fn returns. An empty message means
// fn decided there was nothing to do: nothing is committed. The message is redacted, as
// Create's is.
func Change(ctx context.Context, r *gitstore.Repo, ids []string, fn func([]*Learning) (string, error)) ([]*Learning, plumbing.Hash, error) {
	var ls []*Learning
	commit, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		files, err := tx.Walk(Dir)
		if err != nil {
			return "", err
		}
		rs := refs(files)
		ls = ls[:0]
		var before [][]byte
		for _, id := range ids {
			ref, err := Resolve(rs, id)
			if err != nil {
				return "", err
			}
			raw, err := tx.Read(ref.Path)
			if err != nil {
				return "", err
			}
			l, err := Parse(ref.Path, raw)
			if err != nil {
				return "", err
			}
			ls, before = append(ls, l), append(before, raw)
		}
		msg, err := fn(ls)
		if err != nil || msg == "" {
			return "", err
		}
		for i, l := range ls {
			if err := l.Validate(); err != nil {
				return "", err
			}
			data, err := l.Render()
			if err != nil {
				return "", err
			}
			if string(data) != string(before[i]) {
				tx.Write(l.RelPath(), data)
			}
		}
		return redact.String(msg), nil // a reason typed for an archive reaches git here too
	})
	return ls, commit, err
}

// SaveEdit commits a person's edit of old (whose file held base when the edit began). The
// edit must parse and validate and keep the id; if it does not change `updated`, it is set
// to now; a secret pasted into it, anywhere in the file, is redacted (redactFile). A changed project moves the file. If the file
// changed meanwhile, the edit is refused rather than overwriting someone else's change.
func SaveEdit(ctx context.Context, r *gitstore.Repo, old *Learning, base, edited []byte) (plumbing.Hash, *Learning, error) {
	l, err := parse(old.RelPath(), edited, false)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	l.Redact()
	if l.ID != old.ID {
		return plumbing.ZeroHash, nil, &FieldError{Path: old.RelPath(), Field: "id",
			Msg: fmt.Sprintf("the id of a learning never changes (was %s, now %s)", old.ID, l.ID)}
	}
	if l.Updated.Equal(old.Updated) {
		l.Updated = time.Now().UTC().Truncate(time.Second)
	}
	if err := l.Validate(); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	data, err := l.Render()
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if data, l, err = redactFile(l, data); err != nil {
		return plumbing.ZeroHash, nil, err
	}
	commit, err := r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		cur, err := tx.Read(old.RelPath())
		if err != nil || string(cur) != string(base) {
			return "", fmt.Errorf("%s %w", old.RelPath(), ErrChanged)
		}
		if l.RelPath() != old.RelPath() {
			tx.Delete(old.RelPath())
		}
		tx.Write(l.RelPath(), data)
		return "edit: " + l.Title + " (" + l.ID + ")", nil
	})
	return commit, l, err
}

// redactFile redacts what Redact does not reach in an edited file: its comments and the keys
// reflect does not know, which Render keeps as the person wrote them. An edit is the one
// way a person types those into a commit. The file is redacted whole, as a handoff is, and
// kept when it still reads as the same learning; a marker that broke its YAML (a secret
// written as a plain value of a known key Redact did not see as one) refuses the edit,
// naming the line, rather than guessing what the person meant.
func redactFile(l *Learning, data []byte) ([]byte, *Learning, error) {
	red := redact.Bytes(data)
	if bytes.Equal(red, data) {
		return data, l, nil
	}
	rl, err := parse(l.RelPath(), red, false)
	if err == nil && rl.ID == l.ID {
		if err = rl.Validate(); err == nil {
			return red, rl, nil
		}
	}
	line, kind := 0, "a personal path"
	for i, text := range strings.Split(string(data), "\n") {
		if ms := redact.Find(text); len(ms) > 0 {
			line, kind = i+1, ms[0].Kind
			break
		}
		if line == 0 && redact.Personal(text) != text {
			line = i + 1
		}
	}
	return nil, nil, &FieldError{Path: l.RelPath(), Line: line,
		Msg: fmt.Sprintf("holds a secret (%s) that cannot be redacted in place: remove it", kind)}
}

// Redact replaces the secrets in what a person or an agent wrote into a learning: the title
// (which the commit subject repeats), the body, tags, entities, triggers and the source's
// fields. The hooks redact what they capture, but `reflect add`, an edit, the viewer's merge
// and whatever else commits a learning come through here, and a secret in a commit is pushed
// with it.
func (l *Learning) Redact() {
	l.Title, l.Body = redact.String(l.Title), redact.String(l.Body)
	s := &l.Source
	s.Harness, s.Session, s.Trigger = redact.String(s.Harness), redact.String(s.Session), redact.String(s.Trigger)
	s.Machine, s.Commit = redact.String(s.Machine), redact.String(s.Commit)
	for _, list := range [][]string{l.Tags, l.Entities, l.Triggers, s.Files} {
		for i := range list {
			list[i] = redact.String(list[i])
		}
	}
	// an anchor is a path and a blob id: one that holds a secret is dropped, not cut
	l.Anchors = slices.DeleteFunc(l.Anchors, func(a string) bool { return redact.String(a) != a })
}

// Unformatted is a learning file whose canonical form differs from what HEAD holds: fields a
// person left out (kind, confidence, status, seen, dates), a project field its directory
// overrides.
type Unformatted struct {
	Path string
	Data []byte // the canonical form
}

// Canonical finds every learning of HEAD that Render would write otherwise — comments, key
// order and unknown keys kept — and the files it cannot read (bad).
func Canonical(r *gitstore.Repo) (out []Unformatted, bad []error, err error) {
	all, bad, err := LoadAll(r)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range all {
		data, err := l.Render()
		if err != nil {
			bad = append(bad, err)
			continue
		}
		cur, err := r.ReadFile(l.RelPath())
		if err != nil {
			return nil, nil, err
		}
		if !bytes.Equal(cur, data) {
			out = append(out, Unformatted{Path: l.RelPath(), Data: data})
		}
	}
	return out, bad, nil
}
