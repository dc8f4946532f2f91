// Package agentsmd compiles a project's reviewed learnings — the user's own and their teams'
// — into a marked block of a file coding agents already read (AGENTS.md, CLAUDE.md,
// .github/copilot-instructions.md, GEMINI.md). Only the block between its markers is ever
// rewritten: what a person wrote around it is kept byte for byte. The block depends only on
// the learnings (no date, no machine), so a second run changes nothing and CI can check it.
package agentsmd

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/team"
)

// The block's markers, each on a line of its own.
const (
	Begin = "<!-- reflect:begin -->"
	End   = "<!-- reflect:end -->"
)

// Files are the files agents read that export writes by default names for.
var Files = []string{"AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "GEMINI.md"}

// Entry is one learning of the block.
type Entry struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Kind       string `json:"kind"`
	Confidence string `json:"confidence"`
	From       string `json:"from"` // "yours" or "team NAME"
}

// ErrStale: the block in the file is not what export would write (--check).
var ErrStale = errors.New("the reflect block is out of date")

// MarkerError names a line where the markers do not pair up; nothing is written.
type MarkerError struct {
	Path string
	Line int
	Msg  string
}

func (e *MarkerError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

var kindHeading = map[string]string{
	"rule": "Rules", "fix": "Fixes", "decision": "Decisions", "failure": "Known failures",
	"recipe": "Recipes", "preference": "Preferences", "correction": "Corrections",
}

// Block renders entries grouped by kind (in the file format's order), each group by
// confidence, title and id. maxLines > 0 bounds the learnings listed: the highest confidence
// first, then the kinds' order; a last line says how many were left out.
func Block(project string, es []Entry, maxLines int) string {
	es = append([]Entry(nil), es...)
	kindRank := map[string]int{}
	for i, k := range learnings.AllKinds() {
		kindRank[string(k)] = i
	}
	confidenceRank := map[string]int{}
	for i, c := range learnings.AllConfidences() {
		confidenceRank[string(c)] = i
	}
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if confidenceRank[a.Confidence] != confidenceRank[b.Confidence] {
			return confidenceRank[a.Confidence] < confidenceRank[b.Confidence]
		}
		if kindRank[a.Kind] != kindRank[b.Kind] {
			return kindRank[a.Kind] < kindRank[b.Kind]
		}
		if a.Title != b.Title {
			return a.Title < b.Title
		}
		return a.ID < b.ID
	})
	left := 0
	if maxLines > 0 && len(es) > maxLines {
		left = len(es) - maxLines
		es = es[:maxLines]
	}
	sort.SliceStable(es, func(i, j int) bool { return kindRank[es[i].Kind] < kindRank[es[j].Kind] })
	var b strings.Builder
	b.WriteString(Begin + "\n")
	fmt.Fprintf(&b, "<!-- written by `reflect export agents-md --project %s`: reviewed learnings of this project, yours and your teams'. Change them in reflect, not here: this block is rewritten. -->\n", clean(project))
	b.WriteString("## What past sessions learned about this project\n")
	if len(es) == 0 {
		b.WriteString("\nNo reviewed learning yet.\n")
	}
	kind := ""
	for _, e := range es {
		if e.Kind != kind {
			kind = e.Kind
			h := kindHeading[kind]
			if h == "" {
				h = clean(kind)
			}
			fmt.Fprintf(&b, "\n### %s\n\n", h)
		}
		// where it came from is left out: team names are each machine's own, and the block
		// must read the same wherever it is compiled
		fmt.Fprintf(&b, "- %s (%s)\n", clean(e.Title), e.ID)
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n%d more left out (--max-lines); `reflect list --project %s` lists them.\n", left, clean(project))
	}
	b.WriteString(End + "\n")
	return b.String()
}

// clean keeps a title on one line and unable to pose as markup: an HTML comment or tag
// opening would end the block early or hide text from a reader of the rendered file.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?' || 'a' <= s[i+1]|0x20 && s[i+1]|0x20 <= 'z') {
			b.WriteString("‹")
			continue
		}
		b.WriteByte(s[i])
	}
	return strings.ReplaceAll(b.String(), "-->", "-- >")
}

// Splice puts block into file in place of the block already there (from its Begin line to
// its End line), or after the file's text when it has none. Everything outside is kept as
// it is. path names the file in errors.
func Splice(path string, file []byte, block string) ([]byte, error) {
	lines := bytes.SplitAfter(file, []byte("\n"))
	begin, end := -1, -1
	for i, l := range lines {
		switch strings.TrimSpace(string(l)) {
		case Begin:
			if begin >= 0 {
				return nil, &MarkerError{path, i + 1, "a second " + Begin + " (the first is on line " + fmt.Sprint(begin+1) + "); remove one"}
			}
			begin = i
		case End:
			if begin < 0 {
				return nil, &MarkerError{path, i + 1, End + " before any " + Begin}
			}
			if end >= 0 {
				return nil, &MarkerError{path, i + 1, "a second " + End}
			}
			end = i
		}
	}
	if begin >= 0 && end < 0 {
		return nil, &MarkerError{path, begin + 1, Begin + " has no " + End + " after it"}
	}
	var out bytes.Buffer
	if begin < 0 {
		out.Write(file)
		if len(file) > 0 {
			if !bytes.HasSuffix(file, []byte("\n")) {
				out.WriteByte('\n')
			}
			out.WriteByte('\n')
		}
		out.WriteString(block)
		return out.Bytes(), nil
	}
	for _, l := range lines[:begin] {
		out.Write(l)
	}
	out.WriteString(block)
	if !bytes.HasSuffix(lines[end], []byte("\n")) { // the end marker was the last line, without a newline
		out.Truncate(out.Len() - 1)
	}
	for _, l := range lines[end+1:] {
		out.Write(l)
	}
	return out.Bytes(), nil
}

// Collect lists the learnings of project the block holds: current, of high or medium
// confidence, and reviewed — the user's own (a learning another author synced in counts
// once someone reviewed it), and each team's that reached its main through review. A
// personal learning a reviewed team learning supersedes is left out; a learning in both
// memories (a promotion) is listed once, as the user's.
func Collect(personal *gitstore.Repo, project string) ([]Entry, error) {
	var out []Entry
	have := map[string]bool{}
	superseded := map[string]bool{}
	type teamRepo struct {
		name string
		r    *gitstore.Repo
	}
	var teams []teamRepo
	for _, name := range team.Names(personal) {
		tr, err := team.Open(personal, name)
		if err != nil {
			continue
		}
		defer tr.Close()
		if _, err := team.Refresh(tr, 0); err != nil {
			return nil, fmt.Errorf("team %s: %w", name, err)
		}
		for old := range team.Superseded(tr) {
			superseded[old] = true
		}
		teams = append(teams, teamRepo{name, tr})
	}
	mine, _, err := learnings.LoadAll(personal)
	if err != nil {
		return nil, err
	}
	me := personal.Identity()
	for _, l := range mine {
		if !wanted(l, project) || superseded[l.ID] {
			continue
		}
		if rec, ok, err := provenance.Of(personal, l.ID); err == nil && ok && rec.Reviewed == "" && !strings.EqualFold(rec.Email, me) {
			continue // another author's, synced in, that no one here reviewed
		}
		have[l.ID] = true
		out = append(out, Entry{ID: l.ID, Title: l.Title, Kind: string(l.Kind), Confidence: string(l.Confidence), From: "yours"})
	}
	for _, t := range teams {
		ls, _, err := learnings.LoadAll(t.r)
		if err != nil {
			return nil, fmt.Errorf("team %s: %w", t.name, err)
		}
		for _, l := range ls {
			if !wanted(l, project) || have[l.ID] || superseded[l.ID] {
				continue
			}
			if rv, ok := team.Of(t.r, l.ID); !ok || !rv.Reviewed {
				continue
			}
			have[l.ID] = true
			out = append(out, Entry{ID: l.ID, Title: l.Title, Kind: string(l.Kind), Confidence: string(l.Confidence), From: "team " + t.name})
		}
	}
	return out, nil
}

func wanted(l *learnings.Learning, project string) bool {
	return l.Project == project && l.Status == learnings.StatusCurrent &&
		(l.Confidence == learnings.ConfidenceHigh || l.Confidence == learnings.ConfidenceMedium)
}
