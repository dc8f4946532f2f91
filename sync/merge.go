package sync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
)

// mergeFile merges one file changed on both sides since their merge base. base is nil when
// the file did not exist there. The result depends only on the three versions, never on
// which side is local, so every machine merging the same histories writes the same file.
// It never holds a conflict marker.
func mergeFile(path string, base, a, b []byte) []byte {
	switch {
	case bytes.Equal(a, b):
		return a
	case strings.HasPrefix(path, learnings.Dir+"/") && strings.HasSuffix(path, ".md"):
		if m, err := mergeLearning(path, base, a, b); err == nil {
			return m
		}
	case strings.HasPrefix(path, "queue/") && strings.HasSuffix(path, ".json"):
		return laterJSON(a, b)
	case strings.HasPrefix(path, handoff.Dir+"/") && strings.HasSuffix(path, ".md"):
		return handoff.Newer(a, b) // the later session's; the other stays in history
	}
	w, _ := order(a, b)
	return w
}

// order returns the two versions in a fixed order: the larger bytes first. It is how a
// tie is broken the same way on every machine.
func order(a, b []byte) (first, second []byte) {
	if bytes.Compare(a, b) >= 0 {
		return a, b
	}
	return b, a
}

// laterJSON keeps the queue entry updated last (then the larger bytes).
func laterJSON(a, b []byte) []byte {
	var ea, eb struct {
		Updated time.Time `json:"updated"`
	}
	ja, jb := json.Unmarshal(a, &ea), json.Unmarshal(b, &eb)
	switch {
	case ja == nil && jb == nil && ea.Updated.After(eb.Updated):
		return a
	case ja == nil && jb == nil && eb.Updated.After(ea.Updated):
		return b
	}
	w, _ := order(a, b)
	return w
}

// mergeLearning merges two edits of one learning field by field:
//   - a field only one side changed takes that side's value;
//   - a field both changed takes the value of the side updated last (then the larger file);
//   - tags, entities, triggers, files and supersedes are the union; so are anchors, by path,
//     a path both hold taking the blob of the side updated last;
//   - superseded wins over archived, archived over current; seen takes the larger count;
//     updated the later time;
//   - when both changed the body, both bodies are kept, the other one under a marked rule.
//
// The side updated last is the one rendered, so its comments and layout survive.
func mergeLearning(path string, base, a, b []byte) ([]byte, error) {
	la, erra := learnings.Parse(path, a)
	lb, errb := learnings.Parse(path, b)
	switch {
	case erra != nil && errb != nil:
		return nil, erra
	case erra != nil:
		return b, nil // the other side is not a learning at all: keep the valid one
	case errb != nil:
		return a, nil
	}
	w, o := la, lb
	if lb.Updated.After(la.Updated) || lb.Updated.Equal(la.Updated) && bytes.Compare(b, a) > 0 {
		w, o = lb, la
	}
	var lbase *learnings.Learning
	if base != nil {
		lbase, _ = learnings.Parse(path, base)
	}
	pick := func(wv, ov, bv string, hasBase bool) string {
		if hasBase && wv == bv && ov != bv {
			return ov // only the other side changed it
		}
		return wv
	}
	hb := lbase != nil
	var bt, bbody, bkind, bconf string
	if hb {
		bt, bbody, bkind, bconf = lbase.Title, lbase.Body, string(lbase.Kind), string(lbase.Confidence)
	}
	w.Title = pick(w.Title, o.Title, bt, hb)
	w.Kind = learnings.Kind(pick(string(w.Kind), string(o.Kind), bkind, hb))
	w.Confidence = learnings.Confidence(pick(string(w.Confidence), string(o.Confidence), bconf, hb))
	w.Tags = learnings.Union(w.Tags, o.Tags)
	w.Entities = learnings.Union(w.Entities, o.Entities)
	w.Triggers = learnings.Union(w.Triggers, o.Triggers)
	w.Source.Files = learnings.Union(w.Source.Files, o.Source.Files)
	w.Anchors = learnings.MergeAnchors(w.Anchors, o.Anchors, true) // per path, the side updated last
	w.Supersedes = learnings.Union(w.Supersedes, o.Supersedes)
	w.Seen = max(w.Seen, o.Seen)
	if o.Updated.After(w.Updated) {
		w.Updated = o.Updated
	}
	switch {
	case o.Status == learnings.StatusSuperseded && w.Status != learnings.StatusSuperseded:
		w.Status, w.SupersededBy = o.Status, o.SupersededBy
	case o.Status == learnings.StatusArchived && w.Status == learnings.StatusCurrent:
		w.Status = o.Status
	}
	wb, ob := strings.TrimSpace(w.Body), strings.TrimSpace(o.Body)
	switch {
	case wb == ob:
	case hb && wb == strings.TrimSpace(bbody):
		w.Body = o.Body
	case hb && ob == strings.TrimSpace(bbody):
	case strings.Contains(wb, ob):
		// one side already holds the other's text (an earlier merge)
	case strings.Contains(ob, wb):
		w.Body = o.Body
	default:
		w.Body = fmt.Sprintf("%s\n\n---\n\n_The same learning was also edited on another machine (%s); its text follows. reflect sync kept both._\n\n%s\n",
			wb, machineOf(o), ob)
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w.Render()
}

func machineOf(l *learnings.Learning) string {
	when := l.Updated.UTC().Format("2006-01-02 15:04")
	if l.Source.Machine != "" {
		return l.Source.Machine + ", " + when
	}
	return when
}
