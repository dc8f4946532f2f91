package enginecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/spf13/cobra"

	"github.com/reflect-memory/reflect/cmd/internal/cli"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/shellquote"
	"github.com/reflect-memory/reflect/learnings"
)

func (a *app) demoCmd() *cobra.Command {
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "A tour of reflect on bundled sample data, in a temporary home",
		Long: `Tells reflect's story on bundled sample sessions, in a temporary directory: two laptops
share one memory through a git remote (a local directory). On laptop A, Claude Code's hooks
turn a user's correction into a learning at once and queue the session; laptop B joins the
memory, the drain turns A's session into learnings, and Codex's hooks recall them for a
prompt on the same subject; back on A, Gemini CLI and Cursor recall them too. Every step is a commit you can review. No network, no LLM,
no git binary needed; nothing of yours is read or changed.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd.Context(), keep) },
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary directory afterwards")
	return cmd
}

// demoLaptop is one of the demo's two machines: its knowledge repository, its checkout of the
// shop, and the agent that works there.
type demoLaptop struct {
	name, home, project, harness string
}

// demoTour is one run of the tour.
type demoTour struct {
	a     *app
	ctx   context.Context
	n     int               // the last step's number
	paths *strings.Replacer // the placeholders of fixtures/story, this run's paths
}

func (a *app) runDemo(ctx context.Context, keep bool) error {
	tmp, err := os.MkdirTemp("", "reflect-demo-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(tmp)
	}
	// The remote is a directory. go-git reaches one by running git-upload-pack and
	// git-receive-pack; the demo serves it in this process instead, so it needs no git.
	client.InstallProtocol("file", server.DefaultServer)

	A := &demoLaptop{name: "A", harness: "claude",
		home: filepath.Join(tmp, "laptop-a", "memory"), project: filepath.Join(tmp, "laptop-a", "src", "shop")}
	B := &demoLaptop{name: "B", harness: "codex",
		home: filepath.Join(tmp, "laptop-b", "memory"), project: filepath.Join(tmp, "laptop-b", "code", "acme-shop")}
	remote := filepath.Join(tmp, "remote.git")
	// where the hosts keep their sessions: Claude Code by the cwd, every non-alphanumeric a dash
	transcript := filepath.Join(tmp, "laptop-a", ".claude", "projects",
		regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(A.project, "-"), "7f3c1a9e-2b4d-4e8a-9c61-5d0e8b2f4a17.jsonl")
	rollout := filepath.Join(tmp, "laptop-b", ".codex", "sessions", "2026", "11", "22",
		"rollout-2026-11-22T09-12-03-019e4c2b-5d7a-7f31-9b08-6a2e1c4d8f90.jsonl")
	inJSON := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	d := &demoTour{a: a, ctx: ctx, paths: strings.NewReplacer(
		"@A_PROJECT@", inJSON(A.project), "@A_TRANSCRIPT@", inJSON(transcript),
		"@B_PROJECT@", inJSON(B.project), "@B_TRANSCRIPT@", inJSON(rollout))}
	if _, err := gogit.PlainInitWithOptions(remote, &gogit.PlainInitOptions{Bare: true,
		InitOptions: gogit.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}}); err != nil {
		return err
	}
	// the shop, checked out on each laptop at its own path, from the same remote in two spellings
	if err := fakeCheckout(A.project, "https://github.com/acme/shop.git", "main"); err != nil {
		return err
	}
	if err := fakeCheckout(B.project, "git@github.com:acme/shop.git", "main"); err != nil {
		return err
	}

	a.Printf("reflect demo: two laptops, two agents, one memory, in %s\n", tmp)
	a.Printf("(a temporary directory: nothing of yours is read or changed; no network, no LLM)\n")

	d.step("Laptop A starts the memory: a git repository, shared through a remote")
	if err := d.run(A, "init", "--remote", remote); err != nil {
		return err
	}

	d.step("Laptop A: Claude Code works on the shop (github.com/acme/shop)")
	a.Printf("Claude Code runs `reflect hook claude` on each event, the event's JSON on stdin, e.g.\n")
	a.Printf("  %s\n", d.fixture("claude-session-start.json"))
	if err := d.write(transcript, "claude-part1.jsonl"); err != nil {
		return err
	}
	for _, ev := range [][2]string{
		{"claude-session-start.json", "the memory is empty"},
		{"claude-prompt.json", "nothing to recall"},
		{"claude-tool-failure.json", ""},
		{"claude-correction.json", ""}, // a correction after a failure: committed at once, no LLM
		{"claude-precompact.json", ""}, // the session, as a condensed and redacted digest
	} {
		if err := d.hook(A, ev[0], ev[1]); err != nil {
			return err
		}
	}
	a.Printf("  … the session goes on: `go test ./db/...` fails until `make test-db` has made the test database\n")
	if err := d.write(transcript, "claude-part1.jsonl", "claude-part2.jsonl"); err != nil {
		return err
	}
	if err := d.hook(A, "claude-session-end.json", ""); err != nil {
		return err
	}

	d.step("Laptop A: the correction is a learning already; the session waits for the drain")
	for _, args := range [][]string{{"list"}, {"queue", "list"}, {"sync"}} {
		if err := d.run(A, args...); err != nil {
			return err
		}
	}

	d.step("Laptop B joins the memory")
	if err := d.run(B, "init", "--from", remote); err != nil {
		return err
	}

	d.step("Laptop B: Codex opens the shop, at another path and by its ssh remote: the same project")
	a.Printf("Codex runs `reflect hook codex`, with its own payloads:\n  %s\n", d.fixture("codex-session-start.json"))
	if err := d.hook(B, "codex-session-start.json", "nothing in the memory matches this workspace yet"); err != nil {
		return err
	}
	a.Printf("  A capture waits, so SessionStart starts `reflect drain` in the background. The demo starts\n")
	a.Printf("  no background process: it runs the drain here (heuristic extractor, offline).\n")
	before := d.head(B)
	if err := d.run(B, "drain"); err != nil {
		return err
	}
	d.commits(B, before, true)

	d.step("Laptop B: a prompt on the same subject recalls what laptop A's session taught")
	if err := d.hook(B, "codex-prompt.json", "nothing to recall"); err != nil {
		return err
	}
	a.Printf("  (the same prompt again, in the same session)\n")
	if err := d.hook(B, "codex-prompt.json", "a session is reminded of a learning once"); err != nil {
		return err
	}

	d.step("Search the memory")
	if err := d.run(B, "search", "--project", "github.com/acme/shop", "make|migrate"); err != nil {
		return err
	}

	d.step("One memory: laptop B shares what its drain learned, laptop A takes it in")
	if err := d.run(B, "sync"); err != nil {
		return err
	}
	if err := d.run(A, "sync"); err != nil {
		return err
	}

	d.step("Laptop A, the next morning: Gemini CLI and Cursor in the same shop remember it too")
	a.Printf("The project is the shop's remote whichever agent works in it; each host gets the lessons\n")
	a.Printf("in its own output shape (`reflect install --all` wires every agent found on a machine).\n")
	// on a real laptop the hooks that ran since the sync started the index's catch-up
	// detached; the tour starts nothing detached, so it does that work here, unprinted
	if err := d.quiet(A, "internal", "index"); err != nil {
		return err
	}
	for _, h := range []struct{ harness, fixture string }{{"gemini", "gemini-prompt.json"}, {"cursor", "cursor-prompt.json"}} {
		if err := d.hook(&demoLaptop{name: A.name, home: A.home, project: A.project, harness: h.harness}, h.fixture, "nothing to recall"); err != nil {
			return err
		}
	}

	d.step("Review it like code: the history, the same on both laptops")
	a.Printf("$ %s\n", shellJoin([]string{"git", "-C", A.home, "log", "--format=%h %s"}))
	d.commits(A, plumbing.ZeroHash, false)
	a.Printf("\nEach learning is a markdown file to read, edit, diff; this one the drain wrote on laptop B:\n")
	r, err := gitstore.Open(A.home)
	if err != nil {
		return err
	}
	all, _, err := learnings.LoadAll(r)
	r.Close()
	if err != nil {
		return err
	}
	for _, l := range all {
		if l.Kind == learnings.KindFix {
			if err := d.run(A, "show", l.ID); err != nil {
				return err
			}
		}
	}

	a.Printf("\nDone. Start for real with: reflect init --remote URL && reflect install claude (or codex)\n")
	if keep {
		a.Printf("The demo is kept in %s: laptop-a/memory, laptop-b/memory, remote.git\n", tmp)
	}
	return nil
}

func (d *demoTour) step(title string) {
	d.n++
	d.a.Printf("\n== %d. %s\n", d.n, title)
}

// run runs `reflect ARGS` on laptop l in this process, as a person would type it there.
func (d *demoTour) run(l *demoLaptop, args ...string) error {
	d.a.Printf("%s$ reflect %s\n", l.name, shellJoin(args))
	// one stream for the tour: what a command says on stderr reads in order with its output
	return d.exec(l, d.a.Stdin, d.a.Stdout, args)
}

// quiet runs reflect on laptop l as a hook would start it detached: nothing printed.
func (d *demoTour) quiet(l *demoLaptop, args ...string) error {
	return d.exec(l, strings.NewReader(""), io.Discard, args)
}

// exec runs `reflect --home <l's memory> ARGS` in this process, stdout and stderr to out.
func (d *demoTour) exec(l *demoLaptop, in io.Reader, out io.Writer, args []string) error {
	root := d.a.Sub(in, out, out).RootCmd()
	root.SetArgs(append([]string{"--home", l.home}, args...))
	return root.ExecuteContext(d.ctx)
}

// hook runs `reflect hook claude|codex` on laptop l with the story's payload name on stdin,
// and says what it did: the event, the JSON it printed (quiet says why there is none), the
// commit it made.
func (d *demoTour) hook(l *demoLaptop, name, quiet string) error {
	payload := d.fixture(name)
	var p struct {
		Event     string          `json:"hook_event_name"`
		Prompt    string          `json:"prompt"`
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return fmt.Errorf("fixture %s: %w", name, err)
	}
	what := ""
	switch {
	case p.Prompt != "":
		what = fmt.Sprintf("%q", p.Prompt)
	case p.ToolName != "":
		var in struct{ Command string }
		json.Unmarshal(p.ToolInput, &in)
		what = fmt.Sprintf("%s `%s` failed: %s", p.ToolName, in.Command, strings.Join(strings.Fields(p.Error), " "))
	}
	d.a.Printf("%s\n", strings.TrimRight(fmt.Sprintf("▸ %-18s %s", p.Event, what), " "))

	before := d.head(l)
	var out bytes.Buffer
	root := d.a.Sub(strings.NewReader(payload), &out, d.a.Stderr).RootCmd()
	root.SetArgs([]string{"--home", l.home, "hook", l.harness})
	if err := root.ExecuteContext(d.ctx); err != nil {
		return err
	}
	var last struct { // what the hook did, as it tells the status line
		Armed   bool   `json:"armed"`
		Skipped string `json:"skipped"`
		Error   string `json:"error"`
	}
	if r, err := gitstore.Open(l.home); err == nil {
		data, _ := r.ReadState("last-event.json")
		json.Unmarshal(data, &last)
		r.Close()
	}
	var o struct {
		HookSpecificOutput *struct{ AdditionalContext string }
		Cursor             string `json:"additional_context"`
	}
	switch printed := strings.TrimSpace(out.String()); {
	case printed == "":
		if quiet != "" {
			d.a.Printf("  no output: %s\n", quiet)
		}
	case json.Unmarshal([]byte(printed), &o) == nil && (o.HookSpecificOutput != nil || o.Cursor != ""):
		text, field := o.Cursor, "additional_context"
		if o.HookSpecificOutput != nil {
			text, field = o.HookSpecificOutput.AdditionalContext, "additionalContext"
		}
		d.a.Printf("  output: %s\n", demoClip(printed, 96))
		d.a.Printf("  its %s, which %s reads with the prompt:\n", field,
			map[string]string{"claude": "Claude", "codex": "Codex", "gemini": "Gemini CLI", "cursor": "Cursor"}[l.harness])
		for _, line := range strings.Split(text, "\n") {
			for _, w := range demoWrap(line, 96) {
				d.a.Printf("%s\n", strings.TrimRight("  │ "+w, " "))
			}
		}
	default:
		d.a.Printf("  output: %s\n", printed)
	}
	if last.Armed {
		d.a.Printf("  the correction watcher is armed for this session (local state, no commit)\n")
	}
	if last.Skipped != "" {
		d.a.Printf("  nothing captured: %s\n", last.Skipped)
	}
	if last.Error != "" {
		d.a.Printf("  error: %s\n", last.Error)
	}
	d.commits(l, before, false)
	return nil
}

// fixture is the story's file name with this run's paths in it.
func (d *demoTour) fixture(name string) string {
	data, err := fixtures.Story(name)
	if err != nil {
		panic(err) // the binary was built without its own fixtures
	}
	return strings.TrimSpace(d.paths.Replace(string(data)))
}

// write makes file the concatenation of the story's files names (a transcript as it grows).
func (d *demoTour) write(file string, names ...string) error {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(d.fixture(n) + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// head is the commit laptop l's memory is at (zero before its first).
func (d *demoTour) head(l *demoLaptop) plumbing.Hash {
	r, err := gitstore.Open(l.home)
	if err != nil {
		return plumbing.ZeroHash
	}
	defer r.Close()
	h, _ := r.Head()
	return h
}

// commits prints the commits of laptop l's memory after since, newest first: "commit ID
// subject" under a hook, `git log --format='%h %s'` for the history; full adds the body.
func (d *demoTour) commits(l *demoLaptop, since plumbing.Hash, full bool) {
	g, err := gogit.PlainOpen(l.home)
	if err != nil {
		return
	}
	if c, ok := g.Storer.(io.Closer); ok {
		defer c.Close()
	}
	head, err := g.Head()
	if err != nil {
		return
	}
	prefix := "  commit "
	if since.IsZero() {
		prefix = ""
	}
	for id := head.Hash(); !id.IsZero() && id != since; {
		c, err := g.CommitObject(id)
		if err != nil {
			return
		}
		subject, body, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
		d.a.Printf("%s%s %s\n", prefix, id.String()[:7], subject)
		if full {
			for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
				if line != "" {
					d.a.Printf("%s        %s\n", strings.Repeat(" ", len(prefix)), line)
				}
			}
		}
		id = plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			id = c.ParentHashes[0]
		}
	}
}

// demoWrap breaks s into lines of at most width runes at spaces. The lines after the first keep
// its indentation, two more under a list item ("- ").
func demoWrap(s string, width int) []string {
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))]
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	more := indent
	if strings.HasPrefix(s[len(indent):], "- ") {
		more += "  "
	}
	var out []string
	line := indent + words[0]
	for _, w := range words[1:] {
		if len([]rune(line))+1+len([]rune(w)) > width {
			out = append(out, line)
			line = more + w
			continue
		}
		line += " " + w
	}
	return append(out, line)
}

// demoClip keeps the first n runes of s, marking a cut with "…".
func demoClip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// fakeCheckout makes dir look like a clone of remote on branch, as far as reflect reads one:
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
		out[i] = shellquote.Quote(s)
	}
	return strings.Join(out, " ")
}
