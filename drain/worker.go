package drain

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/lockfile"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// ErrBusy means another drain holds the drain lock; this one did nothing.
var ErrBusy = lockfile.Busy("another drain is running")

// CommitError means a drain could not commit what it made of some entries (their learnings,
// or their move to queue/failed): those entries are still queued, and nothing of theirs
// was written. A full disk is not the extractor's fault, so no entry moves to failed/ for it.
type CommitError struct {
	Entries []string // the entries left queued
	Err     error    // why the first of them could not be committed
}

func (e *CommitError) Error() string {
	return fmt.Sprintf("drain: %s left queued: %v", plural(len(e.Entries), "entry", "entries"), e.Err)
}

func (e *CommitError) Unwrap() error { return e.Err }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Options shape one drain run.
type Options struct {
	// Extractor is the configured extractor; nil builds it from reflect.toml.
	Extractor Extractor
	// Max is the most entries this run takes (0: all).
	Max int
	// RetryWait is the first wait between attempts (doubling, at most a minute); 0:
	// reflect.toml's drain.retry_wait.
	RetryWait time.Duration
	Now       func() time.Time
	Log       *slog.Logger
	// LLM is passed to the claude, codex and command extractors built from reflect.toml.
	LLM LLMOptions
}

// EntryResult is what happened to one entry.
type EntryResult struct {
	ID         string   `json:"id"`
	Session    string   `json:"session"`
	Extractor  string   `json:"extractor"`
	Attempts   int      `json:"attempts"`
	Learned    []string `json:"learned,omitempty"`    // new learning ids
	Merged     []string `json:"merged,omitempty"`     // existing learnings seen again
	Superseded []string `json:"superseded,omitempty"` // existing learnings now superseded
	Failed     string   `json:"failed,omitempty"`     // why it moved to queue/failed
	// Uncommitted says why its commit failed: the entry is still queued, nothing was learned.
	Uncommitted string `json:"uncommitted,omitempty"`
	// Requeued says why it stays queued with nothing learned though its extraction ran: a
	// capture of its session rewrote it meanwhile, and the next drain reads the new version.
	Requeued string `json:"requeued,omitempty"`
	Note     string `json:"note,omitempty"`
	// NotMerged are existing learnings a proposal was named or looked a duplicate of but
	// differs from in substance ("lrn-…: why"); the proposal became a learning of its own.
	NotMerged []string `json:"not_merged,omitempty"`
	// Ungrounded are proposals of a model dropped because most of the precise terms they
	// name (commands, paths, identifiers) appear nowhere in the session ("title: terms").
	Ungrounded []string `json:"ungrounded,omitempty"`
	// Handoff says what became of the handoff summary the model was asked to rewrite: the
	// path rewritten, or why the capture's lines stayed. Empty when none was asked for.
	Handoff string `json:"handoff,omitempty"`
}

// Report is what a drain run did.
type Report struct {
	Started   time.Time     `json:"started"`
	Finished  time.Time     `json:"finished"`
	Extractor string        `json:"extractor"`
	Entries   []EntryResult `json:"entries"`
	Drained   int           `json:"drained"`
	Failed    int           `json:"failed"`
	// Uncommitted entries could not be committed and are still queued (Run's CommitError).
	Uncommitted int `json:"uncommitted"`
	Learned     int `json:"learned"`
	Merged      int `json:"merged"`
	Remaining   int `json:"remaining"`
	// Stopped says why the run ended with entries left ("daily cap …", "interrupted").
	Stopped string `json:"stopped,omitempty"`
}

// FromConfig builds the extractor reflect.toml names.
func FromConfig(c config.Drain, o LLMOptions) Extractor {
	if o.Timeout == 0 {
		o.Timeout = c.Timeout.Std()
	}
	if o.Model == "" {
		o.Model = c.Model
	}
	switch {
	case c.Extractor == "auto":
		return Auto(o)
	case c.Extractor == "claude":
		return Claude(o)
	case c.Extractor == "codex":
		return Codex(o)
	case strings.HasPrefix(c.Extractor, "command:"):
		return Command(strings.TrimPrefix(c.Extractor, "command:"), o)
	case strings.HasPrefix(c.Extractor, "openai:"):
		if o.KeyEnv == "" {
			o.KeyEnv = c.KeyEnv
		}
		return OpenAI(strings.TrimPrefix(c.Extractor, "openai:"), o)
	}
	return Heuristic()
}

// Run drains the queue: oldest entry first, under the drain lock (a second drain returns
// ErrBusy at once), one commit per entry holding its new learnings and the entry's removal
// (or its move to queue/failed), then brings the index up to date. When a commit fails the
// entry stays queued and Run returns the report with a *CommitError; a disk that refuses
// writes or a repository that stays locked ends the run there.
func Run(ctx context.Context, r *gitstore.Repo, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	cfg := r.Config().Drain
	if o.RetryWait <= 0 {
		o.RetryWait = cfg.RetryWait.Std()
	}
	if o.Extractor == nil {
		o.Extractor = FromConfig(cfg, o.LLM)
	}
	unlock, err := lockfile.Take(ctx, filepath.Join(r.StateDir(), "locks", "drain"), 0)
	if errors.Is(err, lockfile.ErrHeld) {
		return nil, ErrBusy
	} else if err != nil {
		return nil, err
	}
	defer unlock()

	rep := &Report{Started: o.Now().UTC(), Extractor: o.Extractor.Name()}
	items, bad, err := queue.List(r)
	if err != nil {
		return nil, err
	}
	for _, e := range bad {
		o.Log.Warn("unreadable queue entry left in place", "err", e)
	}
	var pending []queue.Item
	for _, it := range items {
		if !it.Failed {
			pending = append(pending, it)
		}
	}
	w := &worker{r: r, o: o, cfg: cfg, heuristic: Heuristic()}
	var uncommitted *CommitError
	for i, it := range pending {
		if o.Max > 0 && i >= o.Max {
			break
		}
		if ctx.Err() != nil {
			rep.Stopped = "interrupted"
			break
		}
		res, stop, cerr := w.entry(ctx, it)
		if stop != "" {
			rep.Stopped = stop
			break
		}
		if cerr != nil {
			res.Learned, res.Merged, res.Superseded, res.Failed = nil, nil, nil, ""
			res.Uncommitted = cerr.Error()
			rep.Entries = append(rep.Entries, res)
			rep.Uncommitted++
			o.Log.Info("drain could not commit an entry; it stays queued", "entry", res.ID, "err", cerr)
			if uncommitted == nil {
				uncommitted = &CommitError{Err: cerr}
			}
			uncommitted.Entries = append(uncommitted.Entries, res.ID)
			// every later entry would fail the same way
			if errors.As(cerr, new(*gitstore.WriteError)) {
				rep.Stopped = "the repository's disk refused a write"
				break
			}
			if errors.Is(cerr, gitstore.ErrLocked) {
				rep.Stopped = "the repository stayed locked"
				break
			}
			continue
		}
		rep.Entries = append(rep.Entries, res)
		switch {
		case res.Requeued != "":
		case res.Failed != "":
			rep.Failed++
		default:
			rep.Drained++
		}
		rep.Learned += len(res.Learned)
		rep.Merged += len(res.Merged)
	}
	rep.Remaining = len(pending) - rep.Drained - rep.Failed
	rep.Finished = o.Now().UTC()
	if data, err := json.Marshal(rep); err == nil {
		r.WriteState(lastDrainFile, data)
	}
	if rep.Drained > 0 {
		if err := index.CatchUp(ctx, r); err != nil {
			o.Log.Warn("index catch-up after drain", "err", err)
		}
	}
	if uncommitted != nil {
		return rep, uncommitted
	}
	return rep, nil
}

type worker struct {
	r         *gitstore.Repo
	o         Options
	cfg       config.Drain
	heuristic Extractor
}

// entry drains one entry; a non-empty stop ends the run with the entry left queued, and so
// does a commit error (the entry's learnings, or its move to failed/, could not be written).
func (w *worker) entry(ctx context.Context, it queue.Item) (EntryResult, string, error) {
	e := it.Entry
	res := EntryResult{ID: e.ID, Session: e.Session}
	ext := w.o.Extractor
	chosen, isAuto := ext.(resolver)
	if isAuto {
		ext = chosen.For(e.Harness)
	}
	if ext.LLM() {
		if p := drainstate.Paused(w.r); p != nil {
			ext, res.Note = w.heuristic, "LLM paused: "+p.Reason
		} else if why := w.capped(); why != "" {
			if !isAuto {
				return res, why, nil // the user chose a model: its entries wait for tomorrow
			}
			ext, res.Note = w.heuristic, why
		}
	}
	existing, paths := candidates(ctx, w.r, e)
	proj := openProject(w.r, e)
	defer proj.Close()
	existing = touched(w.r, proj, e, existing, paths)
	markStale(w.r, proj, existing, paths)
	in := Input{Entry: e, Existing: existing}
	other := w.otherAuthor(it)
	if ext.LLM() && other == nil {
		// another author's capture never rewrites a handoff: the rewrite is this machine's
		// commit of what their digest says, and a session start injects handoffs as they are
		in.Handoff = w.handoffSummary(e)
	}
	res.Extractor = ext.Name()
	answer, attempts, err := w.extract(ctx, ext, in)
	props := answer.Learnings
	res.Attempts = attempts
	switch {
	case errors.Is(err, ErrPause):
		reason := err.Error()
		w.o.Log.Warn("LLM draining paused", "extractor", ext.Name(), "reason", reason)
		drainstate.SetPause(w.r, drainstate.Pause{Since: w.o.Now().UTC(), Extractor: ext.Name(), Reason: reason})
		ext, res.Extractor, res.Note = w.heuristic, w.heuristic.Name(), "LLM paused: "+reason
		var a Reply
		a, _, err = safeReply(ctx, ext, in)
		props = a.Learnings
		answer, in.Handoff = Reply{}, nil
	case errors.Is(err, errCapped):
		return res, err.Error(), nil
	case ctx.Err() != nil:
		return res, "interrupted", nil
	}
	if err != nil {
		res.Failed = redact.String(err.Error()) // it may quote the extractor's output
		_, cerr := w.r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
			res.Requeued = ""
			data, err := tx.Read(it.Path)
			if err != nil {
				return "", nil // gone meanwhile (drained elsewhere and synced)
			}
			if it.Changed(data) {
				// the failure was of a version a capture has replaced: the new one, which
				// holds more of the session, is tried afresh (queue/failed would keep the old)
				res.Requeued = rewritten
				return "", nil
			}
			if err := queue.FailTx(tx, e, res.Failed, attempts, w.o.Now()); err != nil {
				return "", err
			}
			if other != nil {
				authoredBy(tx, other) // the entry stays theirs on a clone that first sees it in queue/failed
			}
			return fmt.Sprintf("drain: %s failed after %d attempts (%s session %s): %s", e.ID, attempts, e.Harness, queue.Short(e.Session), queue.Clip(res.Failed, 120)), nil
		})
		if cerr != nil {
			return res, "", fmt.Errorf("move %s to queue/failed (its extraction failed: %s): %w", e.ID, res.Failed, cerr)
		}
		if res.Requeued != "" {
			res.Note, res.Failed = "its extraction failed: "+res.Failed, ""
		}
		return res, "", nil
	}
	if ext.LLM() {
		props = dropUngrounded(props, e, &res)
	}
	anchorProposals(proj, e, props)
	var summary *handoff.Summary
	if in.Handoff != nil {
		summary = answer.Handoff
		if summary == nil {
			res.Handoff = "kept the capture's summary: " + cmp.Or(answer.HandoffNote, "the answer has none")
		} else if ok, missing := summaryGrounded(*summary, *in.Handoff, e); !ok {
			summary = nil
			res.Handoff = "kept the capture's summary: the model's names what the session does not show (" + strings.Join(missing[:min(len(missing), 4)], ", ") + ")"
		}
	}
	if err := w.apply(ctx, it, ext.Name(), props, summary, paths, other, &res); err != nil {
		return res, "", fmt.Errorf("commit what %s made of %s: %w", ext.Name(), e.ID, err)
	}
	return res, "", nil
}

// handoffSummary is the summary of the handoff the entry's latest capture wrote, when it is
// still the project and branch's current one (handoff.Current) and handoffs are on: the
// model is asked to rewrite it. nil otherwise: a newer session's handoff is not offered.
func (w *worker) handoffSummary(e *queue.Entry) *handoff.Summary {
	if !w.r.Config().Handoff.Enabled || e.Project == "" || e.Project == learnings.Global || e.Session == "" {
		return nil
	}
	h, _, err := handoff.Read(w.r, e.Project, e.Branch)
	if err != nil || h == nil {
		return nil
	}
	if ok, _ := handoff.Current(h, handoffCapture(e)); !ok {
		return nil
	}
	s := handoff.SummaryOf(h)
	return &s
}

// summaryGrounded holds a rewritten summary to the grounding check of a model's learnings
// (grounded): the precise terms it names must mostly stand in the entry's digest or in the
// lines it rewrites (the task may come from an earlier capture of the session).
func summaryGrounded(s, was handoff.Summary, e *queue.Entry) (bool, []string) {
	shown := digestText(e) + squash(was.Task+"\n"+was.Direction+"\n"+was.Concluded) + " "
	return grounded(Proposal{Title: s.Task, Body: s.Direction + "\n" + s.Concluded}, shown)
}

func handoffCapture(e *queue.Entry) handoff.Capture {
	return handoff.Capture{Project: e.Project, Branch: e.Branch, Harness: e.Harness, Session: e.Session, Updated: e.Updated}
}

var errCapped = errors.New("daily cap")

// capped says why LLM draining must wait for tomorrow, or "".
func (w *worker) capped() string {
	if why := drainstate.CapReached(w.cfg, drainstate.UsageOn(w.r, w.o.Now())); why != "" {
		return "daily cap reached: " + why
	}
	return ""
}

// extract runs the extractor with retries: transient failures and unusable answers are
// tried again after a growing wait, up to drain.attempts; a pause is not retried.
func (w *worker) extract(ctx context.Context, ext Extractor, in Input) (Reply, int, error) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = w.o.RetryWait, time.Minute, 0
	attempts := 0
	var answer Reply
	op := func() error {
		if attempts > 0 && ext.LLM() {
			if why := w.capped(); why != "" {
				return backoff.Permanent(fmt.Errorf("%w: %s", errCapped, why))
			}
		}
		attempts++
		a, u, err := safeReply(ctx, ext, in)
		if u.Calls > 0 || u.InputTokens > 0 {
			drainstate.AddUsage(w.r, w.o.Now(), u.Calls, u.InputTokens)
		}
		if err != nil {
			w.o.Log.Info("extractor failed", "entry", in.Entry.ID, "extractor", ext.Name(), "attempt", attempts, "err", err)
			if errors.Is(err, ErrPause) || ctx.Err() != nil {
				return backoff.Permanent(err)
			}
			return err
		}
		answer = a
		return nil
	}
	err := backoff.Retry(op, backoff.WithContext(backoff.WithMaxRetries(b, uint64(max(0, w.cfg.Attempts-1))), ctx))
	return answer, attempts, err
}

// safeReply is reply, with a panic of the extractor (the heuristic reads any digest a sync
// brought) turned into a failure of this entry: it moves to queue/failed with the panic as
// its reason, and the drains after it go on with the next entries instead of dying on it.
func safeReply(ctx context.Context, ext Extractor, in Input) (a Reply, u Usage, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = backoff.Permanent(fmt.Errorf("%w: %s panicked: %v", ErrBadAnswer, ext.Name(), v))
		}
	}()
	return reply(ctx, ext, in)
}

// candidates are the learnings of the entry's project (and global ones) that its prompts
// bring up: what an extractor may say a lesson duplicates or supersedes.
func candidates(ctx context.Context, r *gitstore.Repo, e *queue.Entry) ([]Existing, map[string]string) {
	var text strings.Builder
	for _, n := range e.Digest.Notes {
		if n.Kind == queue.NotePrompt || n.Kind == queue.NoteFailure {
			text.WriteString(n.Text + " " + n.Input + "\n")
		}
	}
	terms := index.Analyze(text.String())
	if len(terms) > 48 {
		terms = terms[:48]
	}
	paths := map[string]string{}
	if len(terms) == 0 {
		return nil, paths
	}
	ix, err := index.Open(ctx, r, index.Options{LockTimeout: 2 * time.Second})
	if err != nil {
		return nil, paths
	}
	defer ix.Close()
	scope := []string{learnings.Global}
	if e.Project != "" && e.Project != learnings.Global {
		scope = append(scope, e.Project)
	}
	res, err := ix.Search(ctx, index.Query{Terms: terms, Projects: scope, Limit: 12})
	if err != nil {
		return nil, paths
	}
	var out []Existing
	for _, h := range res.Hits {
		out = append(out, Existing{ID: h.ID, Title: h.Title, Kind: h.Kind, Body: queue.Clip(h.Body, 400)})
		paths[h.ID] = h.Path
	}
	return out, paths
}

// apply commits what an extraction found, with the entry's removal, as one commit; with
// summary, the model's rewrite of the summary lines of the handoff the entry's capture wrote
// (handoff.Rewrite: never its facts, never another capture's handoff).
//
// With other (the entry arrived from another author: otherAuthor), the commit is authored by
// them, so that every clone records its learnings as theirs (package provenance reads a
// version's author), and this machine records them before the commit lands; they neither
// supersede nor merge into a learning of this memory, which their commit would make theirs.
func (w *worker) apply(ctx context.Context, it queue.Item, extractor string, props []Proposal, summary *handoff.Summary, paths map[string]string, other *provenance.Record, res *EntryResult) error {
	e := it.Entry
	now := w.o.Now()
	host, _ := os.Hostname()
	for i := range props {
		props[i].redact()
	}
	var rewrote handoff.Written
	handoffWas := res.Handoff
	// The rewrite keeps the capture's facts, so it is recorded as written here only when the
	// handoff it rewrites was: one that arrived from a remote stays another machine's.
	wasHere := false
	if summary != nil {
		if _, blob, err := handoff.Read(w.r, e.Project, e.Branch); err == nil {
			wasHere = handoff.OriginOf(w.r, handoff.Path(e.Project, e.Branch), blob).Here
		}
	}
	_, err := w.r.Update(ctx, func(tx *gitstore.Tx) (string, error) {
		res.Learned, res.Merged, res.Superseded, res.NotMerged = nil, nil, nil, nil // fn may run again
		wrote := map[string][]byte{}                                                // each new learning's content by its path, for its provenance record
		rewrote, res.Handoff = handoff.Written{}, handoffWas
		res.Requeued = ""
		data, err := tx.Read(it.Path)
		if err != nil {
			res.Note = "gone from the queue meanwhile"
			return "", nil
		}
		if it.Changed(data) {
			// deleting it would lose the turns the rewrite added, which the extractor never
			// read; the next drain reads the whole session again, once
			res.Requeued = rewritten
			return "", nil
		}
		var made []*learnings.Learning
		for _, p := range props {
			project := e.Project
			if p.Global || project == "" {
				project = learnings.Global
			}
			// the same lesson twice in one entry
			if slices.ContainsFunc(made, func(l *learnings.Learning) bool {
				if !sameLesson(l.Title, p.Title) {
					return false
				}
				same, _ := sameSubstance(lesson{Title: l.Title, Body: l.Body}, p.lesson())
				return same
			}) {
				continue
			}
			// or one the project already has: another author's is theirs to say again, not to
			// write into this memory's learning (their commit would make it theirs)
			if other != nil {
				if w.duplicates(tx, p, paths) {
					continue
				}
			} else if id, ok := w.merge(tx, p, paths, e, now, res); ok {
				res.Merged = append(res.Merged, id)
				continue
			}
			l := learnings.New(strings.TrimSpace(p.Title), project, now)
			l.Kind, _ = learnings.ParseKind(p.Kind)
			l.Confidence, _ = learnings.ParseConfidence(p.Confidence)
			if l.Kind == "" {
				l.Kind = learnings.KindRule
			}
			if l.Confidence == "" {
				l.Confidence = learnings.ConfidenceMedium
			}
			l.Tags, l.Entities, l.Triggers, l.Body = p.Tags, p.Entities, p.Triggers, strings.TrimSpace(p.Body)+"\n"
			l.Source = learnings.Source{Harness: e.Harness, Session: e.Session, Trigger: e.Trigger,
				Machine: e.Machine, Commit: e.Commit, Files: p.Files}
			if l.Source.Machine == "" {
				l.Source.Machine = host
			}
			l.SetAnchors(p.anchors)
			if err := l.Validate(); err != nil {
				w.o.Log.Warn("proposal dropped", "entry", e.ID, "title", p.Title, "err", err)
				continue
			}
			// A capture of this user's may retire another author's unreviewed learning: the
			// version that commit makes is this user's, but superseded, and nothing injects or
			// lists a superseded learning as current (recall, memory_search, agents-md and
			// promotion take current ones; sync's merge keeps superseded over a concurrent
			// edit); only an edit, which is a review, makes it current again.
			for _, old := range p.Supersedes {
				if other != nil {
					break // another author's capture does not retire this memory's learnings
				}
				path, ok := paths[old]
				if !ok {
					continue
				}
				raw, err := tx.Read(path)
				if err != nil {
					continue
				}
				ol, err := learnings.Parse(path, raw)
				if err != nil {
					continue
				}
				if changed, err := learnings.Supersede(ol, l, now); err != nil || !changed {
					continue
				}
				data, err := ol.Render()
				if err != nil {
					return "", err
				}
				tx.Write(path, data)
				res.Superseded = append(res.Superseded, old)
				res.NotMerged = slices.DeleteFunc(res.NotMerged, func(s string) bool { return strings.HasPrefix(s, old+":") })
			}
			data, err := l.Render()
			if err != nil {
				return "", err
			}
			tx.Write(l.RelPath(), data)
			wrote[l.RelPath()] = data
			made = append(made, l)
			res.Learned = append(res.Learned, l.ID)
		}
		if summary != nil {
			hw, err := handoff.Rewrite(tx, handoffCapture(e), *summary, extractor)
			switch {
			case err != nil:
				// the learnings go on without it: the capture's summary stays
				w.o.Log.Warn("handoff summary not rewritten", "entry", e.ID, "err", err)
				res.Handoff = "kept the capture's summary: " + err.Error()
			case hw.Path == "":
				res.Handoff = "kept the capture's summary: " + hw.Skipped
			default:
				rewrote, res.Handoff = hw, hw.Path
			}
		}
		tx.Delete(it.Path)
		if other != nil {
			authoredBy(tx, other)
			if err := saveOthers(w.r, other, wrote); err != nil {
				// without the records this machine would take them for the user's own
				return "", fmt.Errorf("record who wrote the capture: %w", err)
			}
		}
		msg := commitMessage(e, extractor, made, res)
		if rewrote.Path != "" {
			msg += fmt.Sprintf("\n\nhandoff: the summary of %s rewritten by %s", rewrote.Path, extractor)
		}
		return msg, nil
	})
	if err == nil && rewrote.Path != "" && wasHere {
		if rerr := handoff.RecordWritten(w.r, rewrote.Path, rewrote.Blob); rerr != nil {
			w.o.Log.Warn("record the handoff written here", "err", rerr)
		}
	}
	return err
}

// authoredBy makes the commit of tx other's, as their capture was.
func authoredBy(tx *gitstore.Tx, other *provenance.Record) {
	tx.AuthoredBy(cmp.Or(other.Author, "unknown"), cmp.Or(other.Email, provenance.UnknownAuthor))
}

// saveOthers records the learnings wrote (contents by path) as other's: before the commit
// that writes them, as a sync records what arrives before it lands (a record of an id that
// never lands is harmless; a learning without one would pass as this user's own).
func saveOthers(r *gitstore.Repo, other *provenance.Record, wrote map[string][]byte) error {
	if len(wrote) == 0 {
		return nil
	}
	recs := map[string]provenance.Record{}
	for path, data := range wrote {
		id, _ := learnings.IDFromPath(path)
		rec := *other
		rec.Path, rec.Blob = path, plumbing.ComputeHash(plumbing.BlobObject, data).String()
		recs[id] = rec
	}
	return provenance.Save(r, recs)
}

// duplicates says whether p is a lesson a learning of paths already holds (as merge would
// find it), without writing anything.
func (w *worker) duplicates(tx *gitstore.Tx, p Proposal, paths map[string]string) bool {
	for id, path := range paths {
		l, ok := namedAlike(tx, id, path, p)
		if !ok {
			continue
		}
		if same, _ := sameSubstance(lesson{Title: l.Title, Body: l.Body}, p.lesson()); same {
			return true
		}
	}
	return false
}

// namedAlike reads learning id at path when it is current and p names it as its duplicate or
// says the same lesson in its title: the ones whose substance merge and duplicates compare.
func namedAlike(tx *gitstore.Tx, id, path string, p Proposal) (*learnings.Learning, bool) {
	raw, err := tx.Read(path)
	if err != nil {
		return nil, false
	}
	l, err := learnings.Parse(path, raw)
	if err != nil || l.Status != learnings.StatusCurrent || id != p.DuplicateOf && !sameLesson(l.Title, p.Title) {
		return nil, false
	}
	return l, true
}

// otherAuthor is the provenance of what the drain makes of it when the entry arrived by sync
// from another author (sync records who pushed a queue entry as it does a learning), nil when
// it was captured here or by this user elsewhere. Drained here, its learnings would otherwise
// pass as this user's own: a "remember: …" prompt in a pushed entry became a high-confidence
// learning recall injected as the user's note.
func (w *worker) otherAuthor(it queue.Item) *provenance.Record {
	rec, ok := provenance.OtherAuthor(w.r, it.Entry.ID)
	if !ok {
		return nil
	}
	rec.Reviewed, rec.Machine, rec.Arrived = "", it.Entry.Machine, w.o.Now().UTC()
	return &rec
}

// notReviewed is why a duplicate another author wrote is not merged (see merge).
const notReviewed = "another author's learning, not reviewed: the lesson is kept as this user's own"

// rewritten is why an entry whose file changed during its extraction stays queued.
const rewritten = "a capture of its session rewrote it while it was extracted: left queued for the next drain"

func commitMessage(e *queue.Entry, extractor string, made []*learnings.Learning, res *EntryResult) string {
	from := fmt.Sprintf("%s session %s, %s", e.Harness, queue.Short(e.Session), extractor)
	var b strings.Builder
	switch {
	case len(made) == 0 && len(res.Merged) == 0 && len(res.Ungrounded) == 0:
		return fmt.Sprintf("drain: nothing new in %s", from)
	case len(made) == 0 && len(res.Merged) == 0:
		fmt.Fprintf(&b, "drain: nothing new in %s\n", from)
	case len(made) == 1 && len(res.Merged) == 0:
		fmt.Fprintf(&b, "learn: %s (from %s)", made[0].Title, from)
		if len(res.Superseded) == 0 && len(res.NotMerged) == 0 {
			return b.String()
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(&b, "drain: %d new, %d seen again (from %s)\n", len(made), len(res.Merged), from)
		for _, l := range made {
			fmt.Fprintf(&b, "\n+ %s %s", l.ID, l.Title)
		}
	}
	for _, id := range res.Merged {
		fmt.Fprintf(&b, "\n= %s seen again", id)
	}
	for _, id := range res.Superseded {
		fmt.Fprintf(&b, "\n~ %s superseded", id)
	}
	for _, s := range res.NotMerged {
		id, why, _ := strings.Cut(s, ": ")
		fmt.Fprintf(&b, "\n! %s not merged, kept beside the new learning: %s", id, why)
	}
	for _, s := range res.Ungrounded {
		fmt.Fprintf(&b, "\n- dropped, not in the session: %s", s)
	}
	return b.String()
}

// dropUngrounded keeps the proposals of a model that are grounded in the entry's digest
// (see grounded) and are lessons, not the session told again (see narrates), and lists the
// others in res.
func dropUngrounded(props []Proposal, e *queue.Entry, res *EntryResult) []Proposal {
	digest := digestText(e)
	kept := props[:0:0]
	for _, p := range props {
		if narrates(p.Title) {
			res.Ungrounded = append(res.Ungrounded, fmt.Sprintf("%s (what the session did, not a lesson)", queue.Clip(p.Title, 80)))
			continue
		}
		if ok, missing := grounded(p, digest); !ok {
			res.Ungrounded = append(res.Ungrounded, fmt.Sprintf("%s (%s)", queue.Clip(p.Title, 80), strings.Join(missing[:min(len(missing), 4)], ", ")))
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// sameLesson: two titles with the same words, give or take a fifth of them.
func sameLesson(a, b string) bool {
	wa, wb := index.Analyze(a), index.Analyze(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	common := 0
	for _, x := range wa {
		if slices.Contains(wb, x) {
			common++
		}
	}
	union := len(wa) + len(wb) - common
	return float64(common)/float64(union) >= 0.8
}

// merge finds the existing learning p duplicates and says the same as (the one the
// extractor named, else a current candidate whose title says what p's says) and counts it
// seen again. A learning p was taken for a duplicate of but differs from in substance, or
// that another author wrote and nobody reviewed (provenance.Unreviewed), is listed in
// res.NotMerged: p is then a learning of its own, or supersedes it when the extractor says
// so.
func (w *worker) merge(tx *gitstore.Tx, p Proposal, paths map[string]string, e *queue.Entry, now time.Time, res *EntryResult) (string, bool) {
	var ids []string
	if _, ok := paths[p.DuplicateOf]; ok {
		ids = append(ids, p.DuplicateOf)
	}
	for _, id := range slices.Sorted(maps.Keys(paths)) {
		if id != p.DuplicateOf {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		path := paths[id]
		l, ok := namedAlike(tx, id, path, p)
		if !ok {
			continue
		}
		same, why := sameSubstance(lesson{Title: l.Title, Body: l.Body}, p.lesson())
		if !same {
			w.o.Log.Info("not merged: differs in substance", "entry", e.ID, "learning", id, "title", p.Title, "why", why)
			res.NotMerged = append(res.NotMerged, id+": "+why)
			continue
		}
		if provenance.Unreviewed(w.r, id) {
			// counted seen again, its next version would be this user's commit, which every
			// other clone (and a fresh one) takes for this user's own learning, injected
			// unreviewed: the user's lesson is kept as their own learning beside it
			w.o.Log.Info("not merged: another author's, not reviewed", "entry", e.ID, "learning", id, "title", p.Title)
			res.NotMerged = append(res.NotMerged, id+": "+notReviewed)
			continue
		}
		if err := seenAgain(tx, path, l, p, e, now); err != nil {
			continue
		}
		return id, true
	}
	return "", false
}

// seenAgain bumps an existing learning's seen count and merges what the new sighting adds
// (tags, entities, triggers, files, and its files' blobs now), in place: the person's text and
// comments stay as they are.
func seenAgain(tx *gitstore.Tx, path string, l *learnings.Learning, p Proposal, e *queue.Entry, now time.Time) error {
	l.SeenAgain(now, learnings.Sighting{Tags: p.Tags, Entities: p.Entities, Triggers: p.Triggers, Files: p.Files})
	if len(p.anchors) > 0 {
		// the same lesson held again on the code as it is now: its files are anchored anew
		l.Anchors = learnings.MergeAnchors(anchorStrings(p.anchors), l.Anchors, true)
		l.Source.Commit = e.Commit
	}
	data, err := l.Render()
	if err != nil {
		return err
	}
	tx.Write(path, data)
	return nil
}
