// Package index is the bleve index of learnings: a cache of git that any command can delete.
//
// The index lives under .git/reflect/index/ as generations: CURRENT names the live one, a
// rebuild writes a new generation beside it and swaps CURRENT, so readers never see a
// half-built index. Each generation records the commit and the learnings/ tree it reflects;
// whoever opens it first catches up from that tree to HEAD's by a tree diff, so learnings
// that arrive by sync, by the git CLI or by a hand edit are searchable at once. Readers
// open read-only with a short lock timeout; when the index cannot be opened in time, or is
// missing or corrupt, searches fall back to scanning the learnings in git and say so. One
// code-aware analyzer (analyzer.go) cuts the text of the index, of a search and of a recall.
package index

import (
	"strings"
	"time"

	"github.com/reflect-memory/reflect/learnings"
)

// Doc is what the index holds of one learning: the fields it searches, filters on and
// returns without reading git again.
type Doc struct {
	Path       string    `json:"path"`
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Project    string    `json:"project"`
	Kind       string    `json:"kind"`
	Confidence string    `json:"confidence"`
	Status     string    `json:"status"`
	Tags       []string  `json:"tags,omitempty"`
	Entities   []string  `json:"entities,omitempty"`
	Triggers   []string  `json:"triggers,omitempty"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Seen       int       `json:"seen,omitempty"`
	Body       string    `json:"-"`
	// Anchors and SourceCommit are the learning's anchors ("path@blob") and the commit it was
	// learned on: recall compares them with the agent's project, and reading them from the
	// candidates' files at HEAD loaded the memory's whole pack index, 16% of a SessionStart
	// hook's CPU at 10,000 learnings (perf, 60 runs). Stored, never searched, not printed.
	Anchors      []string `json:"-"`
	SourceCommit string   `json:"-"`
}

// DocOf describes the learning stored at path.
func DocOf(path string, l *learnings.Learning) Doc {
	return Doc{
		Path: path, ID: l.ID, Title: l.Title, Project: l.Project,
		Kind: string(l.Kind), Confidence: string(l.Confidence), Status: string(l.Status),
		Tags: l.Tags, Entities: l.Entities, Triggers: l.Triggers, Created: l.Created, Updated: l.Updated,
		Seen: l.Seen, Body: strings.TrimSpace(l.IndexedBody()),
		Anchors: l.Anchors, SourceCommit: l.Source.Commit,
	}
}

// fields is the document bleve indexes.
func (d Doc) fields() map[string]any {
	m := map[string]any{
		"id": d.ID, "title": d.Title, "body": d.Body, "project": d.Project,
		"kind": d.Kind, "confidence": d.Confidence, "status": d.Status, "seen": float64(d.Seen),
		"tags": strings.Join(d.Tags, " \n "), "entities": strings.Join(d.Entities, " \n "),
		"triggers": strings.Join(d.Triggers, " \n "),
	}
	if len(d.Tags) > 0 {
		tags := make([]string, len(d.Tags))
		for i, t := range d.Tags {
			tags[i] = strings.ToLower(t)
		}
		m["tag"] = tags
	}
	if !d.Created.IsZero() {
		m["created"] = d.Created
	}
	if !d.Updated.IsZero() {
		m["updated"] = d.Updated
	}
	if len(d.Anchors) > 0 {
		m["anchors"] = strings.Join(d.Anchors, "\n") // an anchor holds no newline (learnings.ParseAnchor)
		m["source_commit"] = d.SourceCommit
	}
	return m
}

// storedFields are returned with every hit.
var storedFields = []string{"id", "title", "body", "project", "kind", "confidence", "status", "tags", "entities", "triggers", "created", "updated", "seen", "anchors", "source_commit"}

// docFromFields rebuilds a Doc from a hit's stored fields.
func docFromFields(path string, f map[string]any) Doc {
	str := func(k string) string { s, _ := f[k].(string); return s }
	list := func(k string) []string {
		s := str(k)
		if s == "" {
			return nil
		}
		return strings.Split(s, " \n ")
	}
	date := func(k string) time.Time {
		t, _ := time.Parse(time.RFC3339, str(k))
		return t
	}
	seen, _ := f["seen"].(float64)
	var anchors []string
	if a := str("anchors"); a != "" {
		anchors = strings.Split(a, "\n")
	}
	return Doc{
		Path: path, ID: str("id"), Title: str("title"), Body: str("body"), Project: str("project"),
		Kind: str("kind"), Confidence: str("confidence"), Status: str("status"),
		Tags: list("tags"), Entities: list("entities"), Triggers: list("triggers"), Created: date("created"), Updated: date("updated"),
		Seen: int(seen), Anchors: anchors, SourceCommit: str("source_commit"),
	}
}
