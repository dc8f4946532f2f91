package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

type addOptions struct {
	title, body, bodyFile string
	tags, entities        []string
	triggers              []string
	anchors               []string
	kind, confidence      string
	project               string
	global                bool
}

func (a *App) addCmd() *cobra.Command {
	var o addOptions
	cmd := &cobra.Command{
		Use:   "add --title T [--body B | --body-file F] [flags]",
		Short: "Write a learning by hand and commit it",
		Long: `Write a learning and commit it. The project is the current directory's
(from its git remote) unless --project or --global says otherwise. Prints the new id.`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runAdd(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.title, "title", "t", "", "one-line title (required)")
	f.StringVarP(&o.body, "body", "b", "", "the lesson, in markdown")
	f.StringVar(&o.bodyFile, "body-file", "", "read the body from a file (- for stdin)")
	f.StringArrayVar(&o.tags, "tag", nil, "tag (repeatable)")
	f.StringArrayVar(&o.entities, "entity", nil, "code entity the learning is about (repeatable)")
	f.StringArrayVar(&o.triggers, "trigger", nil, "a phrase it will be asked for by: an error, an identifier, a command (repeatable)")
	f.StringVar(&o.kind, "kind", string(learnings.KindRule), "fix|rule|decision|failure|recipe|preference|correction")
	f.StringVar(&o.confidence, "confidence", string(learnings.ConfidenceMedium), "high|medium|low")
	f.StringVar(&o.project, "project", "", "project key (default: from the current directory's git remote)")
	f.BoolVar(&o.global, "global", false, "a learning for every project")
	f.StringArrayVar(&o.anchors, "anchor", nil, "a file of the project the lesson is about, anchored to its current content: recall says when it changes (repeatable)")
	return cmd
}

func (a *App) runAdd(cmd *cobra.Command, o addOptions) error {
	if o.title == "" {
		return FlagErrorf("--title is required")
	}
	if o.body != "" && o.bodyFile != "" {
		return FlagErrorf("give --body or --body-file, not both")
	}
	if o.global && o.project != "" {
		return FlagErrorf("give --project or --global, not both")
	}
	kind, err := learnings.ParseKind(o.kind)
	if err != nil {
		return FlagErrorf("--kind: %v", err)
	}
	conf, err := learnings.ParseConfidence(o.confidence)
	if err != nil {
		return FlagErrorf("--confidence: %v", err)
	}
	body := o.body
	if o.bodyFile != "" {
		var data []byte
		if o.bodyFile == "-" {
			data, err = io.ReadAll(a.Stdin)
		} else {
			data, err = os.ReadFile(o.bodyFile)
		}
		if err != nil {
			return fmt.Errorf("read body: %w", err)
		}
		body = string(data)
	}
	project := o.project
	switch {
	case o.global:
		project = learnings.Global
	case project == "":
		cwd, err := os.Getwd()
		if err != nil {
			return err
		}
		if project, err = workspace.ProjectKey(cwd); err != nil {
			return err
		}
	}
	r, err := a.Repo()
	if err != nil {
		return err
	}
	anchors, head, err := anchorPaths(r, project, o.anchors, "--anchor")
	if err != nil {
		return err
	}
	l := learnings.New(o.title, project, time.Now())
	l.Body = body
	l.Kind, l.Confidence = kind, conf
	l.Tags, l.Entities, l.Triggers = o.tags, o.entities, o.triggers
	host, _ := os.Hostname()
	l.Source = learnings.Source{Harness: "manual", Trigger: "manual", Machine: host, Commit: head}
	l.SetAnchors(anchors)
	commit, err := learnings.Create(cmd.Context(), r, l, "learn: "+l.Title+" (manual)")
	if err != nil {
		return err
	}
	a.AfterWrite(r)
	if a.JSON() {
		return a.PrintJSON(map[string]string{"id": l.ID, "path": l.RelPath(), "project": l.Project, "commit": commit.String()})
	}
	a.Printf("%s\n", l.ID)
	return nil
}
