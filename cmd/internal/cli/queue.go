package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/drain/drainstate"
	"github.com/reflect-memory/reflect/provenance"
	"github.com/reflect-memory/reflect/queue"
)

func (a *App) queueCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "Captured sessions waiting to become learnings",
		Args:  NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		&cobra.Command{
			Use: "list", Short: "List pending and failed captures, oldest first", Args: NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				r, err := a.Repo()
				if err != nil {
					return err
				}
				items, bad, err := queue.List(r)
				if err != nil {
					return err
				}
				for _, e := range bad {
					fmt.Fprintf(a.Stderr, "reflect: skipped %v\n", e)
				}
				if a.JSON() {
					out := make([]map[string]any, 0, len(items))
					for _, it := range items {
						e := it.Entry
						out = append(out, map[string]any{"id": e.ID, "harness": e.Harness, "session": e.Session,
							"trigger": e.Trigger, "project": e.Project, "created": e.Created, "updated": e.Updated,
							"messages": e.Messages, "prompts": e.Digest.Prompts, "failures": e.Digest.Failures,
							"failed": it.Failed, "error": e.Error, "path": it.Path})
					}
					return a.PrintJSON(out)
				}
				if len(items) == 0 {
					fmt.Fprintln(a.Stderr, "the queue is empty")
					return nil
				}
				tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSTATE\tHARNESS\tSESSION\tTRIGGER\tPROJECT\tPROMPTS\tFAILURES")
				for _, it := range items {
					e := it.Entry
					state := "pending"
					if it.Failed {
						state = "failed"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", e.ID, state, e.Harness, queue.Short(e.Session),
						e.Trigger, e.Project, e.Digest.Prompts, e.Digest.Failures)
				}
				return tw.Flush()
			},
		},
		&cobra.Command{
			Use: "show ID", Short: "Print a capture (a unique prefix of its id is enough)",
			Args: ExactArgs(1, "queue show needs the id of an entry"),
			RunE: func(cmd *cobra.Command, args []string) error {
				r, err := a.Repo()
				if err != nil {
					return err
				}
				items, _, err := queue.List(r)
				if err != nil {
					return err
				}
				it, err := queue.Find(items, args[0])
				if err != nil {
					return err
				}
				if a.JSON() {
					return a.PrintJSON(it.Entry)
				}
				e := it.Entry
				a.Printf("%s  %s session %s (%s) in %s\n", e.ID, e.Harness, e.Session, e.Trigger, e.Project)
				a.Printf("captured %s on %s, %d messages, %d prompts, %d failures\n\n", e.Updated.Format("2006-01-02 15:04"),
					e.Machine, e.Messages, e.Digest.Prompts, e.Digest.Failures)
				for _, n := range e.Digest.Notes {
					head := n.Kind
					if n.Tool != "" {
						head += " (" + n.Tool + ")"
					}
					a.Printf("[%s]\n", head)
					if n.Input != "" {
						a.Printf("  $ %s\n", strings.ReplaceAll(n.Input, "\n", "\n    "))
					}
					if n.Text != "" {
						a.Printf("  %s\n", strings.ReplaceAll(n.Text, "\n", "\n  "))
					}
				}
				if e.Error != "" {
					a.Printf("\nfailed: %s\n", e.Error)
				}
				return nil
			},
		},
		&cobra.Command{
			Use: "drop ID", Short: "Remove a capture for good (one commit)",
			Args: ExactArgs(1, "queue drop needs the id of an entry"),
			RunE: func(cmd *cobra.Command, args []string) error {
				r, err := a.Repo()
				if err != nil {
					return err
				}
				e, err := queue.Drop(cmd.Context(), r, args[0])
				if err != nil {
					return err
				}
				a.AfterWrite(r)
				if a.JSON() {
					return a.PrintJSON(map[string]string{"id": e.ID, "dropped": "true"})
				}
				a.Printf("dropped %s (%s session %s)\n", e.ID, e.Harness, queue.Short(e.Session))
				return nil
			},
		},
		a.queueRetryCmd(),
	)
	return cmd
}

func (a *App) queueRetryCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "retry ID|--all",
		Short: "Bring failed captures back to the queue, and lift a pause of LLM draining",
		Args: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) || len(args) > 1 {
				return FlagErrorf("queue retry needs the id of a failed entry, or --all")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.Repo()
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			moved, err := queue.Retry(cmd.Context(), r, id, all, time.Now(), provenance.CapturedBy(r))
			if err != nil {
				return err
			}
			resumed, err := drainstate.Resume(r)
			if err != nil {
				return err
			}
			ids := make([]string, 0, len(moved))
			for _, e := range moved {
				ids = append(ids, e.ID)
			}
			if a.JSON() {
				return a.PrintJSON(map[string]any{"retried": ids, "resumed": resumed})
			}
			for _, id := range ids {
				a.Printf("back in the queue: %s\n", id)
			}
			if len(ids) == 0 {
				fmt.Fprintln(a.Stderr, "no failed entries")
			}
			if resumed {
				a.Printf("LLM draining resumed\n")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every failed entry")
	return cmd
}
