package view

import (
	"context"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/learnings"
)

// perPage bounds the rows of the list page: rendering 10,000 rows took 90 ms and 4 MB of
// HTML a browser then lays out; a hundred are what a person reads before refining.
const perPage = 100

// searchLimit is the most hits a search asks the index for (reflect search shows 10).
const searchLimit = 500

type filters struct {
	Q, Project, Kind, Confidence, Status, Tag, Fresh, Memory, Sort string
	Page                                                           int
}

func (f filters) url(page int) template.URL {
	kv := []string{"q", f.Q, "project", f.Project, "kind", f.Kind, "confidence", f.Confidence,
		"status", f.Status, "tag", f.Tag, "fresh", f.Fresh, "memory", f.Memory, "sort", f.Sort}
	if page > 1 {
		kv = append(kv, "page", strconv.Itoa(page))
	}
	return query(kv...)
}

type facet struct {
	Name  string
	Count int
}

type row struct {
	L       *learnings.Learning
	Fresh   anchor.State // Unchecked when its project's work tree is not known here
	Teams   []string     // the team memories whose main holds it
	Score   float64
	Snippet template.HTML
}

type listData struct {
	F                            filters
	Projects                     []facet
	Kinds, Confidences, Statuses []string
	FreshStates, Memories        []string
	Teams                        []string
	Rows                         []row
	Total                        int
	From, To                     int
	Prev, Next                   template.URL
	Bad                          []string
	Note                         string
}

func parseFilters(r *http.Request) (filters, error) {
	q := r.URL.Query()
	f := filters{Q: strings.TrimSpace(q.Get("q")), Project: q.Get("project"), Kind: q.Get("kind"),
		Confidence: q.Get("confidence"), Status: q.Get("status"), Tag: strings.TrimSpace(q.Get("tag")), Fresh: q.Get("fresh"), Memory: q.Get("memory"), Sort: q.Get("sort")}
	if f.Status == "" {
		f.Status = string(learnings.StatusCurrent)
	}
	if f.Kind != "" {
		if _, err := learnings.ParseKind(f.Kind); err != nil {
			return f, &badRequest{"kind: " + err.Error()}
		}
	}
	if f.Confidence != "" {
		if _, err := learnings.ParseConfidence(f.Confidence); err != nil {
			return f, &badRequest{"confidence: " + err.Error()}
		}
	}
	if _, err := learnings.ParseStatusFilter(f.Status); err != nil {
		return f, &badRequest{"status: " + err.Error()}
	}
	if f.Fresh != "" && !slices.Contains(freshStates, f.Fresh) {
		return f, &badRequest{"fresh: unknown state " + strconv.Quote(f.Fresh) + ": must be one of " + strings.Join(freshStates, ", ")}
	}
	if f.Memory != "" && !slices.Contains(memories, f.Memory) {
		return f, &badRequest{"memory: unknown " + strconv.Quote(f.Memory) + ": must be personal or team"}
	}
	switch f.Sort {
	case "", "updated", "created", "seen", "title", "score":
	default:
		return f, &badRequest{"sort: unknown order " + strconv.Quote(f.Sort) + ": must be one of updated, created, seen, title, score"}
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return f, &badRequest{"page: " + strconv.Quote(p) + " is not a page number"}
		}
		f.Page = n
	}
	return f, nil
}

func (f filters) keep(l *learnings.Learning) bool {
	return learnings.Filter{Project: f.Project, Kind: f.Kind, Confidence: f.Confidence, Tag: f.Tag, Status: f.Status}.Keep(l)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	f, err := parseFilters(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var d listData
	err = s.withRepo(func(repo *gitstore.Repo) error {
		if err := s.cache.load(repo); err != nil {
			return err
		}
		d, err = s.listData(r.Context(), repo, f)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if strings.HasPrefix(d.Note, "search: ") {
		status = http.StatusBadRequest
	}
	s.render(w, r, status, "list", page{Title: "Learnings", Nav: "list", Data: d})
}

// listData filters, searches, sorts and pages the cached learnings.
func (s *Server) listData(ctx context.Context, repo *gitstore.Repo, f filters) (listData, error) {
	c := s.cache
	d := listData{F: f}
	for _, k := range learnings.AllKinds() {
		d.Kinds = append(d.Kinds, string(k))
	}
	for _, k := range learnings.AllConfidences() {
		d.Confidences = append(d.Confidences, string(k))
	}
	for _, k := range learnings.AllStatuses() {
		d.Statuses = append(d.Statuses, string(k))
	}
	d.FreshStates, d.Memories = freshStates, memories
	counts := map[string]int{}
	for _, l := range c.all {
		counts[l.Project]++
	}
	for p, n := range counts {
		d.Projects = append(d.Projects, facet{p, n})
	}
	sort.Slice(d.Projects, func(i, j int) bool { return d.Projects[i].Name < d.Projects[j].Name })
	for _, e := range c.bad {
		d.Bad = append(d.Bad, e.Error())
	}

	var rows []row
	if f.Q == "" {
		for _, l := range c.all {
			if f.keep(l) {
				rows = append(rows, row{L: l})
			}
		}
	} else {
		q := index.Query{Text: f.Q, Limit: searchLimit, Snippets: true}
		if f.Project != "" {
			q.Projects = []string{f.Project}
		}
		if f.Kind != "" {
			q.Kinds = []string{f.Kind}
		}
		if f.Tag != "" {
			q.Tags = []string{f.Tag}
		}
		if f.Status == "all" {
			q.Statuses = d.Statuses
		} else {
			q.Statuses = []string{f.Status}
		}
		ix, err := index.Open(ctx, repo, index.Options{LockTimeout: repo.Config().Git.LockTimeout.Std()})
		if err != nil {
			return d, err
		}
		res, err := ix.Search(ctx, q)
		ix.Close()
		if err != nil {
			d.Note = "search: " + err.Error()
			return d, nil
		}
		d.Note = res.Note
		if res.Total > uint64(len(res.Hits)) {
			d.Note = strings.TrimSpace(fmt.Sprintf("%d learnings match; these are the best %d by score, filtered and sorted. %s", res.Total, len(res.Hits), d.Note))
		}
		for _, h := range res.Hits {
			l, ok := c.byID[h.ID]
			if !ok || !f.keep(l) {
				continue
			}
			rows = append(rows, row{L: l, Score: h.Score, Snippet: highlight(h.Snippet, h.Marks)})
		}
	}
	// freshness reads the projects' work trees: for every candidate when it filters, else
	// for the page's rows only
	chk := newChecker(repo)
	defer chk.close()
	if f.Fresh != "" {
		rows = filterFresh(chk, rows, f.Fresh)
	}
	var inTeams map[string][]string
	d.Teams, inTeams = s.teams(repo)
	if f.Memory != "" {
		rows = slices.DeleteFunc(rows, func(r row) bool { return (len(inTeams[r.L.ID]) > 0) != (f.Memory == "team") })
	}
	order := f.Sort
	if order == "" {
		order = "updated"
		if f.Q != "" {
			order = "score"
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].L, rows[j].L
		switch order {
		case "score":
			if rows[i].Score != rows[j].Score {
				return rows[i].Score > rows[j].Score
			}
		case "created":
			if !a.Created.Equal(b.Created) {
				return a.Created.After(b.Created)
			}
		case "seen":
			if a.Seen != b.Seen {
				return a.Seen > b.Seen
			}
		case "title":
			if a.Title != b.Title {
				return a.Title < b.Title
			}
		}
		if !a.Updated.Equal(b.Updated) {
			return a.Updated.After(b.Updated)
		}
		return a.ID > b.ID
	})
	d.Total = len(rows)
	p := max(f.Page, 1)
	from := min((p-1)*perPage, len(rows))
	to := min(from+perPage, len(rows))
	d.Rows = rows[from:to]
	d.From, d.To = from+1, to
	if f.Fresh == "" {
		freshOf(chk, d.Rows)
	}
	for i := range d.Rows {
		d.Rows[i].Teams = inTeams[d.Rows[i].L.ID]
	}
	if p > 1 {
		d.Prev = f.url(p - 1)
	}
	if to < len(rows) {
		d.Next = f.url(p + 1)
	}
	return d, nil
}

// highlight marks the matched words of a snippet, as reflect search does on a terminal; the
// text between is escaped (it is a learning's, and learnings arrive from remotes).
func highlight(s string, marks [][2]int) template.HTML {
	var b strings.Builder
	at := 0
	for _, m := range marks {
		if m[0] < at || m[1] > len(s) || m[0] > m[1] {
			continue
		}
		b.WriteString(html.EscapeString(s[at:m[0]]))
		b.WriteString("<mark>" + html.EscapeString(s[m[0]:m[1]]) + "</mark>")
		at = m[1]
	}
	b.WriteString(html.EscapeString(s[at:]))
	return template.HTML(b.String())
}
