package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/anchor"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/printable"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/workspace"
)

func (a *App) staleCmd() *cobra.Command {
	var project string
	var review bool
	cmd := &cobra.Command{
		Use:   "stale [--project KEY] [--review]",
		Short: "List learnings whose files changed or went away since they were learned",
		Long: `Compare the anchors of the project's current learnings (the files each lesson is
about, with the git blob they had) with the project's work tree: a learning is drifted when
a file changed since, orphaned when a file is gone (a rename is named). Each is listed with
the commits that changed its files. The project is the current directory's, or --project
(a project this machine has worked in).

--review walks them one by one: keep (the lesson still holds: anchor it to the files as they
are now), edit, archive, supersede by another learning, skip, or quit. Each answer that
changes something is one commit.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if review && a.JSON() {
				return FlagErrorf("--review asks questions; it has no --format json")
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			p, err := a.staleProject(r, project)
			if err != nil {
				return err
			}
			defer p.Close()
			s, err := p.Survey(cmd.Context(), r)
			if err != nil {
				return err
			}
			for _, b := range s.Bad {
				fmt.Fprintf(a.Stderr, "reflect: skipped %s\n", b)
			}
			if a.JSON() {
				return a.PrintJSON(s)
			}
			a.Printf("%s: %s anchored, %d fresh, %d drifted, %d orphaned\n", s.Project,
				Plural(s.Anchored, "learning"), s.Fresh, s.Drifted, s.Orphaned)
			if !review {
				for _, st := range s.Stale {
					a.printStale(st)
				}
				return nil
			}
			return a.reviewStale(cmd, r, p, s)
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "project key (default: the current directory's)")
	cmd.Flags().BoolVar(&review, "review", false, "walk the stale learnings one by one: keep, edit, archive, supersede")
	return cmd
}

// staleProject opens the work tree of project: the current directory's, or the one this
// machine last worked in for that key.
func (a *App) staleProject(r *gitstore.Repo, project string) (*anchor.Project, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var ws workspace.Workspace
	if project == "" {
		ws, err = workspace.Read(cwd, 0)
		if err != nil {
			return nil, err
		}
		if ws.Root == "" {
			return nil, FlagErrorf("%s is not in a git repository: run reflect stale in the project, or give --project KEY", cwd)
		}
	} else {
		if err := learnings.ValidProjectKey(project); err != nil {
			return nil, FlagErrorf("--project: %v", err)
		}
		var ok bool
		if ws, ok = anchor.Find(r, project, cwd); !ok {
			return nil, FlagErrorf("--project %s: no work tree of it is known on this machine: run reflect stale inside it", project)
		}
	}
	return anchor.Open(ws)
}

func (a *App) printStale(st anchor.Stale) {
	a.Printf("\n%s %s — %s\n", strings.ToUpper(string(st.Freshness.State)), st.ID, printable.String(st.Title))
	for _, c := range st.Freshness.Anchors {
		switch c.State {
		case anchor.Fresh:
			continue
		case anchor.Orphaned:
			what := "gone"
			if c.RenamedTo != "" {
				what = "renamed to " + c.RenamedTo
			}
			a.Printf("  %s: %s\n", c.Path, what)
		case anchor.Drifted:
			switch n := len(st.Changes[c.Path]); {
			case n == 0 && c.Dirty:
				a.Printf("  %s: changed in the work tree (not committed)\n", c.Path)
			case n == 0:
				a.Printf("  %s: changed\n", c.Path)
			default:
				more := ""
				if st.More[c.Path] {
					more = " or more"
				}
				a.Printf("  %s: changed in %s%s since %s\n", c.Path, Plural(n, "commit"), more, ShortID(st.Commit))
			}
		}
		for _, ch := range st.Changes[c.Path] {
			a.Printf("    %s %s\n", ShortID(ch.ID), ch.Subject)
		}
	}
}

// reviewStale asks, for each stale learning, what to do with it.
func (a *App) reviewStale(cmd *cobra.Command, r *gitstore.Repo, p *anchor.Project, s *anchor.Summary) error {
	in := bufio.NewReader(a.Stdin)
	for i, st := range s.Stale {
		a.printStale(st)
		for {
			a.Printf("(%d/%d) [k]eep and re-anchor, [e]dit, [a]rchive, [s]upersede by ID, [n]ext, [q]uit? ", i+1, len(s.Stale))
			line, err := in.ReadString('\n')
			answer := strings.Fields(line)
			if !a.IsTerminal(a.Stdin) {
				a.Printf("%s\n", strings.Join(answer, " ")) // what a terminal would have echoed
			}
			if len(answer) == 0 {
				if err != nil {
					a.Printf("\n")
					return nil // end of input: stop, nothing more changes
				}
				continue
			}
			done, err := a.reviewAnswer(cmd, r, p, st, answer)
			if err != nil {
				fmt.Fprintf(a.Stderr, "reflect: %v\n", err)
				continue
			}
			if done == "quit" {
				return nil
			}
			if done != "" {
				break
			}
		}
	}
	return nil
}

// reviewAnswer carries out one answer; "" asks again, "quit" stops, anything else goes on.
func (a *App) reviewAnswer(cmd *cobra.Command, r *gitstore.Repo, p *anchor.Project, st anchor.Stale, answer []string) (string, error) {
	ctx := cmd.Context()
	switch strings.ToLower(answer[0]) {
	case "k", "keep":
		var before, after []string
		_, commit, err := learnings.Change(ctx, r, []string{st.ID}, func(ls []*learnings.Learning) (string, error) {
			l := ls[0]
			before = l.Anchors
			msg, _ := p.Keep(l, st.Freshness, time.Now())
			after = l.Anchors
			return msg, nil
		})
		if err != nil {
			return "", err
		}
		a.AfterWrite(r)
		if err := provenance.MarkReviewed(r, st.ID, "you"); err != nil {
			a.Log.Warn("record the review", "id", st.ID, "err", err)
		}
		a.Printf("re-anchored %s (%s → %s) in %s\n", st.ID, strings.Join(before, ", "), strings.Join(after, ", "), ShortID(commit.String()))
		return "done", nil
	case "e", "edit":
		return "done", a.editCmd().RunE(cmd, []string{st.ID})
	case "a", "archive":
		_, commit, err := learnings.Change(ctx, r, []string{st.ID}, func(ls []*learnings.Learning) (string, error) {
			if !ls[0].Archive(time.Now()) {
				return "", nil
			}
			return learnings.ArchiveMessage(ls[0], anchor.ArchiveReason+" (reflect stale --review)"), nil
		})
		if err != nil {
			return "", err
		}
		a.AfterWrite(r)
		a.Printf("archived %s in %s\n", st.ID, ShortID(commit.String()))
		return "done", nil
	case "s", "supersede":
		if len(answer) < 2 {
			return "", fmt.Errorf("supersede by which learning? answer s ID")
		}
		_, commit, err := learnings.Change(ctx, r, []string{st.ID, answer[1]}, func(ls []*learnings.Learning) (string, error) {
			if err := reviewFirst(r, ls[1]); err != nil {
				return "", err
			}
			changed, err := learnings.Supersede(ls[0], ls[1], time.Now())
			if err != nil || !changed {
				return "", err
			}
			return fmt.Sprintf("supersede: %s by %s\n\n%s\n→ %s", ls[0].ID, ls[1].ID, ls[0].Title, ls[1].Title), nil
		})
		if err != nil {
			return "", err
		}
		a.AfterWrite(r)
		a.Printf("superseded %s by %s in %s\n", st.ID, answer[1], ShortID(commit.String()))
		return "done", nil
	case "n", "next", "skip":
		return "next", nil
	case "q", "quit":
		return "quit", nil
	}
	return "", fmt.Errorf("answer k, e, a, s ID, n or q")
}
