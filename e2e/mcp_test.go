package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient starts `reflect mcp` in dir as a host would and connects the SDK's client to it.
func mcpClient(t *testing.T, environ []string, home, dir string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(reflectBin(t), "--home", home, "mcp")
	cmd.Dir, cmd.Env = dir, environ
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool and returns its text and whether it is a tool error; a protocol error
// (the server could not answer at all) fails the test.
func call(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// callOK calls a tool that must succeed and decodes its answer into out.
func callOK(t *testing.T, s *sdk.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	text, isErr := call(t, s, name, args)
	if isErr {
		t.Fatalf("%s %v: tool error %s", name, args, text)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s: answer is not JSON: %v\n%s", name, err, text)
	}
	return text
}

// callErr calls a tool that must fail with a tool error holding every one of want.
func callErr(t *testing.T, s *sdk.ClientSession, name string, args map[string]any, want ...string) {
	t.Helper()
	text, isErr := call(t, s, name, args)
	if !isErr {
		t.Fatalf("%s %v: want a tool error, got %s", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("%s: error %q does not say %q", name, text, w)
		}
	}
}

type searchAnswer struct {
	Hits []struct {
		ID, Title, Kind, Confidence, Project, Date, Snippet string
		Score                                               float64
	}
	Total     int
	Truncated bool
	Note      string
}

func hitIDs(a searchAnswer) []string {
	var out []string
	for _, h := range a.Hits {
		out = append(out, h.ID)
	}
	return out
}

func TestMCPServer(t *testing.T) {
	environ := env(t)
	home := initRepo(t, environ)
	proj := filepath.Join(t.TempDir(), "shop")
	run(t, environ, ".", "git", "init", "-q", proj)
	run(t, environ, proj, "git", "remote", "add", "origin", "git@github.com:acme/shop.git")
	const project = "github.com/acme/shop"
	s := mcpClient(t, environ, home, proj)

	t.Run("initialize and list the five tools", func(t *testing.T) {
		init := s.InitializeResult()
		if init.ServerInfo.Name != "reflect" || !strings.Contains(init.Instructions, "memory_recall") {
			t.Fatalf("initialize: %+v", init)
		}
		res, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
				t.Errorf("%s: description, input and output schemas are required: %+v", tl.Name, tl)
			}
			in, _ := json.Marshal(tl.InputSchema)
			if !strings.Contains(string(in), `"required"`) || !strings.Contains(string(in), `"description"`) {
				t.Errorf("%s: input schema without required fields or descriptions: %s", tl.Name, in)
			}
		}
		slices.Sort(names)
		if want := []string{"history_search", "memory_get", "memory_recall", "memory_remember", "memory_search"}; !slices.Equal(names, want) {
			t.Fatalf("tools %v, want %v", names, want)
		}
	})

	t.Run("empty memory", func(t *testing.T) {
		var a searchAnswer
		callOK(t, s, "memory_search", map[string]any{"query": "migrations"}, &a)
		if len(a.Hits) != 0 || a.Total != 0 || !strings.Contains(a.Note, "no learning matches") {
			t.Fatalf("search of an empty memory: %+v", a)
		}
		var r struct {
			Context   string
			Learnings []any
			Project   string
		}
		callOK(t, s, "memory_recall", map[string]any{"task": "run the database migrations of the shop"}, &r)
		if r.Context != "" || len(r.Learnings) != 0 || r.Project != project {
			t.Fatalf("recall of an empty memory: %+v", r)
		}
		var h struct {
			Results []any
			Note    string
		}
		callOK(t, s, "history_search", map[string]any{"query": "checkout"}, &h)
		if len(h.Results) != 0 || !strings.Contains(h.Note, "reflect history import") {
			t.Fatalf("history of an empty archive: %+v", h)
		}
	})

	before := commitCount(t, environ, home)
	t.Run("bad arguments are tool errors that change nothing", func(t *testing.T) {
		callErr(t, s, "memory_get", map[string]any{"ids": []string{"lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C"}}, "no learning", "memory_search")
		callErr(t, s, "memory_get", map[string]any{"ids": []string{}}, "ids")
		callErr(t, s, "memory_search", map[string]any{"query": `"unclosed`}, "unterminated quote", "syntax")
		callErr(t, s, "memory_search", map[string]any{"query": "tags:/[/"}, "query")
		callErr(t, s, "memory_search", map[string]any{"query": strings.Repeat("word ", 400)}, "at most 1000")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "limit": 500}, "limit")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "kind": "gossip"}, "kind")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "project": "../../etc"}, "project")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "project": project, "global": true}, "not both")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "limit": "ten"}, "limit")
		callErr(t, s, "memory_search", map[string]any{"query": "x", "colour": "blue"}, "colour")
		callErr(t, s, "memory_recall", map[string]any{"task": strings.Repeat("long task ", 1000)}, "at most 4000")
		callErr(t, s, "memory_remember", map[string]any{"title": ""}, "title")
		callErr(t, s, "memory_remember", map[string]any{"title": "two\nlines"}, "one line")
		callErr(t, s, "memory_remember", map[string]any{"title": strings.Repeat("t", 300)}, "at most 200")
		callErr(t, s, "memory_remember", map[string]any{"title": "ok", "body": strings.Repeat("b", 100000)}, "body", "at most 16000")
		callErr(t, s, "memory_remember", map[string]any{"title": "ok", "kind": "gossip"}, "kind")
		callErr(t, s, "memory_remember", map[string]any{"title": "ok", "tags": []string{"a\nb"}}, "tags")
		callErr(t, s, "history_search", map[string]any{"query": "x", "budget_chars": 10}, "budget_chars")
		if got := commitCount(t, environ, home); got != before {
			t.Fatalf("a refused call committed: %s commits, was %s", got, before)
		}
	})

	const secret = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
	var migrateID string
	t.Run("remember, then search finds it", func(t *testing.T) {
		var r struct {
			ID, Project, Commit string
			SeenAgain           bool `json:"seen_again"`
		}
		callOK(t, s, "memory_remember", map[string]any{
			"title": "Run database migrations with make migrate, not go run ./cmd/migrate",
			"body":  "go run ./cmd/migrate skips the lock table; make migrate takes it. The CI token is " + secret + ".",
			"kind":  "fix", "tags": []string{"postgres", "migrations"}, "triggers": []string{"relation schema_lock does not exist"},
		}, &r)
		if r.ID == "" || r.Project != project || r.SeenAgain {
			t.Fatalf("remember: %+v", r)
		}
		migrateID = r.ID
		if got := commitCount(t, environ, home); got == before {
			t.Fatal("remember made no commit")
		}
		if msg := run(t, environ, home, "git", "log", "-1", "--format=%s"); !strings.Contains(msg, "(mcp)") {
			t.Fatalf("commit message %q", msg)
		}
		file := run(t, environ, home, "git", "show", "HEAD:learnings/"+project+"/"+r.ID+".md")
		if strings.Contains(file, secret) || !strings.Contains(file, "[REDACTED") || !strings.Contains(file, "harness: mcp") {
			t.Fatalf("the learning as committed:\n%s", file)
		}
		if log := run(t, environ, home, "git", "log", "-p", "--all"); strings.Contains(log, secret) {
			t.Fatal("the secret reached git")
		}
		var a searchAnswer
		callOK(t, s, "memory_search", map[string]any{"query": "migrate"}, &a)
		if !slices.Contains(hitIDs(a), r.ID) || a.Hits[0].Kind != "fix" || a.Hits[0].Date == "" {
			t.Fatalf("search after remember: %+v", a)
		}
		for _, h := range a.Hits {
			if len(h.Snippet) > 300 {
				t.Fatalf("a snippet of %d bytes", len(h.Snippet))
			}
		}
		var g struct {
			Learnings []struct {
				ID, Title, Body, Harness string
				Tags, Triggers           []string
				Seen                     int
			}
		}
		callOK(t, s, "memory_get", map[string]any{"ids": []string{r.ID[len(r.ID)-6:]}}, &g)
		if len(g.Learnings) != 1 || g.Learnings[0].ID != r.ID || !strings.Contains(g.Learnings[0].Body, "lock table") || g.Learnings[0].Harness != "mcp" {
			t.Fatalf("get: %+v", g)
		}
	})

	t.Run("the same lesson again is counted seen, not added", func(t *testing.T) {
		n := run(t, environ, home, "git", "ls-files", "learnings")
		var r struct {
			ID        string
			SeenAgain bool `json:"seen_again"`
		}
		callOK(t, s, "memory_remember", map[string]any{
			"title": "run the database migrations with make migrate, not go run ./cmd/migrate", "kind": "fix", "tags": []string{"make"}}, &r)
		if !r.SeenAgain || r.ID != migrateID {
			t.Fatalf("the same lesson again: %+v", r)
		}
		if run(t, environ, home, "git", "ls-files", "learnings") != n {
			t.Fatal("a near-identical lesson added a file")
		}
		file := run(t, environ, home, "git", "show", "HEAD:learnings/"+project+"/"+migrateID+".md")
		if !strings.Contains(file, "seen: 2") || !strings.Contains(file, "make") {
			t.Fatalf("seen again:\n%s", file)
		}
		// a title that reads alike but says something else is a learning of its own
		r.ID, r.SeenAgain = "", false
		callOK(t, s, "memory_remember", map[string]any{
			"title": "Run database migrations with `make migrate --dry-run`, not go run ./cmd/migrate", "kind": "fix"}, &r)
		if r.SeenAgain || r.ID == migrateID {
			t.Fatalf("another lesson taken for the same: %+v", r)
		}
	})

	t.Run("a hook capture between two calls is seen by the next", func(t *testing.T) {
		var a searchAnswer
		callOK(t, s, "memory_search", map[string]any{"query": "pnpm"}, &a)
		if len(a.Hits) != 0 {
			t.Fatalf("pnpm before the hook: %+v", a)
		}
		runHook(t, environ, home, "claude", map[string]any{"session_id": "s-mcp", "cwd": proj, "hook_event_name": "UserPromptSubmit",
			"prompt": "remember: always install the shop's dependencies with pnpm, never npm"})
		callOK(t, s, "memory_search", map[string]any{"query": "pnpm"}, &a)
		if len(a.Hits) != 1 || a.Hits[0].Project != project {
			t.Fatalf("the hook's learning is not found by the next call: %+v", a)
		}
	})

	t.Run("recall what a hook would inject", func(t *testing.T) {
		// words held by over a third of the learnings are left out of a recall's query: give
		// the memory a few other lessons, written by another process while the server runs
		for _, title := range []string{"Checkout tests need the cart fixture loaded first", "Prefer table tests in the pricing package",
			"The staging deploy waits for the smoke tests", "Feature flags live in config/flags.yaml", "Use UTC for every stored timestamp",
			"Emails are sent by the worker, never inline"} {
			run(t, environ, proj, reflectBin(t), "--home", home, "add", "--title", title, "--body", title+".")
		}
		var r struct {
			Context   string
			Learnings []struct{ ID, Title string }
		}
		callOK(t, s, "memory_recall", map[string]any{"task": "apply the database migrations of the shop with go run ./cmd/migrate"}, &r)
		if len(r.Learnings) == 0 || r.Learnings[0].ID != migrateID || !strings.Contains(r.Context, "make migrate") {
			t.Fatalf("recall: %+v", r)
		}
		out := run(t, environ, proj, reflectBin(t), "--home", home, "recall", "--prompt", "apply the database migrations of the shop with go run ./cmd/migrate")
		if strings.TrimSpace(out) != strings.TrimSpace(r.Context) {
			t.Fatalf("memory_recall differs from reflect recall:\n%s\n---\n%s", r.Context, out)
		}
		callOK(t, s, "memory_recall", map[string]any{"task": "draw a unicorn in the README"}, &r)
		if r.Context != "" || len(r.Learnings) != 0 {
			t.Fatalf("an unrelated task recalled %+v", r)
		}
	})

	t.Run("history search is budgeted", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude-session.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		tr := filepath.Join(t.TempDir(), "5b0c2f7e-3d1a-4c8e-9f2b-7a6d1e0c4b93.jsonl")
		os.WriteFile(tr, src, 0o644)
		run(t, environ, ".", reflectBin(t), "--home", home, "history", "import", "--transcript", tr)
		var h struct {
			Results []struct {
				Windows []struct {
					Messages []struct{ Text, Input string }
				}
			}
			BudgetReached bool `json:"budget_reached"`
			Note          string
		}
		callOK(t, s, "history_search", map[string]any{"query": "checkout", "global": true}, &h)
		if len(h.Results) == 0 {
			t.Fatalf("history: %+v", h)
		}
		text := callOK(t, s, "history_search", map[string]any{"query": "checkout|test", "global": true, "budget_chars": 500}, &h)
		shown := 0
		for _, r := range h.Results {
			for _, w := range r.Windows {
				for _, m := range w.Messages {
					shown += len([]rune(m.Text)) + len([]rune(m.Input))
				}
			}
		}
		// the budget counts the messages' text; the markers that say what was cut come on top
		if shown > 600 || !h.BudgetReached || !strings.Contains(h.Note, "budget_chars") || len(text) > 8000 {
			t.Fatalf("a 500-character budget showed %d characters (budget reached %v, note %q, %d bytes)", shown, h.BudgetReached, h.Note, len(text))
		}
	})

	t.Run("the server is still up and the repository healthy", func(t *testing.T) {
		if _, err := s.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		assertHealthy(t, environ, home)
	})
}
