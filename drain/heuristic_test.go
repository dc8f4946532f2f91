package drain

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/queue"
	"github.com/reflect-memory/reflect/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files of the heuristic extractor")

// fixtureEntry builds the entry the hooks would enqueue for one of the project's transcript
// fixtures.
func fixtureEntry(t *testing.T, file string) *queue.Entry {
	t.Helper()
	s, err := transcript.ReadFile(filepath.Join("..", "fixtures", "transcripts", file))
	if err != nil {
		t.Fatal(err)
	}
	return &queue.Entry{ID: "q-01JNTEST000000000000000000", Harness: string(s.Harness), Session: s.ID,
		Trigger: "session-end", Project: "local/test", Machine: "test", Messages: len(s.Messages),
		Digest: queue.BuildDigest(s.Messages, 48<<10)}
}

func extractHeuristic(t *testing.T, e *queue.Entry, existing ...Existing) []Proposal {
	t.Helper()
	ps, u, err := Heuristic().Extract(context.Background(), Input{Entry: e, Existing: existing})
	if err != nil {
		t.Fatal(err)
	}
	if u != (Usage{}) {
		t.Errorf("usage = %+v, want none", u)
	}
	checkValid(t, ps)
	return ps
}

// checkValid turns every proposal into a learning, as the drain does, and validates it.
func checkValid(t *testing.T, ps []Proposal) {
	t.Helper()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for i, p := range ps {
		l := learnings.New(p.Title, "local/test", now)
		l.Kind, l.Confidence = learnings.Kind(p.Kind), learnings.Confidence(p.Confidence)
		l.Tags, l.Entities, l.Source.Files, l.Body = p.Tags, p.Entities, p.Files, p.Body
		if err := l.Validate(); err != nil {
			t.Errorf("proposal %d %q: %v", i, p.Title, err)
		}
		if p.Kind == "fix" && len([]rune(p.Title)) > hFixTitleMax {
			t.Errorf("fix title %q is longer than %d", p.Title, hFixTitleMax)
		}
		if strings.TrimSpace(p.Body) == "" {
			t.Errorf("proposal %d %q has no body", i, p.Title)
		}
		for _, tag := range p.Tags {
			if tag != strings.ToLower(tag) || strings.ContainsAny(tag, " \t") {
				t.Errorf("proposal %d: tag %q is not one lowercase word", i, tag)
			}
		}
	}
}

// renderProposals is the golden form: one block per proposal, the body verbatim.
func renderProposals(ps []Proposal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d proposals\n", len(ps))
	for i, p := range ps {
		fmt.Fprintf(&b, "\n=== %d\ntitle: %s\nkind: %s\nconfidence: %s\n", i+1, p.Title, p.Kind, p.Confidence)
		fmt.Fprintf(&b, "tags: %s\nentities: %s\nfiles: %s\n", strings.Join(p.Tags, ", "), strings.Join(p.Entities, ", "), strings.Join(p.Files, ", "))
		if p.Global {
			b.WriteString("global: true\n")
		}
		if p.DuplicateOf != "" {
			fmt.Fprintf(&b, "duplicate_of: %s\n", p.DuplicateOf)
		}
		b.WriteString("--- body\n" + p.Body)
		if !strings.HasSuffix(p.Body, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestHeuristicFixtures(t *testing.T) {
	tests := []struct {
		file string
		// the lessons a person would write down: title, kind, confidence
		want [][3]string
	}{
		{"claude-session.jsonl", [][3]string{{"Use pnpm instead of npm", "correction", "medium"}}},
		{"codex-rollout.jsonl", [][3]string{{"Use pnpm instead of npm", "correction", "medium"}}},
		{"codex-legacy.jsonl", [][3]string{{"Don't silence it with nolint, handle the error", "correction", "medium"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ps := extractHeuristic(t, fixtureEntry(t, tt.file))
			var got [][3]string
			for _, p := range ps {
				got = append(got, [3]string{p.Title, p.Kind, p.Confidence})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("proposals = %q, want %q", got, tt.want)
			}
			golden := filepath.Join("testdata", "heuristic", strings.TrimSuffix(tt.file, ".jsonl")+".golden")
			out := renderProposals(ps)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./drain -run Heuristic -update)", err)
			}
			if out != string(want) {
				t.Errorf("%s differs (run go test ./drain -run Heuristic -update to accept):\n--- got\n%s\n--- want\n%s", golden, out, want)
			}
		})
	}
}

// What the fixtures' proposals must say, beyond their titles.
func TestHeuristicFixtureDetails(t *testing.T) {
	claude := extractHeuristic(t, fixtureEntry(t, "claude-session.jsonl"))[0]
	for _, s := range []string{"`npm test -- checkout` (Bash, exit code 1)", "EUNSUPPORTEDPROTOCOL",
		"rejected by the user", "> no, use pnpm instead of npm", "What worked after: All 12 checkout tests pass"} {
		if !strings.Contains(claude.Body, s) {
			t.Errorf("claude correction body lacks %q:\n%s", s, claude.Body)
		}
	}
	for _, tag := range []string{"npm", "pnpm", "tests"} {
		if !contains(claude.Tags, tag) {
			t.Errorf("claude correction tags %q lack %q", claude.Tags, tag)
		}
	}
	legacy := extractHeuristic(t, fixtureEntry(t, "codex-legacy.jsonl"))[0]
	if !contains(legacy.Files, "internal/fetch/fetch.go") || !strings.Contains(legacy.Body, "ineffectual assignment to err") {
		t.Errorf("legacy correction lost the lint error: files %q\n%s", legacy.Files, legacy.Body)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestHeuristicAPI(t *testing.T) {
	h := Heuristic()
	if h.Name() != "heuristic" || h.LLM() {
		t.Errorf("Name, LLM = %q, %v", h.Name(), h.LLM())
	}
	if _, _, err := h.Extract(context.Background(), Input{}); !errors.Is(err, ErrBadAnswer) {
		t.Errorf("nil entry: err = %v, want ErrBadAnswer", err)
	}
	ps, _, err := h.Extract(context.Background(), Input{Entry: &queue.Entry{}})
	if err != nil || len(ps) != 0 {
		t.Errorf("empty entry: %v, %v", ps, err)
	}
}

// Synthetic sessions, as digests.

func prompt(s string) queue.Note     { return queue.Note{Kind: queue.NotePrompt, Text: s} }
func conclusion(s string) queue.Note { return queue.Note{Kind: queue.NoteConclusion, Text: s} }
func said(s string) queue.Note       { return queue.Note{Kind: queue.NoteFollowup, Text: s} }
func ran(tool, in string) queue.Note {
	return queue.Note{Kind: queue.NoteFollowup, Tool: tool, Input: in}
}

// worked and broke are followup calls as the digest records them since it keeps outcomes.
func worked(tool, in string) queue.Note {
	return queue.Note{Kind: queue.NoteFollowup, Tool: tool, Input: in, Outcome: queue.OutcomeOK}
}
func broke(tool, in string) queue.Note {
	return queue.Note{Kind: queue.NoteFollowup, Tool: tool, Input: in, Outcome: queue.OutcomeFailed}
}
func inAgent(agent string, ns ...queue.Note) []queue.Note {
	for i := range ns {
		ns[i].Agent = agent
	}
	return ns
}

func failed(tool, in, out string, code int) queue.Note {
	return queue.Note{Kind: queue.NoteFailure, Tool: tool, Input: in, Text: out, ExitCode: &code}
}

func entryOf(notes ...queue.Note) *queue.Entry {
	return &queue.Entry{ID: "q-01JNTEST000000000000000000", Session: "s", Digest: queue.Digest{Notes: notes}}
}

type wantProposal struct {
	title, kind, conf string
	global            bool
	body              []string // substrings of the body
	notBody           []string
	tags              []string
}

func TestHeuristicSessions(t *testing.T) {
	goTestFail := "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/p\t0.01s"
	tests := []struct {
		name  string
		notes []queue.Note
		want  []wantProposal
	}{{
		name: "clean session",
		notes: []queue.Note{
			prompt("add a --verbose flag to the CLI"),
			conclusion("Added --verbose to cmd/tool/main.go; go test ./... passes."),
			prompt("great, now update the README"),
			conclusion("Updated README.md with the new flag."),
		},
	}, {
		name: "approval after a failure is no correction",
		notes: []queue.Note{
			prompt("run the tests"),
			failed("Bash", "go test ./...", goTestFail, 1),
			said("TestParse fails: parse() returns 1. I'll fix it."),
			conclusion("Fixed parse(); all tests pass."),
			prompt("great, thanks. Now add a changelog entry"),
			conclusion("Done."),
		},
	}, {
		name: "remember note",
		notes: []queue.Note{
			prompt("remember: run the migrations with `make migrate` before the integration tests"),
			conclusion("Noted."),
		},
		want: []wantProposal{{title: "Run the migrations with `make migrate` before the integration tests", kind: "rule", conf: "high",
			body: []string{"run the migrations with `make migrate` before the integration tests"},
			tags: []string{"make", "migrations", "tests"}}},
	}, {
		name: "remember note for every project",
		notes: []queue.Note{
			prompt("From now on, always sign commits with -S, in every project."),
			conclusion("Will do."),
		},
		want: []wantProposal{{title: "Always sign commits with -S, in every project", kind: "rule", conf: "high", global: true}},
	}, {
		name: "repeated instruction",
		notes: []queue.Note{
			prompt("fix the flaky login test, and use pnpm for installs"),
			conclusion("Fixed the race in login.spec.ts."),
			prompt("now the signup page. Use pnpm for installs please."),
			conclusion("Done."),
			prompt("don't use npm"), // the other way round: not the same instruction
			conclusion("Ok."),
		},
		want: []wantProposal{{title: "Use pnpm for installs", kind: "preference", conf: "medium",
			body: []string{"Said in 2 prompts", `- "use pnpm for installs"`, `- "Use pnpm for installs please"`}, tags: []string{"pnpm"}}},
	}, {
		name: "opposite instructions are not repeated ones",
		notes: []queue.Note{
			prompt("use the staging database"),
			conclusion("Ok."),
			prompt("don't use the staging database"),
			conclusion("Ok."),
		},
	}, {
		name: "failure with no fix",
		notes: []queue.Note{
			prompt("run the tests"),
			failed("Bash", "go test ./...", goTestFail, 1),
			said("TestParse fails; the expected value looks wrong. Should I change the test?"),
			conclusion("TestParse fails; the expected value looks wrong. Should I change the test?"),
		},
	}, {
		name: "failure then fix",
		notes: []queue.Note{
			prompt("build the docs"),
			failed("Bash", "npm run docs", "npm error Missing script: \"docs\"", 1),
			ran("Bash", "npm run docs:build"),
			conclusion("The docs are built in site/."),
		},
		want: []wantProposal{{title: "`npm run docs` fails; `npm run docs:build` works", kind: "fix", conf: "medium", tags: []string{"npm", "build"},
			body: []string{"`npm run docs` (Bash, exit code 1): `npm error Missing script: \"docs\"`", "npm run docs:build"}}},
	}, {
		name: "a pair only plausibly related is no fix",
		notes: []queue.Note{
			prompt("build the docs"),
			failed("Bash", "make docs", "make: *** No rule to make target 'docs'.  Stop.", 2),
			ran("Bash", "npm run docs:build"),
			conclusion("The docs are built in site/."),
		},
	}, {
		name: "unrelated commands in sequence are no fix",
		notes: []queue.Note{
			prompt("which sessions did I run yesterday?"),
			failed("Bash", "stat -f '%Sm %N' ~/.claude/projects/*/*.jsonl | sort | tail -5", "stat: cannot read file system information for '%Sm %N': No such file or directory", 1),
			ran("Bash", "tail -100 ~/.claude/history.jsonl | grep -i session"),
			conclusion("Three projects."),
		},
	}, {
		name: "a lookup that found nothing is no failure",
		notes: []queue.Note{
			prompt("remove the legacy id"),
			failed("Bash", `grep -rn "legacy_id" internal/`, "", 1),
			ran("Bash", "go build ./... && go test ./..."),
			conclusion("Removed."),
			prompt("ok, and never use legacy ids again"),
			conclusion("Noted."),
		},
		want: []wantProposal{{title: "Never use legacy ids again", kind: "rule", conf: "medium"}},
	}, {
		name: "a setup step first",
		notes: []queue.Note{
			prompt("run the tests"),
			failed("Bash", "go test ./...", `statement_test.go:22: open test db: pq: database "ledger_test" does not exist`, 1),
			ran("Bash", "make test-db && go test ./..."),
			conclusion("All pass."),
		},
		want: []wantProposal{{title: "`go test ./...` needs `make test-db` first", kind: "fix", conf: "medium"}},
	}, {
		name: "a missing program",
		notes: []queue.Note{
			prompt("find the flag"),
			failed("Bash", `rg -n "newCheckout" src/`, "/bin/bash: line 1: rg: command not found", 127),
			ran("Bash", `grep -rn "newCheckout" src/`),
			conclusion("Found in src/flags.ts."),
		},
		want: []wantProposal{{title: "`rg` is not installed here; `grep -rn \"newCheckout\" src/` works instead", kind: "fix", conf: "medium"}},
	}, {
		name: "a rerun after a wait is no fix",
		notes: []queue.Note{
			prompt("start it and check"),
			failed("exec_command", "docker compose up -d api && curl -sS http://localhost:8080/healthz", "curl: (7) Failed to connect", 7),
			ran("exec_command", "sleep 5 && curl -sS http://localhost:8080/healthz"),
			conclusion("Up."),
		},
	}, {
		name: "a rerun with more checks after it is no fix",
		notes: []queue.Note{
			prompt("lint it"),
			failed("exec_command", "cargo clippy -- -D warnings", "error: this `if` has identical blocks", 101),
			ran("exec_command", "cargo clippy -- -D warnings && cargo test"),
			conclusion("Clean."),
		},
	}, {
		name: "fix after a failed retry, still failing later",
		notes: []queue.Note{
			prompt("run the e2e tests"),
			failed("exec_command", "npx playwright test", "Error: browserType.launch: Executable doesn't exist", 1),
			ran("exec_command", "npx playwright test --project=chromium"),
			failed("exec_command", "npx playwright test --project=chromium", "Error: page.goto: net::ERR_CONNECTION_REFUSED", 1),
			ran("exec_command", "pnpm dev & npx playwright test --project=chromium"),
			failed("exec_command", "pnpm lint", "1 problem", 1),
			conclusion("The e2e tests pass with the dev server running; lint still reports one problem."),
		},
		want: []wantProposal{{title: "`npx playwright test` fails; `pnpm dev & npx playwright test --project=chromium` works", kind: "fix", conf: "low",
			body: []string{"Executable doesn't exist", "Then `npx playwright test --project=chromium`", "ERR_CONNECTION_REFUSED"},
			tags: []string{"playwright", "pnpm", "tests"}}},
	}, {
		name: "a retry of the same command is no fix",
		notes: []queue.Note{
			prompt("run the tests"),
			failed("Bash", "go test ./...", "panic: test timed out after 10m0s", 1),
			ran("Bash", "go test ./..."),
			conclusion("Passed on the second run."),
		},
	}, {
		name: "a correction absorbs the fix of the same failure",
		notes: []queue.Note{
			prompt("install the deps"),
			failed("Bash", "npm install", "npm error code EUNSUPPORTEDPROTOCOL", 1),
			ran("Bash", "npm install --legacy-peer-deps"),
			conclusion("Installed with --legacy-peer-deps."),
			prompt("no, use pnpm instead of npm"),
			conclusion("Installed with pnpm install."),
		},
		want: []wantProposal{{title: "Use pnpm instead of npm", kind: "correction", conf: "medium",
			body: []string{"`npm install` (Bash, exit code 1): `npm error code EUNSUPPORTEDPROTOCOL`; then `npm install --legacy-peer-deps` worked",
				"> no, use pnpm instead of npm", "What worked after: Installed with pnpm install."}}},
	}, {
		name: "a correction whose turn fails again says nothing worked",
		notes: []queue.Note{
			prompt("deploy it"),
			failed("Bash", "kubectl apply -f deploy.yaml", "error: the server doesn't have a resource type", 1),
			conclusion("The apply failed."),
			prompt("no, use helm instead of kubectl"),
			failed("Bash", "helm upgrade --install api ./chart", "Error: INSTALLATION FAILED", 1),
			conclusion("helm failed too."),
		},
		want: []wantProposal{{title: "Use helm instead of kubectl", kind: "correction", conf: "medium",
			body: []string{"kubectl apply -f deploy.yaml", "> no, use helm instead of kubectl"}, notBody: []string{"What worked"},
			tags: []string{"kubectl", "helm", "deploy"}}},
	}, {
		name: "a correction without a failure before it is left to the hook",
		notes: []queue.Note{
			prompt("write the changelog"),
			conclusion("Wrote CHANGELOG.md."),
			prompt("no, that's wrong, the release is 2.0 not 1.9"),
			conclusion("Fixed."),
		},
	}, {
		name: "non-shell tools give no fix pair",
		notes: []queue.Note{
			prompt("rename the handler"),
			failed("Edit", `{"file_path":"/src/h.go","old_string":"x"}`, "String to replace not found in file.", 0),
			ran("Edit", `{"file_path":"/src/h.go","old_string":"y"}`),
			conclusion("Renamed."),
		},
	}, {
		name: "a fact stated in a prompt",
		notes: []queue.Note{
			prompt("add the bucket. staging uses the eu-west-1 region, prod is us-east-1"),
			conclusion("Added."),
		},
		want: []wantProposal{{title: "Staging uses the eu-west-1 region, prod is us-east-1", kind: "rule", conf: "low",
			body: []string{"> add the bucket. staging uses the eu-west-1 region"}}},
	}, {
		name: "a fact stated again in another prompt",
		notes: []queue.Note{
			prompt("add the bucket. staging uses the eu-west-1 region"),
			conclusion("Added."),
			prompt("and the queue too. again, staging uses the eu-west-1 region"),
			conclusion("Added."),
		},
		want: []wantProposal{{title: "Staging uses the eu-west-1 region", kind: "rule", conf: "medium"}},
	}, {
		name: "a rule stated in a prompt, and a sentence that leans on it",
		notes: []queue.Note{
			prompt("commit it. we never push to main here, it goes through a PR"),
			conclusion("Committed on a branch."),
		},
		want: []wantProposal{{title: "We never push to main here, it goes through a PR", kind: "rule", conf: "medium"}},
	}, {
		name: "a rule about what the sentence before names carries it",
		notes: []queue.Note{
			prompt("the key is STRIPE_KEY. never commit it to the repo"),
			conclusion("Ok."),
		},
		want: []wantProposal{{title: "The key is STRIPE_KEY; never commit it to the repo", kind: "rule", conf: "high"}},
	}, {
		name: "a sentence that leans on nothing is no lesson",
		notes: []queue.Note{
			prompt("ok. never commit it to the repo"),
			conclusion("Ok."),
		},
	}, {
		name: "a remember note and another rule in the same prompt",
		notes: []queue.Note{
			prompt("remember: the integration tests need the vpn. never run the migrations against prod"),
			conclusion("Ok."),
		},
		want: []wantProposal{{title: "The integration tests need the vpn", kind: "rule", conf: "high"},
			{title: "Never run the migrations against prod", kind: "rule", conf: "medium"}},
	}, {
		name: "questions, tasks and bug reports state nothing",
		notes: []queue.Note{
			prompt("the /checkout endpoint returns 500 when the cart is empty. fix it"),
			conclusion("Fixed."),
			prompt("does staging use the same bucket?"),
			conclusion("Yes."),
			prompt("CI is red again, can you look"),
			conclusion("Fixed the flaky test."),
		},
	}, {
		name: "a compaction summary is not a prompt",
		notes: []queue.Note{
			prompt("This session is being continued from a previous conversation. The project uses pnpm and we never push to main."),
			conclusion("Continuing."),
		},
	}, {
		name: "a hook refusing a call states a rule",
		notes: []queue.Note{
			prompt("push it"),
			failed("Bash", "git push origin main", "PreToolUse:Bash hook error: [python3 .claude/hooks/guard.py]: Direct pushes to main are blocked. Open a pull request.", 0),
			ran("Bash", "git push -u origin fix/x && gh pr create --fill"),
			conclusion("Opened a PR."),
		},
		want: []wantProposal{{title: "Direct pushes to main are blocked. Open a pull request", kind: "rule", conf: "medium",
			body: []string{"A hook (`python3 .claude/hooks/guard.py`) refused `git push origin main`", "gh pr create"}}},
	}, {
		name: "a Read over the size limit, then read in parts",
		notes: []queue.Note{
			prompt("dedupe the seed catalog"),
			failed("Read", `{"file_path":"/home/dev/src/shop/data/catalog.json"}`, "File content (48213 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.", 0),
			ran("Read", `{"file_path":"/home/dev/src/shop/data/catalog.json","offset":1,"limit":80}`),
			conclusion("Deduped."),
		},
		want: []wantProposal{{title: "`catalog.json` is too large for one Read; read it in parts (offset and limit)", kind: "fix", conf: "low"}},
	}, {
		name: "a Read over the size limit, a look elsewhere, then a grep of it",
		notes: []queue.Note{
			prompt("find the sku"),
			failed("Read", `{"file_path":"/home/dev/src/shop/data/catalog.json"}`, "File content (48213 tokens) exceeds maximum allowed tokens (25000).", 0),
			worked("Glob", `{"pattern":"data/*.json"}`),
			worked("Bash", `grep -n '"sku": "TEE-001"' data/catalog.json`),
			conclusion("Found."),
		},
		want: []wantProposal{{title: "`catalog.json` is too large for one Read; search it instead (grep)", kind: "fix", conf: "low"}},
	}, {
		name: "a Read of a scratch file over the size limit says nothing of the project",
		notes: []queue.Note{
			prompt("look at the log"),
			failed("Read", `{"file_path":"/tmp/build.log"}`, "File content (90000 tokens) exceeds maximum allowed tokens (25000).", 0),
			ran("Read", `{"file_path":"/tmp/build.log","offset":1,"limit":80}`),
			conclusion("Done."),
		},
	}, {
		name: "a Stop hook's refusal",
		notes: []queue.Note{
			prompt("fit the model"),
			conclusion("Done."),
			{Kind: queue.NoteHook, Text: "Stop hook feedback:\n[.claude/hooks/check-untracked.sh]: There are untracked files in the repository: a.py, out.csv. Delete them or commit them before ending the session."},
			conclusion("Removed them."),
		},
		want: []wantProposal{{title: "The Stop hook `check-untracked.sh` refuses to end the session: There are untracked files in the repository", kind: "rule", conf: "low"}},
	}, {
		name: "a Stop hook that only nags is no rule",
		notes: []queue.Note{
			prompt("wait for the build"),
			{Kind: queue.NoteHook, Text: "Stop hook feedback: still waiting"},
			conclusion("Done."),
		},
	}, {
		name: "a correction naming the command to use",
		notes: []queue.Note{
			prompt("add the sender"),
			failed("exec_command", "make test", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock", 2),
			conclusion("make test needs docker. Start it?"),
			prompt("don't use make test in this environment, there's no docker. make test-unit runs everything that doesn't need containers"),
			conclusion("`make test-unit` passes."),
		},
		want: []wantProposal{{title: "Use `make test-unit` instead of `make test`", kind: "correction", conf: "medium"}},
	}, {
		name: "the same choice said again without its verb",
		notes: []queue.Note{
			prompt("log the rejections. use slog, not log.Printf"),
			conclusion("Done."),
			prompt("and the timeouts. again, slog please, not log.Printf"),
			conclusion("Done."),
		},
		want: []wantProposal{{title: "Use slog, not log.Printf", kind: "preference", conf: "medium"}},
	}, {
		name: "a look before the command that worked",
		notes: []queue.Note{
			prompt("run the order tests"),
			failed("Bash", "pytest tests/api -q", "E   ModuleNotFoundError: No module named 'shop'", 2),
			{Kind: queue.NoteFollowup, Text: "The package isn't importable; checking how the project runs its tools.", Tool: "Read", Input: `{"file_path":"/src/shop/pyproject.toml"}`, Outcome: queue.OutcomeOK},
			worked("Bash", "uv run pytest tests/api -q"),
			conclusion("12 passed."),
		},
		want: []wantProposal{{title: "`pytest tests/api -q` needs `uv run`", kind: "fix", conf: "medium"}},
	}, {
		name: "a look-up, then the script that exists",
		notes: []queue.Note{
			prompt("make sure it builds"),
			failed("exec_command", "npm run build", `npm error Missing script: "build"`, 1),
			worked("exec_command", "npm run"),
			worked("exec_command", "npm run compile"),
			conclusion("Compiles."),
		},
		want: []wantProposal{{title: "`npm run build` fails; `npm run compile` works", kind: "fix", conf: "medium"}},
	}, {
		name: "another script after a real failure is no fix",
		notes: []queue.Note{
			prompt("make sure it builds"),
			failed("exec_command", "npm run build", "src/a.ts(3,1): error TS2304: Cannot find name 'x'.", 2),
			worked("exec_command", "npm run lint"),
			conclusion("Lint passes; the build has a type error."),
		},
	}, {
		name: "what works after an edit proves no command",
		notes: []queue.Note{
			prompt("fix the duration parser"),
			failed("Bash", "go test ./parser -run TestParseDuration", "duration_test.go:19: got 30m, want 1h30m", 1),
			worked("Edit", `{"file_path":"/src/parser/duration.go","old_string":"d =","new_string":"d +="}`),
			worked("Bash", "go test ./parser"),
			conclusion("Fixed."),
		},
	}, {
		name: "nor after a sed -i",
		notes: []queue.Note{
			prompt("fix the import"),
			failed("Bash", "npm run build", "error TS2307: Cannot find module './utils'", 1),
			worked("Bash", "sed -i 's#./utils#./lib/utils#' src/index.ts"),
			worked("Bash", "npm run build -- --pretty"),
			conclusion("Builds."),
		},
	}, {
		name: "a retry that failed too, then the fix",
		notes: []queue.Note{
			prompt("install"),
			failed("Bash", "pip install -r requirements.txt", "error: externally-managed-environment", 1),
			broke("Bash", "pip install --user -r requirements.txt"),
			failed("Bash", "pip install --user -r requirements.txt", "error: externally-managed-environment", 1),
			worked("Bash", ".venv/bin/pip install -r requirements.txt"),
			conclusion("Installed in .venv."),
		},
		want: []wantProposal{{title: "`pip install -r requirements.txt` works with `.venv/bin/pip` instead of `pip`", kind: "fix", conf: "medium",
			body: []string{"Then `pip install --user -r requirements.txt`"}}},
	}, {
		name: "a subagent's failure and fix",
		notes: append(append([]queue.Note{prompt("profile the export")},
			inAgent("b71c",
				queue.Note{Kind: queue.NoteSubagent, Text: "Profile the export tests"},
				failed("Bash", "python manage.py test exports", "KeyError: 'DJANGO_SECRET_KEY'", 1),
				worked("Bash", "DJANGO_SETTINGS_MODULE=config.settings.test python manage.py test exports"),
				conclusion("N+1 in monthly.py:41."))...),
			conclusion("Fixed the N+1.")),
		want: []wantProposal{{title: "`python manage.py test exports` needs `DJANGO_SETTINGS_MODULE=config.settings.test`", kind: "fix", conf: "medium"}},
	}, {
		name: "the session's failure is not fixed by a subagent's command",
		notes: append(append([]queue.Note{prompt("run the tests"),
			failed("Bash", "python manage.py test exports", "KeyError: 'DJANGO_SECRET_KEY'", 1)},
			inAgent("c9", queue.Note{Kind: queue.NoteSubagent, Text: "Find the settings"},
				worked("Bash", "DJANGO_SETTINGS_MODULE=config.settings.test python manage.py test exports"))...),
			conclusion("Done.")),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := extractHeuristic(t, entryOf(tt.notes...))
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d proposals, want %d:\n%s", len(ps), len(tt.want), renderProposals(ps))
			}
			for i, w := range tt.want {
				p := ps[i]
				if p.Title != w.title || p.Kind != w.kind || p.Confidence != w.conf || p.Global != w.global {
					t.Errorf("proposal %d = %q %s %s global=%v, want %q %s %s global=%v", i, p.Title, p.Kind, p.Confidence, p.Global,
						w.title, w.kind, w.conf, w.global)
				}
				for _, s := range w.body {
					if !strings.Contains(p.Body, s) {
						t.Errorf("proposal %d body lacks %q:\n%s", i, s, p.Body)
					}
				}
				for _, s := range w.notBody {
					if strings.Contains(p.Body, s) {
						t.Errorf("proposal %d body has %q:\n%s", i, s, p.Body)
					}
				}
				if w.tags != nil && !reflect.DeepEqual(p.Tags, w.tags) {
					t.Errorf("proposal %d tags = %q, want %q", i, p.Tags, w.tags)
				}
			}
		})
	}
}

func TestHeuristicDuplicateOf(t *testing.T) {
	e := fixtureEntry(t, "claude-session.jsonl")
	existing := []Existing{
		{ID: "lrn-01JNAAAAAAAAAAAAAAAAAAAAAA", Title: "Run the checkout tests with pnpm", Kind: "fix"},
		{ID: "lrn-01JNBBBBBBBBBBBBBBBBBBBBBB", Title: "use pnpm instead of npm.", Kind: "correction"},
	}
	ps := extractHeuristic(t, e, existing...)
	if len(ps) != 1 || ps[0].DuplicateOf != "lrn-01JNBBBBBBBBBBBBBBBBBBBBBB" {
		t.Fatalf("DuplicateOf not set to the hook's correction:\n%s", renderProposals(ps))
	}
	ps = extractHeuristic(t, e, existing[0])
	if len(ps) != 1 || ps[0].DuplicateOf != "" {
		t.Fatalf("DuplicateOf set for a different lesson:\n%s", renderProposals(ps))
	}
}

// A correction the heuristic titles by the command it names supersedes the learning the hook
// made of it under the prompt's own title.
func TestHeuristicSupersedesHookCorrection(t *testing.T) {
	e := entryOf(
		prompt("add the sender"),
		failed("exec_command", "make test", "Cannot connect to the Docker daemon", 2),
		conclusion("make test needs docker."),
		prompt("don't use make test in this environment, there's no docker. make test-unit runs everything that doesn't need containers"),
		conclusion("`make test-unit` passes."),
	)
	hook := Existing{ID: "lrn-01JNCCCCCCCCCCCCCCCCCCCCCC", Title: "Don't use make test in this environment, there's no docker", Kind: "correction"}
	ps := extractHeuristic(t, e, hook)
	if len(ps) != 1 || !reflect.DeepEqual(ps[0].Supersedes, []string{hook.ID}) || ps[0].DuplicateOf != "" {
		t.Fatalf("want the hook's learning superseded:\n%s\nsupersedes %q", renderProposals(ps), ps[0].Supersedes)
	}
}

// A correction repeated in a session is one lesson.
func TestHeuristicMergesRepeats(t *testing.T) {
	ps := extractHeuristic(t, entryOf(
		prompt("run the tests"),
		failed("Bash", "npm test", "npm error code EUNSUPPORTEDPROTOCOL", 1),
		conclusion("npm failed."),
		prompt("no, use pnpm instead of npm"),
		conclusion("Tests pass."),
		prompt("now lint it"),
		failed("Bash", "npm run lint", "npm error code EUNSUPPORTEDPROTOCOL", 1),
		conclusion("npm failed."),
		prompt("use pnpm instead of npm, I said"),
		conclusion("Lint passes."),
	))
	if len(ps) != 1 || ps[0].Title != "Use pnpm instead of npm" || ps[0].Kind != "correction" {
		t.Fatalf("want one correction:\n%s", renderProposals(ps))
	}
}

func TestHeuristicDeterministic(t *testing.T) {
	for _, f := range []string{"claude-session.jsonl", "codex-rollout.jsonl", "codex-legacy.jsonl"} {
		e := fixtureEntry(t, f)
		a := extractHeuristic(t, e)
		b := extractHeuristic(t, e)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ:\n%s\n%s", f, renderProposals(a), renderProposals(b))
		}
	}
}
