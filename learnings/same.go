package learnings

import (
	"bytes"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/reflect-memory/reflect/gitstore"
)

// SameText says whether a and b are the same text once case, runs of space and a final
// full stop are set aside: the rule for a lesson written again word for word.
func SameText(a, b string) bool {
	return normalText(a) == normalText(b)
}

func normalText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	s = strings.TrimRight(s, ".!;")
	return strings.ToLower(s)
}

// MaxTitleScan bounds the learnings of a folder FindByTitle reads, newest first: it answers
// inside a hook, and a lesson written again is most often a recent one. Reading 2,000 took
// 11.5 ms from a pack and 70–95 ms as loose objects (a 3,000-learning project, warm cache);
// 500 keep the loose case near 20 ms.
const MaxTitleScan = 500

// FindByTitle returns the current learnings of project, then the global ones, whose title is
// title, newest first within each. It reads no search index: it reads the files of the two
// folders, at most MaxTitleScan of each, and parses only those whose frontmatter's title
// line is title's as Render writes it, case aside (a title a person re-quoted by hand is not
// found).
func FindByTitle(r *gitstore.Repo, project, title string) ([]*Learning, error) {
	probe := New(title, project, time.Now())
	probe.Redact()
	data, err := probe.Render()
	if err != nil {
		return nil, nil // not a title a learning could have
	}
	line := titleLine(data)
	if line == nil {
		return nil, nil
	}
	folders := []string{project}
	if project != Global {
		folders = append(folders, Global)
	}
	var out []*Learning
	for _, p := range folders {
		files, err := r.Walk(Dir + "/" + p)
		if err != nil {
			return nil, err
		}
		rs := refs(files)
		// ids are ULIDs: their order is their creation's
		slices.SortFunc(rs, func(a, b Ref) int { return strings.Compare(b.ID, a.ID) })
		if len(rs) > MaxTitleScan {
			rs = rs[:MaxTitleScan]
		}
		for _, ref := range rs {
			if n, err := r.BlobSize(ref.Blob); err != nil || n > MaxFileBytes {
				continue
			}
			raw, err := r.ReadBlob(ref.Blob)
			if err != nil || !bytes.EqualFold(titleLine(raw), line) {
				continue
			}
			l, err := Parse(ref.Path, raw)
			if err != nil || l.Status != StatusCurrent || l.Project != p || !SameText(l.Title, probe.Title) {
				continue
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// titleLine is the line of a learning file's frontmatter that holds its title, with its
// newline, or nil.
func titleLine(data []byte) []byte {
	first := true
	for line := range bytes.Lines(data) {
		switch {
		case bytes.HasPrefix(line, []byte("title:")):
			return bytes.TrimRight(line, "\r\n") // a file saved with CRLF holds the same title
		case !first && bytes.HasPrefix(line, []byte("---")):
			return nil // the frontmatter ended
		}
		first = false
	}
	return nil
}
