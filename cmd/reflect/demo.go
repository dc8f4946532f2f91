package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

func (a *app) demoCmd() *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "A tour of reflect on bundled sample data, in a temporary home",
		Long: `Runs reflect on the bundled fixtures in a temporary directory: it creates a knowledge
repository, commits sample learnings the way captures would, and shows listing, reading,
superseding, search, what a new agent session would be reminded of, and the git history a
person reviews. Nothing of yours is read or changed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd, keep) },
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary home afterwards")
	return cmd
}

func (a *app) runDemo(cmd *cobra.Command, keep bool) error {
	tmp, err := os.MkdirTemp("", "reflect-demo-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(tmp)
	}
	home := filepath.Join(tmp, "memory")
	step := func(n int, title string) { a.printf("\n== %d. %s\n", n, title) }
	run := func(args ...string) error {
		a.printf("$ reflect %s\n", shellJoin(args))
		// one stream for the tour: notes (recall --explain) read in order with the output
		sub := &app{stdin: a.stdin, stdout: a.stdout, stderr: a.stdout, noBackground: true}
		root := sub.rootCmd()
		root.SetArgs(append([]string{"--home", home}, args...))
		return root.ExecuteContext(cmd.Context())
	}

	a.printf("reflect demo: a knowledge repository in %s (nothing of yours is touched)\n", home)
	step(1, "Create the knowledge repository: a plain git repository")
	if err := run("init"); err != nil {
		return err
	}
	r, err := gitstore.Open(home)
	if err != nil {
		return err
	}

	step(2, "Agents' sessions become learnings: one markdown file and one commit each")
	for _, f := range fixtures.Learnings() {
		l, err := learnings.Parse(f.Name, f.Data)
		if err != nil {
			return err
		}
		from := l.Source.Harness
		if s := l.Source.Session; len(s) >= 8 {
			from += " " + s[:8]
		}
		if _, err := learnings.Create(cmd.Context(), r, l, fmt.Sprintf("learn: %s (from %s)", l.Title, from)); err != nil {
			return err
		}
		a.printf("  %-28s %-10s %s\n", l.Project, l.Kind, l.Title)
	}

	step(3, "Add one by hand")
	if err := run("add", "--global", "--kind", "rule", "--confidence", "high", "--tag", "go",
		"--title", "Wrap errors with %w and say what was being done",
		"--body", "`fmt.Errorf(\"parse %s: %w\", path, err)` keeps errors.Is working and tells the reader where."); err != nil {
		return err
	}

	step(4, "List what the agents know")
	if err := run("list"); err != nil {
		return err
	}

	all, _, err := learnings.LoadAll(r)
	if err != nil {
		return err
	}
	first, web, retired := all[0], "", ""
	for _, l := range all {
		switch {
		case l.Project == "github.com/acme/web" && l.Kind == learnings.KindRecipe:
			web = l.ID
		case strings.Contains(l.Title, "rm -rf"):
			retired = l.ID
		}
	}
	step(5, "Read one: it is a file a person can review and edit")
	if err := run("show", first.ID[:12]); err != nil {
		return err
	}

	step(6, "Correct the memory: a newer learning supersedes an older one")
	var out strings.Builder
	sub := &app{stdin: a.stdin, stdout: &out, stderr: a.stderr, noBackground: true}
	root := sub.rootCmd()
	root.SetArgs([]string{"--home", home, "add", "--project", "github.com/acme/web", "--kind", "recipe",
		"--title", "Rebuild the web bundle with pnpm 9 and corepack",
		"--body", "Run `corepack enable` once, then `pnpm install --frozen-lockfile && pnpm build`."})
	if err := root.ExecuteContext(cmd.Context()); err != nil {
		return err
	}
	newID := strings.TrimSpace(out.String())
	if err := run("supersede", web, "--by", newID); err != nil {
		return err
	}
	if err := run("archive", retired, "--reason", "covered by the shell linter now"); err != nil {
		return err
	}

	step(7, "Search it: this project's learnings and the global ones, or --global for all")
	if err := run("search", "--global", "oauth|redirect state"); err != nil {
		return err
	}

	step(8, "Recall: what a new agent session in github.com/acme/auth-service is reminded of")
	proj := filepath.Join(tmp, "auth-service")
	if err := fakeCheckout(proj, "git@github.com:acme/auth-service.git", "fix/oauth-redirect-state"); err != nil {
		return err
	}
	if err := run("recall", "--cwd", proj); err != nil {
		return err
	}
	a.printf("\n")
	if err := run("recall", "--cwd", proj, "--explain", "--prompt", "the integration tests fail against sqlite, which database should they use?"); err != nil {
		return err
	}

	step(9, "Review it like code: the git history")
	log, err := r.Log(20)
	if err != nil {
		return err
	}
	a.printf("$ git -C %s log --oneline\n", home)
	for _, c := range log {
		a.printf("%s %s\n", c.ID.String()[:7], c.Subject)
	}
	a.printf("\nDone. Start for real with: reflect init && reflect add --title \"...\"\n")
	if keep {
		a.printf("The demo repository is kept at %s\n", home)
	}
	return nil
}

// fakeCheckout makes dir look like a clone of remote on branch, as far as recall reads one:
// .git/HEAD and the origin remote in .git/config (no git needed).
func fakeCheckout(dir, remote, branch string) error {
	gitDir := filepath.Join(dir, ".git")
	if err := os.MkdirAll(filepath.Join(gitDir, "refs", "heads"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		return err
	}
	cfg := "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = " + remote + "\n"
	return os.WriteFile(filepath.Join(gitDir, "config"), []byte(cfg), 0o644)
}

// shellJoin quotes args the way a person would type them.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if s == "" || strings.ContainsAny(s, " \t\"'`$\\%|&;<>()*?") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}
