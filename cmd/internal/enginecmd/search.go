package enginecmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
)

type searchOptions struct {
	project, kind, tag, status string
	global                     bool
	limit                      int
}

func (a *app) searchCmd() *cobra.Command {
	var o searchOptions
	cmd := &cobra.Command{
		Use:   "search QUERY…",
		Short: "Search learnings (this project and global ones unless --project or --global)",
		Long: `Search learnings. The query is bleve's query-string syntax — words, "a phrase",
+required, -excluded, title:word, tags:word, word^2, fuzzy~ — and a|b|c for a term that may
be any of several words. By default the scope is the current directory's project plus the
global learnings, and only current learnings are found.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.FlagErrorf("search needs a query, e.g. reflect search 'oauth redirect|callback'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSearch(cmd.Context(), strings.Join(args, " "), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "search this project (and the global learnings)")
	f.BoolVar(&o.global, "global", false, "search every project")
	f.StringVar(&o.kind, "kind", "", "only this kind")
	f.StringVar(&o.tag, "tag", "", "only learnings with this tag")
	f.StringVar(&o.status, "status", string(learnings.StatusCurrent), "current|archived|superseded|all")
	f.IntVar(&o.limit, "limit", 10, "at most this many results")
	return cmd
}

func (a *app) runSearch(ctx context.Context, text string, o searchOptions) error {
	q := index.Query{Text: text, Limit: o.limit, Snippets: true}
	if o.limit < 1 {
		return cli.FlagErrorf("--limit must be at least 1")
	}
	if o.kind != "" {
		k, err := learnings.ParseKind(o.kind)
		if err != nil {
			return cli.FlagErrorf("--kind: %v", err)
		}
		q.Kinds = []string{string(k)}
	}
	statuses, err := learnings.ParseStatusFilter(o.status)
	if err != nil {
		return cli.FlagErrorf("--status: %v", err)
	}
	for _, s := range statuses {
		q.Statuses = append(q.Statuses, string(s))
	}
	if o.tag != "" {
		q.Tags = []string{o.tag}
	}
	if o.global && o.project != "" {
		return cli.FlagErrorf("--global and --project cannot be used together")
	}
	if !o.global {
		project := o.project
		if project == "" {
			project = currentProject()
		}
		q.Projects = []string{learnings.Global}
		if project != learnings.Global {
			q.Projects = append(q.Projects, project)
		}
	}
	r, err := a.Repo()
	if err != nil {
		return err
	}
	ix, err := a.openIndex(ctx, r)
	if err != nil {
		return err
	}
	defer ix.Close()
	res, err := ix.Search(ctx, q)
	if err != nil {
		return err
	}
	if res.Note != "" {
		fmt.Fprintf(a.Stderr, "reflect: %s\n", res.Note)
	}
	memory := a.addTeamHits(ctx, r, q, res)
	if a.JSON() {
		type hitJSON struct {
			ID         string   `json:"id"`
			Title      string   `json:"title"`
			Project    string   `json:"project"`
			Kind       string   `json:"kind"`
			Confidence string   `json:"confidence"`
			Status     string   `json:"status"`
			Score      float64  `json:"score"`
			Path       string   `json:"path"`
			Snippet    string   `json:"snippet"`
			Matched    []string `json:"matched"`
			Memory     string   `json:"memory"` // yours, or team NAME (reviewed | not reviewed)
		}
		out := struct {
			Query  string    `json:"query"`
			Total  uint64    `json:"total"`
			Source string    `json:"source"`
			Note   string    `json:"note,omitempty"`
			Hits   []hitJSON `json:"hits"`
		}{Query: text, Total: res.Total, Source: res.Source, Note: res.Note, Hits: []hitJSON{}}
		for _, h := range res.Hits {
			out.Hits = append(out.Hits, hitJSON{h.ID, h.Title, h.Project, h.Kind, h.Confidence, h.Status, h.Score, h.Path, h.Snippet, cli.NonNil(h.Terms), memory[h.Path]})
		}
		return a.PrintJSON(out)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(a.Stderr, "no learnings match")
		return nil
	}
	color := a.IsTerminal(a.Stdout)
	for i, h := range res.Hits {
		if i > 0 {
			fmt.Fprintln(a.Stdout)
		}
		title := printable.String(h.Title)
		if color {
			title = "\x1b[1m" + title + "\x1b[0m"
		}
		fmt.Fprintf(a.Stdout, "%s  %s\n", h.ID, title)
		where := ""
		if m := memory[h.Path]; m != "yours" {
			where = " · " + m
		}
		fmt.Fprintf(a.Stdout, "  %s · %s · %s confidence · %s · score %.2f%s\n", h.Project, h.Kind, h.Confidence, h.Status, h.Score, where)
		if h.Snippet != "" {
			fmt.Fprintf(a.Stdout, "  %s\n", mark(h.Snippet, h.Marks, color))
		}
	}
	if res.Total > uint64(len(res.Hits)) {
		fmt.Fprintf(a.Stderr, "(%d of %d; --limit for more)\n", len(res.Hits), res.Total)
	}
	return nil
}

// mark highlights the matched words of a snippet: bold yellow on a terminal, **word**
// otherwise. The snippet's own control characters go (it may come from a remote); the marks
// are byte offsets into it, so each piece is filtered on its own.
func mark(s string, marks [][2]int, color bool) string {
	open, close := "**", "**"
	if color {
		open, close = "\x1b[1;33m", "\x1b[0m"
	}
	var b strings.Builder
	at := 0
	for _, m := range marks {
		if m[0] < at || m[1] > len(s) {
			continue
		}
		b.WriteString(printable.String(s[at:m[0]]))
		b.WriteString(open + printable.String(s[m[0]:m[1]]) + close)
		at = m[1]
	}
	b.WriteString(printable.String(s[at:]))
	return b.String()
}

// openIndex opens the index for a command: it may wait for locks as long as any write
// does, and builds the index (with a progress bar on a terminal) when there is none.
func (a *app) openIndex(ctx context.Context, r *gitstore.Repo) (*index.Index, error) {
	opts := index.Options{LockTimeout: r.Config().Git.LockTimeout.Std(), Progress: a.progress("indexing learnings")}
	ix, err := index.Open(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	for _, e := range ix.Bad {
		fmt.Fprintf(a.Stderr, "reflect: not indexed: %s\n", strings.ReplaceAll(e.Error(), "\n", "\n  "))
	}
	return ix, nil
}

// progress returns a progress callback that draws a bar on a terminal's stderr, or nil.
func (a *app) progress(what string) func(done, total int) {
	if !a.IsTerminal(a.Stderr) || a.JSON() {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(a.Stderr), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		}
		bar.Set(done)
		if done >= total {
			bar.Finish()
		}
	}
}

func (a *app) reindexCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index from git (it is a cache: deleting it loses nothing)",
		Args:  cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			start := time.Now()
			st, err := index.Rebuild(cmd.Context(), r, index.Options{LockTimeout: r.Config().Git.LockTimeout.Std(), Progress: a.progress("indexing learnings")})
			for _, e := range st.Bad {
				fmt.Fprintf(a.Stderr, "reflect: skipped %s\n", strings.ReplaceAll(e.Error(), "\n", "\n  "))
			}
			if err != nil {
				return err
			}
			took := time.Since(start)
			if a.JSON() {
				return a.PrintJSON(map[string]any{"learnings": st.Learnings, "skipped": len(st.Bad), "commit": st.Commit, "took_ms": took.Milliseconds()})
			}
			fmt.Fprintf(a.Stdout, "indexed %d learnings at %s in %s\n", st.Learnings, cli.ShortID(st.Commit), took.Round(time.Millisecond))
			return nil
		},
	}
}
