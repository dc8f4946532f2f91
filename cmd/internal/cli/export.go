package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/agentsmd"
	"github.com/reflect-memory/reflect/internal/atomicfile"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/workspace"
)

func (a *App) exportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write learnings into files other tools read",
	}
	cmd.AddCommand(a.exportAgentsMDCmd())
	return cmd
}

type exportOptions struct {
	project, file, cwd string
	check              bool
	maxLines           int
}

func (a *App) exportAgentsMDCmd() *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "agents-md [--project KEY] [--file AGENTS.md|CLAUDE.md|.github/copilot-instructions.md|GEMINI.md] [--check] [--max-lines N]",
		Short: "Compile the project's reviewed learnings into a marked block of AGENTS.md",
		Long: `Write the project's reviewed, current, high- and medium-confidence learnings (yours and
your teams') into the block between <!-- reflect:begin --> and <!-- reflect:end --> of
--file (AGENTS.md at the top of the project by default), grouped by kind, one line each
with its id. Everything outside the block is kept as it is; a file without one gets it at
its end. The output depends only on the learnings: a second run changes nothing. --check
writes nothing and exits 6 when the block is out of date (for CI).`,
		Args: NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.maxLines < 0 {
				return FlagErrorf("--max-lines must be 0 (no bound) or more (got %d)", o.maxLines)
			}
			if o.cwd == "" {
				o.cwd, _ = os.Getwd()
			}
			ws, _ := workspace.Read(o.cwd, 0)
			if o.project == "" {
				o.project = ws.Project
			}
			if err := learnings.ValidProjectKey(o.project); err != nil || o.project == learnings.Global {
				return FlagErrorf("--project: %q is not a project key (run it inside the project's repository, or name one: reflect list shows them)", o.project)
			}
			path := o.file
			if !filepath.IsAbs(path) {
				top := ws.Root
				if top == "" {
					top = o.cwd
				}
				path = filepath.Join(top, path)
			}
			r, err := a.Repo()
			if err != nil {
				return err
			}
			es, err := agentsmd.Collect(r, o.project)
			if err != nil {
				return err
			}
			old, err := os.ReadFile(path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			next, err := agentsmd.Splice(path, old, agentsmd.Block(o.project, es, o.maxLines))
			if err != nil {
				return err
			}
			changed := string(next) != string(old)
			if o.check {
				if a.JSON() {
					a.PrintJSON(map[string]any{"file": path, "project": o.project, "learnings": len(es), "up_to_date": !changed})
				}
				if changed {
					return fmt.Errorf("%w in %s: run reflect export agents-md --project %s --file %s", agentsmd.ErrStale, path, o.project, o.file)
				}
				if !a.JSON() {
					a.Printf("%s is up to date (%d learnings)\n", path, len(es))
				}
				return nil
			}
			if changed {
				perm := os.FileMode(0o644)
				if fi, err := os.Stat(path); err == nil {
					perm = fi.Mode().Perm()
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := atomicfile.Write(path, next, perm); err != nil {
					return err
				}
			}
			if a.JSON() {
				if es == nil {
					es = []agentsmd.Entry{}
				}
				return a.PrintJSON(map[string]any{"file": path, "project": o.project, "changed": changed, "learnings": es})
			}
			if changed {
				a.Printf("wrote %d learnings of %s into %s\n", len(es), o.project, path)
			} else {
				a.Printf("%s is up to date (%d learnings)\n", path, len(es))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.project, "project", "", "project key (default: the project of --cwd)")
	f.StringVar(&o.file, "file", "AGENTS.md", "the file to write, relative to the project's top")
	f.StringVar(&o.cwd, "cwd", "", "a directory of the project (default: this one)")
	f.BoolVar(&o.check, "check", false, "write nothing; exit 6 when the block is out of date")
	f.IntVar(&o.maxLines, "max-lines", 0, "list at most N learnings (0: all)")
	return cmd
}
