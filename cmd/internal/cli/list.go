package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
)

type listOptions struct {
	project, kind, tag, status string
}

// learningJSON is how a learning is printed with --format json.
type learningJSON struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Project      string    `json:"project"`
	Kind         string    `json:"kind"`
	Confidence   string    `json:"confidence"`
	Status       string    `json:"status"`
	SupersededBy string    `json:"superseded_by,omitempty"`
	Supersedes   []string  `json:"supersedes,omitempty"`
	Tags         []string  `json:"tags"`
	Entities     []string  `json:"entities"`
	Triggers     []string  `json:"triggers"`
	Anchors      []string  `json:"anchors"`
	Source       any       `json:"source"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	Seen         int       `json:"seen"`
	Path         string    `json:"path"`
	Body         *string   `json:"body,omitempty"`
}

func toJSON(l *learnings.Learning, withBody bool) learningJSON {
	j := learningJSON{
		ID: l.ID, Title: l.Title, Project: l.Project, Kind: string(l.Kind),
		Confidence: string(l.Confidence), Status: string(l.Status), SupersededBy: l.SupersededBy,
		Supersedes: l.Supersedes, Tags: NonNil(l.Tags), Entities: NonNil(l.Entities), Triggers: NonNil(l.Triggers),
		Anchors: NonNil(l.Anchors),
		Source: map[string]any{
			"harness": l.Source.Harness, "session": l.Source.Session, "trigger": l.Source.Trigger,
			"machine": l.Source.Machine, "commit": l.Source.Commit, "files": NonNil(l.Source.Files),
		},
		Created: l.Created, Updated: l.Updated, Seen: l.Seen, Path: l.RelPath(),
	}
	if withBody {
		j.Body = &l.Body
	}
	return j
}

func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a *App) listCmd() *cobra.Command {
	var o listOptions
	cmd := &cobra.Command{
		Use:   "list [--project KEY] [--kind K] [--tag T] [--status S|all]",
		Short: "List learnings (current ones unless --status says otherwise)",
		Args:  NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.runList(o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "only this project (_global for the global ones)")
	f.StringVar(&o.kind, "kind", "", "only this kind")
	f.StringVar(&o.tag, "tag", "", "only learnings with this tag")
	f.StringVar(&o.status, "status", string(learnings.StatusCurrent), "current|archived|superseded|all")
	return cmd
}

func (a *App) runList(o listOptions) error {
	if o.kind != "" {
		if _, err := learnings.ParseKind(o.kind); err != nil {
			return FlagErrorf("--kind: %v", err)
		}
	}
	if _, err := learnings.ParseStatusFilter(o.status); err != nil {
		return FlagErrorf("--status: %v", err)
	}
	r, err := a.Repo()
	if err != nil {
		return err
	}
	all, bad, err := learnings.LoadAll(r)
	if err != nil {
		return err
	}
	for _, e := range bad {
		for _, line := range strings.Split(e.Error(), "\n") {
			fmt.Fprintf(a.Stderr, "reflect: skipped %s\n", line)
		}
	}
	f := learnings.Filter{Project: o.project, Kind: o.kind, Tag: o.tag, Status: o.status}
	var out []*learnings.Learning
	for _, l := range all {
		if f.Keep(l) {
			out = append(out, l)
		}
	}
	if a.JSON() {
		js := make([]learningJSON, 0, len(out))
		for _, l := range out {
			js = append(js, toJSON(l, false))
		}
		return a.PrintJSON(js)
	}
	if len(out) == 0 {
		fmt.Fprintln(a.Stderr, "no learnings match")
		return nil
	}
	// each id by the shortest end no other learning's id holds: what `reflect show` takes
	ids := make([]string, len(all))
	for i, l := range all {
		ids[i] = l.ID
	}
	short := learnings.ShortIDs(ids)
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tCONF\tSTATUS\tPROJECT\tTITLE")
	for _, l := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", short[l.ID], l.Kind, l.Confidence, l.Status, l.Project, Truncate(printable.String(l.Title), 72))
	}
	return tw.Flush()
}

func Truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}
