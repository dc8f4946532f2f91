package team

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/lazyregexp"
	"github.com/reflect-memory/reflect/learnings"
)

// Review is how the current version of one learning reached a team's main branch.
type Review struct {
	Path   string `json:"path"`
	Blob   string `json:"blob"`
	Commit string `json:"commit"` // the commit on main's first-parent line that brought it
	// Author is who promoted it, read from git: the author of the commit that first brought
	// it to main (of the side commit that added it, for a merge). The file's promoted_by,
	// which whoever pushes it writes, is not read.
	Author string `json:"author,omitempty"`
	// Reviewed: it reached main through a merge commit whose author wrote none of this
	// version, or through a commit that someone other than its author committed (a squash
	// or rebase merge). See reviewer.review.
	Reviewed bool   `json:"reviewed"`
	By       string `json:"by,omitempty"`     // who merged or committed it
	PR       string `json:"pr,omitempty"`     // "#42" (GitHub) or "!42" (GitLab), read from the commit message
	Branch   string `json:"branch,omitempty"` // the merged branch, when the message names one
	// Supersedes are the learnings this one replaces (its supersedes field), kept so that a
	// reviewed team learning can hide the personal one it replaces.
	Supersedes []string `json:"supersedes,omitempty"`
	Current    bool     `json:"current"`
}

const (
	reviewDir = "team/reviews"
	// tipFile names the cache's format: reviews computed by an older rule are computed again
	// (the tip of the old format is not read).
	tipFile = "team/reviews/tip.v2"
	// reviewLimit bounds the first-parent walk of a full recompute. Commits further back
	// leave their learnings unplaced, which reads as not reviewed: held back, never
	// injected on a guess.
	reviewLimit = 20_000
)

func reviewBucket(id string) string {
	if len(id) < 2 {
		return reviewDir + "/_.tsv"
	}
	return reviewDir + "/" + strings.ToLower(id[len(id)-2:]) + ".tsv"
}

// Of returns the review of learning id in team r, as last computed by Refresh. ok is false
// when the learning is not known to be on main, or when the cache is not at HEAD (a pull
// that did not go through reflect): both read as not reviewed.
func Of(r *gitstore.Repo, id string) (Review, bool) {
	tip, _ := r.ReadState(tipFile)
	head, err := r.Head()
	if err != nil || strings.TrimSpace(string(tip)) != head.String() {
		return Review{}, false
	}
	data, _ := r.ReadState(reviewBucket(id))
	return findReview(data, id)
}

// Reader looks reviews up for one recall: HEAD and the cache's tip are read once, each
// bucket at most once (a recall weighs up to a dozen learnings of each team).
type Reader struct {
	r       *gitstore.Repo
	fresh   bool
	buckets map[string][]byte
}

// NewReader returns a Reader of team r's reviews. When the cache is not at HEAD every
// lookup says not reviewed, as Of does.
func NewReader(r *gitstore.Repo) *Reader {
	return &Reader{r: r, fresh: Fresh(r), buckets: map[string][]byte{}}
}

// Of is Of through the reader.
func (rd *Reader) Of(id string) (Review, bool) {
	if !rd.fresh {
		return Review{}, false
	}
	name := reviewBucket(id)
	data, ok := rd.buckets[name]
	if !ok {
		data, _ = rd.r.ReadState(name)
		rd.buckets[name] = data
	}
	return findReview(data, id)
}

// Fresh reports whether the reviews of r are computed for its HEAD.
func Fresh(r *gitstore.Repo) bool {
	tip, _ := r.ReadState(tipFile)
	head, err := r.Head()
	return err == nil && strings.TrimSpace(string(tip)) == head.String()
}

// A bucket is lines of tab-separated fields, one review a line, sorted by id: a lookup finds
// its line and splits it alone. With JSON buckets a recall spent 0.6 ms a team decoding the
// dozen buckets its hits fall in, a fifth of a team's share.
var reviewFields = []string{"id", "reviewed", "author", "by", "pr", "branch", "commit", "path", "blob"}

func reviewLine(id string, rv Review) string {
	reviewed := "0"
	if rv.Reviewed {
		reviewed = "1"
	}
	f := []string{id, reviewed, rv.Author, rv.By, rv.PR, rv.Branch, rv.Commit, rv.Path, rv.Blob}
	for i := range f {
		f[i] = strings.Map(func(c rune) rune {
			if c == '\t' || c == '\n' || c == '\r' {
				return ' '
			}
			return c
		}, f[i])
	}
	return strings.Join(f, "\t") + "\n"
}

func parseReview(line string) (string, Review, bool) {
	f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
	if len(f) != len(reviewFields) {
		return "", Review{}, false
	}
	return f[0], Review{Reviewed: f[1] == "1", Author: f[2], By: f[3], PR: f[4], Branch: f[5], Commit: f[6], Path: f[7], Blob: f[8]}, true
}

// findReview finds id's line in a bucket.
func findReview(data []byte, id string) (Review, bool) {
	text := string(data)
	for at := 0; at < len(text); {
		i := strings.Index(text[at:], id+"\t")
		if i < 0 {
			break
		}
		i += at
		if i == 0 || text[i-1] == '\n' {
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			if _, rv, ok := parseReview(text[i : i+end]); ok {
				return rv, true
			}
		}
		at = i + 1
	}
	return Review{}, false
}

func readReviews(r *gitstore.Repo, name string) map[string]Review {
	m := map[string]Review{}
	data, _ := r.ReadState(name)
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if id, rv, ok := parseReview(line); ok {
			m[id] = rv
		}
	}
	return m
}

func writeReviews(r *gitstore.Repo, name string, m map[string]Review) error {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(reviewLine(id, m[id]))
	}
	return r.WriteVolatileState(name, []byte(b.String()))
}

// RefreshResult says what Refresh read.
type RefreshResult struct {
	Commits int  `json:"commits"` // first-parent commits read
	Full    bool `json:"full"`    // recomputed from scratch (first time, or a rewritten main)
	Changed int  `json:"changed"` // learnings whose review was written
}

// The cache is written without fsyncs (WriteVolatileState), buckets first and the tip last:
// it is rebuilt from git whenever its tip is not HEAD, a crash can only leave an older tip
// (a recompute, or learnings held back until the next team sync), and a first computation at
// 10,000 learnings writes ~1,000 buckets, which took seconds with two fsyncs each.
//
// Refresh brings the review cache of team r up to HEAD: it walks main's first-parent line
// back from HEAD to the commit the cache was computed for (all the way, at most
// reviewLimit commits, when that one is not on it) and, in each commit, reads only the
// learnings it changed against its first parent. limit, when positive, bounds the commits
// read (a hook's budget): past it, or when the cache must be computed from scratch, nothing
// is written and the cache stays at its old tip.
func Refresh(r *gitstore.Repo, limit int) (*RefreshResult, error) {
	head, err := r.Head()
	if err != nil {
		return nil, err
	}
	res := &RefreshResult{}
	tipData, _ := r.ReadState(tipFile)
	tip := plumbing.NewHash(strings.TrimSpace(string(tipData)))
	if head == tip && !head.IsZero() {
		return res, nil
	}
	s := filesystem.NewStorage(osfs.New(r.GitDir()), cache.NewObjectLRUDefault())
	defer s.Close()
	var line []*object.Commit // newest first
	for c := head; !c.IsZero() && c != tip; {
		if len(line) >= reviewLimit || limit > 0 && len(line) >= limit {
			if limit > 0 {
				return res, nil
			}
			break
		}
		co, err := object.GetCommit(s, c)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", c, err)
		}
		line = append(line, co)
		if len(co.ParentHashes) == 0 {
			break
		}
		c = co.ParentHashes[0]
	}
	res.Commits = len(line)
	reached := len(line) > 0 && len(line[len(line)-1].ParentHashes) > 0 && line[len(line)-1].ParentHashes[0] == tip
	res.Full = tip.IsZero() || !reached
	if res.Full && limit > 0 {
		// a recompute reads every learning: a command's work (team sync), never a hook's
		return res, nil
	}
	if limit > 0 && slices.ContainsFunc(line, func(c *object.Commit) bool { return len(c.ParentHashes) > 1 }) {
		// so is a merge's: its side branch is walked (up to sideLimit commits) to learn who
		// wrote what it brought; the team sync a session start sets going reads it
		return res, nil
	}
	rw := &reviewer{r: r, s: s, merges: map[plumbing.Hash]*merged{}, local: notOnRemote(r, s, line)}
	changed := map[string]*Review{} // id → new review; nil: gone from main
	for i := len(line) - 1; i >= 0; i-- {
		c := line[i]
		var parentTree plumbing.Hash
		if len(c.ParentHashes) > 0 {
			if parentTree, err = r.TreeOf(c.ParentHashes[0], ""); err != nil {
				return nil, err
			}
		}
		diff, err := r.DiffTrees(parentTree, c.TreeHash, "")
		if err != nil {
			return nil, err
		}
		for _, ch := range diff {
			id, ok := learnings.IDFromPath(ch.Path)
			if !ok || !strings.HasPrefix(ch.Path, learnings.Dir+"/") {
				continue
			}
			if ch.To.IsZero() {
				changed[id] = nil
				continue
			}
			prev := changed[id]
			if prev == nil && !res.Full {
				if old, ok := readReviews(r, reviewBucket(id))[id]; ok {
					prev = &old
				}
			}
			rv := rw.review(c, ch, prev)
			changed[id] = &rv
		}
	}
	if res.Full {
		if err := os.RemoveAll(filepath.Join(r.StateDir(), reviewDir)); err != nil {
			return nil, err
		}
	}
	byBucket := map[string][]string{}
	for id := range changed {
		byBucket[reviewBucket(id)] = append(byBucket[reviewBucket(id)], id)
	}
	names := make([]string, 0, len(byBucket))
	for n := range byBucket {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		m := readReviews(r, name)
		for _, id := range byBucket[name] {
			if rv := changed[id]; rv == nil {
				delete(m, id)
			} else {
				m[id] = *rv
				res.Changed++
			}
		}
		if err := writeReviews(r, name, m); err != nil {
			return nil, err
		}
	}
	if err := saveSupersedes(r, changed); err != nil {
		return nil, err
	}
	return res, r.WriteVolatileState(tipFile, []byte(head.String()+"\n"))
}

// notOnRemote finds the commits of line (main's first-parent line, newest first) that the
// remote's main, as last fetched, does not hold. A team sync leaves HEAD at the remote's main,
// so there are none unless someone committed in the clone's folder; such a commit, a merge
// of this user's above all, is no one's review.
func notOnRemote(r *gitstore.Repo, s *filesystem.Storage, line []*object.Commit) map[plumbing.Hash]bool {
	tracking, err := r.Ref("refs/remotes/origin/main")
	if err != nil || tracking.IsZero() {
		return nil
	}
	tc, err := object.GetCommit(s, tracking)
	if err != nil {
		return nil
	}
	local := map[plumbing.Hash]bool{}
	for _, c := range line {
		if c.Hash == tracking {
			break
		}
		if ok, err := c.IsAncestor(tc); err == nil && ok {
			break
		}
		local[c.Hash] = true
	}
	return local
}

const supersedesFile = reviewDir + "/supersedes.json"

// saveSupersedes keeps the map from a learning to the reviewed, current team learning that
// replaces it, for the reviews that changed (the file is small: only replacements are in it).
func saveSupersedes(r *gitstore.Repo, changed map[string]*Review) error {
	m := Superseded(r)
	for old, by := range m {
		if _, ok := changed[by]; ok {
			delete(m, old)
		}
	}
	for id, rv := range changed {
		if rv != nil && rv.Reviewed && rv.Current {
			for _, old := range rv.Supersedes {
				m[old] = id
			}
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return r.WriteVolatileState(supersedesFile, data)
}

// Superseded maps each learning a reviewed, current learning of team r replaces to that
// learning's id.
func Superseded(r *gitstore.Repo) map[string]string {
	m := map[string]string{}
	if data, err := r.ReadState(supersedesFile); err == nil && len(data) > 0 {
		json.Unmarshal(data, &m)
	}
	return m
}

var (
	prNumber    = lazyregexp.New(`(?:[Pp]ull request #|\(#)([0-9]{1,9})\b`)
	mrNumber    = lazyregexp.New(`[Mm]erge request [^\s!]*!([0-9]{1,9})\b`)
	mergedRef   = lazyregexp.New(`Merge (?:remote-tracking )?branch '([A-Za-z0-9._/-]{1,200})'|Merge pull request #[0-9]+ from [A-Za-z0-9._-]+/([A-Za-z0-9._/-]{1,200})`)
	promotedRef = lazyregexp.New(`(?m)^promoted_by:[ \t]*(.*)$`)
	emailIn     = lazyregexp.New(`<([^<>\s]{1,200})>`)
)

// reviewer decides the reviews of one Refresh: it reads each merge's side once.
type reviewer struct {
	r      *gitstore.Repo
	s      *filesystem.Storage
	merges map[plumbing.Hash]*merged
	// local are the commits on the line the remote's main does not hold (a team clone never
	// commits, but a person may in its folder): they review nothing.
	local map[plumbing.Hash]bool
}

// review decides how the change ch, on main's first-parent line in commit c, got there.
// prev is the review of the learning's earlier version on main, if any: who promoted a
// learning is who first brought it, not whoever edited it since. Who wrote and who reviewed
// are read from git alone; the file's promoted_by, which whoever pushes it writes, decides
// nothing.
//
// A merge reviews the change when its author wrote none of it: not on the side commits that
// added or changed the file, nor in the merge itself. A merge reflect's sync made
// (gitstore.SyncMergeSubject) reviews nothing: no one read what it brought in. A plain commit
// reviews the change when someone other than its author committed it (a squash or rebase
// merge of a pull request, a cherry-pick by a reviewer): a learning pushed straight to main
// by the one who wrote it, new or an edit of someone else's, is not reviewed.
func (rw *reviewer) review(c *object.Commit, ch gitstore.Change, prev *Review) Review {
	rv := Review{Path: ch.Path, Blob: ch.To.String(), Commit: c.Hash.String()}
	blob, _ := rw.r.ReadBlob(ch.To)
	if l, err := learnings.Parse(ch.Path, blob); err == nil {
		rv.Supersedes = l.Supersedes
		rv.Current = l.Status == learnings.StatusCurrent
	}
	if prev != nil {
		rv.Author = prev.Author
	}
	author := strings.ToLower(c.Author.Email)
	if len(c.ParentHashes) >= 2 {
		m := rw.merges[c.Hash]
		if m == nil {
			m = mergedBy(rw.r, rw.s, c)
			rw.merges[c.Hash] = m
		}
		writers := m.writers[ch.Path]
		if rv.Author == "" {
			rv.Author = m.adder[ch.Path]
		}
		if rv.Author == "" && len(writers) > 0 {
			rv.Author = writers[0]
		}
		if rv.Author == "" {
			rv.Author = author
		}
		if m.ok && len(writers) > 0 && author != "" && !slices.Contains(writers, author) &&
			!strings.HasPrefix(c.Message, gitstore.SyncMergeSubject) {
			rv.Reviewed, rv.By = true, author
		}
	} else {
		if rv.Author == "" {
			rv.Author = author
		}
		if who := strings.ToLower(c.Committer.Email); who != "" && who != author {
			rv.Reviewed, rv.By = true, who
		}
	}
	if rw.local[c.Hash] {
		rv.Reviewed, rv.By = false, ""
	}
	msg := c.Message
	if m := prNumber.FindStringSubmatch(msg); m != nil {
		rv.PR = "#" + m[1]
	} else if m := mrNumber.FindStringSubmatch(msg); m != nil {
		rv.PR = "!" + m[1]
	}
	if m := mergedRef.FindStringSubmatch(msg); m != nil {
		rv.Branch = m[1] + m[2]
	}
	return rv
}

// PromotedBy is the e-mail in a learning file's promoted_by field (lower case), or "". It is
// what the file claims, written by whoever pushed it: a label, never who promoted or reviewed
// it (review reads those from git).
func PromotedBy(file []byte) string {
	front := file
	if i := strings.Index(string(file), "\n---"); i > 0 {
		front = file[:i]
	}
	m := promotedRef.Regexp().FindSubmatch(front)
	if m == nil {
		return ""
	}
	v := strings.TrimSpace(string(m[1]))
	if e := emailIn.FindStringSubmatch(v); e != nil {
		v = e[1]
	}
	return strings.ToLower(strings.Trim(v, `"'`))
}
