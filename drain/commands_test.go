package drain

import (
	"reflect"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/queue"
)

func TestSplitShell(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string // each simple command's words joined by spaces, then its operator
	}{
		{`go test ./...`, []string{"go test ./..."}},
		{`make test-db && go test ./...`, []string{"make test-db &&", "go test ./..."}},
		{`grep -rn "new Checkout" src/ | head -5`, []string{"grep -rn new Checkout src/ |", "head -5"}},
		{`go run ./cmd/x > /tmp/out.txt 2>&1; diff -u a.golden /tmp/out.txt`, []string{"go run ./cmd/x ;", "diff -u a.golden /tmp/out.txt"}},
		{`echo 'a && b' || true`, []string{"echo a && b ||", "true"}},
		{`STRIPE_KEY="$(op read 'op://x/y')" npm run test:int`, []string{"STRIPE_KEY=$(op read 'op://x/y') npm run test:int"}},
		{`cd backend && python scripts/seed.py --reset`, []string{"cd backend &&", "python scripts/seed.py --reset"}},
		{"for i in $(seq 1 30); do curl -fsS x && break; sleep 1; done", []string{"for i in $(seq 1 30) ;", "do curl -fsS x &&", "break ;", "sleep 1 ;", "done"}},
		{"git add a.go && git commit -m \"$(cat <<'EOF'\nfeat: it's \"done\"; really\n\nBody && more\nEOF\n)\" && git push", []string{"git add a.go &&", "git commit -m $(cat <<'EOF'\n) &&", "git push"}},
	} {
		var got []string
		for _, s := range splitShell(c.line) {
			g := strings.Join(s.words, " ")
			if s.op != "" {
				g += " " + s.op
			}
			got = append(got, g)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitShell(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestProgram(t *testing.T) {
	for _, c := range []struct{ line, prog, sub string }{
		{"go test ./...", "go", "test"},
		{"git -C ../api push origin main", "git", "push"},
		{"sudo -E apt-get install -y jq", "apt-get", "install"},
		{"DJANGO_SETTINGS_MODULE=config.settings.test python manage.py test reports", "manage.py", "test"},
		{"python -m pytest -q tests", "pytest", ""},
		{"uv run pytest tests/api -q", "pytest", ""},
		{"npx jest src/cart", "jest", ""},
		{"npm run build", "npm", "run build"},
		{"npm exec -- tsc --noEmit", "tsc", ""},
		{".venv/bin/pip install -r requirements.txt", "pip", "install"},
		{"docker compose -f test/compose.yaml up -d", "docker", "compose up"},
		{"gh pr create --fill", "gh", "pr create"},
		{"terraform init -backend-config=backend.hcl", "terraform", "init"},
		{"kubectl --context staging -n api get pods", "kubectl", "get"},
		{"node -e 'console.log(1)'", "node", ""},
		{"python backend/scripts/seed.py --reset", "seed.py", ""},
	} {
		ss := splitShell(c.line)
		p, sub := ss[len(ss)-1].program()
		if p != c.prog || sub != c.sub {
			t.Errorf("program(%q) = %q %q, want %q %q", c.line, p, sub, c.prog, c.sub)
		}
	}
}

func exitCode(n int) *int { return &n }

// Each of these exits non-zero because the command answered a question, not because it
// failed: a lookup that found nothing is not a failed attempt.
func TestBenignExit(t *testing.T) {
	benign := []struct {
		input string
		exit  int
	}{
		{`grep -rn "legacy_id" internal/ migrations/`, 1},
		{`grep -q TODO README.md`, 1},
		{`rg -n "FeatureFlag" src/`, 1},
		{`git ls-files | grep -c '\.proto$'`, 1},
		{`git grep -n oldName`, 1},
		{`diff -u testdata/want.txt /tmp/got.txt`, 1},
		{`go run ./cmd/x > /tmp/x.txt; diff -u x.golden /tmp/x.txt`, 1},
		{`cmp a.bin b.bin`, 1},
		{`git diff --exit-code`, 1},
		{`git rm -q old.py && git diff --exit-code --stat`, 1},
		{`git diff --quiet -- go.sum`, 1},
		{`test -f config/local.yaml`, 1},
		{`[ -d node_modules ]`, 1},
		{`[[ -n "$CI" ]]`, 1},
		{`command -v golangci-lint`, 1},
		{`which staticcheck`, 1},
		{`type gsed`, 1},
		{`pgrep -f "vite dev"`, 1},
		{`curl -fsS http://localhost:8080/healthz`, 7},
		{`docker compose up -d api && curl -fsS http://localhost:9090/-/ready`, 7},
		{`curl --fail --max-time 2 http://localhost:3000/ready`, 28},
		{`for i in $(seq 1 30); do curl -fsS localhost:9090/-/ready && break; sleep 1; done`, 1},
		{`until pg_isready -h localhost; do sleep 1; done`, 2},
		{`nc -z localhost 5432`, 1},
		{`pg_isready -h localhost -p 5432`, 2},
		{`npm ls lodash`, 1},
		{`pip show requests`, 1},
		{`kubectl get deploy api -n staging`, 1},
		{`docker inspect api-db`, 1},
		{`git rev-parse --verify origin/release`, 128},
		{`systemctl is-active postgresql`, 3},
	}
	for _, c := range benign {
		if !benignExit(noteView{input: c.input, exit: exitCode(c.exit)}) {
			t.Errorf("benignExit(%q, %d) = false, want true", c.input, c.exit)
		}
	}
	failures := []struct {
		input string
		exit  int
	}{
		{`grep -rn foo missing-dir/`, 2},          // grep's own error
		{`go test ./...`, 1},                      // a real failure
		{`diff -u a b`, 2},                        // diff's own error
		{`git diff --stat`, 1},                    // without --exit-code a 1 is an error
		{`test -f x && make build`, 2},            // make failed
		{`curl -fsS https://api.acme.dev/v1`, 22}, // an HTTP error from a real call
		{`curl https://example.com`, 7},           // not a -f probe
		{`rg -n x src/`, 127},                     // rg missing
		{`command -v go && go vet ./...`, 1},      // go vet failed
		{`npm test`, 1},
	}
	for _, c := range failures {
		if benignExit(noteView{input: c.input, exit: exitCode(c.exit)}) {
			t.Errorf("benignExit(%q, %d) = true, want false", c.input, c.exit)
		}
	}
	if benignExit(noteView{input: "grep -q x y"}) {
		t.Error("a failure without an exit code is not benign")
	}
}

// Pairs a fix may join, and pairs it must not: two commands form a fix only when the later
// one is evidently another try at the failed one.
func TestRelated(t *testing.T) {
	yes := []struct{ failed, out, worked string }{
		{"go test ./...", "", "make test-db && go test ./..."},
		{"cargo test tls", "", "cargo test --features tls tls"},
		{"pytest tests/api/test_orders.py -q", "", "uv run pytest tests/api/test_orders.py -q"},
		{"git push origin main", "", "git push -u origin fix/rounding && gh pr create --fill"},
		{`rg -n "newCheckout" src/`, "rg: command not found", `grep -rn "newCheckout" src/`},
		{`jq -r '.dependencies' package.json`, "jq: command not found", `node -e 'console.log(require("./package.json").dependencies)'`},
		{"python backend/scripts/seed.py --reset", "", "cd backend && python scripts/seed.py --reset"},
		{"npx jest src/cart", "", "npm test -- src/cart"},
		{"terraform plan -out=plan.tfplan", `Error: Backend initialization required, please run "terraform init"`, "terraform init -backend-config=backend.hcl"},
		{"go build ./...", "go: updates to go.mod needed; to update it:\n\tgo mod tidy", "go mod tidy && go build ./..."},
		{"pip install -r requirements.txt", "error: externally-managed-environment", ".venv/bin/pip install -r requirements.txt"},
		{"npm run build", `npm error Missing script: "build"`, "npm run compile"},
		{"fd -e ts", "bash: fd: command not found", `find . -name "*.ts"`},
		{"python scripts/x.py", "bash: python: command not found", "python3 scripts/x.py"},
		{"make docs", "make: *** No rule to make target 'docs'.  Stop.", "make site"},
	}
	for _, c := range yes {
		if !related(noteView{input: c.failed, text: c.out}, c.worked) {
			t.Errorf("related(%q, %q) = false, want true", c.failed, c.worked)
		}
	}
	no := []struct{ failed, out, worked string }{
		{`stat -f '%Sm %N' ~/.claude/projects/*/*.jsonl | sort | tail -20`, "stat: cannot read file system information", `tail -100 ~/.claude/history.jsonl | grep -o '"project":"[^"]*"' | sort | uniq -c`},
		{"go test ./parser -run TestParseDuration", "--- FAIL: TestParseDuration", "sed -n '1,50p' parser/duration.go"},
		{"go test ./...", "", "go vet ./..."},
		{"npm run build", "", "npm run lint"},
		{"pnpm run test", "", "pnpm run typecheck"},
		{"npm test", "", "git status"},
		{"make lint", "", "go test ./..."},
		{"cargo build", "error[E0308]: mismatched types", "git diff"},
		{`grep -rn "legacy_id" internal/`, "", "go build ./... && go test ./..."},
		{"docker compose up -d", "", "ls -la"},
		{"fd -e ts", "bash: fd: command not found", "git status"},
	}
	for _, c := range no {
		if related(noteView{input: c.failed, text: c.out}, c.worked) {
			t.Errorf("related(%q, %q) = true, want false", c.failed, c.worked)
		}
	}
}

func TestReadOnly(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"git ls-files -- 'priv/static/assets/app.css'", true},
		{"git status --short && git diff --stat", true},
		{"kubectl get pods -n api | grep Crash", true},
		{"cat package.json | jq .scripts", true},
		{"git add a.go && git commit -m x", false},
		{"npm run compile", false},
		{"sed -i s/a/b/ x.go", false},
		{"cp config/example.yaml config/local.yaml", false},
	} {
		if got := readOnly(c.line); got != c.want {
			t.Errorf("readOnly(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

func TestWeakened(t *testing.T) {
	for _, c := range []struct {
		failed, worked string
		want           bool
	}{
		{"go test -race ./...", "go test ./...", true},        // the race detector dropped
		{"cargo clippy -- -D warnings", "cargo clippy", true}, // the warnings no longer fail it
		{"go test ./internal/store", "go test -v ./internal/store", true},
		{"go test ./...", "go test ./... -run TestParse", true},
		{"pytest", "pytest tests/unit", true},
		{"npx jest", "npx jest --testNamePattern=cart", true},
		{"cargo test tls", "cargo test --features tls tls", false}, // a feature is no narrowing
		{"pytest tests/api -q", "uv run pytest tests/api -q", false},
		{"git add a.go priv/static/app.css", "git add a.go", false}, // a file left out is no weaker check
		{"python manage.py test", "DJANGO_SETTINGS_MODULE=config.settings.test python manage.py test", false},
	} {
		if got := weakened(c.failed, c.worked); got != c.want {
			t.Errorf("weakened(%q, %q) = %v, want %v", c.failed, c.worked, got, c.want)
		}
	}
}

func TestSelfExplained(t *testing.T) {
	out := "fatal: The current branch x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin x\n"
	if !selfExplained(noteView{text: out}, "git push --set-upstream origin x 2>&1") {
		t.Error("the output spells out the command: no lesson")
	}
	if selfExplained(noteView{text: `Error: Backend initialization required, please run "terraform init"`}, "terraform init -backend-config=backend.hcl") {
		t.Error("the output names terraform init, not the backend config that made it work")
	}
}

func TestRerunLookupSetup(t *testing.T) {
	if !rerun("npm install && npm test", "npm test") {
		t.Error("npm test after npm install && npm test is a rerun")
	}
	if !rerun("docker compose up -d p && curl -fsS http://localhost:9090/-/ready", "sleep 5 && curl -fsS http://localhost:9090/-/ready") {
		t.Error("the same probe after a sleep is a rerun")
	}
	if rerun("go test ./...", "make test-db && go test ./...") {
		t.Error("a setup step first is not a rerun")
	}
	if !rerunPlus("cargo clippy -- -D warnings", "cargo clippy -- -D warnings && cargo test prune") {
		t.Error("the failed command with a check after it is a rerun")
	}
	if !lookup("npm run build", "npm run") {
		t.Error("npm run after npm run build is a look-up")
	}
	if lookup("npm run build", "npm run compile") {
		t.Error("npm run compile is not a look-up")
	}
	if got := setupFirst("go test ./...", "make test-db && go test ./..."); got != "make test-db" {
		t.Errorf("setupFirst = %q", got)
	}
	if got := setupFirst("go test ./...", "go test -race ./..."); got != "" {
		t.Errorf("setupFirst = %q, want none", got)
	}
	for _, c := range []struct{ input, out, want string }{
		{`rg -n x src/`, "/bin/bash: line 1: rg: command not found", "rg"},
		{`jq . package.json`, "bash: line 1: jq: command not found", "jq"},
		{`go test ./...`, "FAIL", ""},
	} {
		n := noteView{input: c.input, text: c.out}
		if c.want != "" {
			n.exit = exitCode(127)
		} else {
			n.exit = exitCode(1)
		}
		if got := missingProgram(n); got != c.want {
			t.Errorf("missingProgram(%q) = %q, want %q", c.input, got, c.want)
		}
	}
}

// A fix's triggers are the words a later prompt will use: the failed program and its
// distinctive arguments, the error's codes, names and identifiers (whole and split), the
// program that worked — not the error's everyday words.
func TestFixTriggers(t *testing.T) {
	ps := heuristicProposals([]queue.Note{
		prompt("run the store tests"),
		failed("Bash", "go test ./internal/store -run TestStatementForAccount",
			"--- FAIL: TestStatementForAccount (0.00s)\n    statement_test.go:22: open test db: pq: database \"ledger_test\" does not exist\nFAIL", 1),
		worked("Bash", "make test-db && go test ./internal/store -run TestStatementForAccount"),
		conclusion("Passes."),
	})
	if len(ps) != 1 {
		t.Fatalf("want one fix:\n%s", renderProposals(ps))
	}
	got := strings.Join(ps[0].Triggers, "|")
	for _, want := range []string{"go test", "TestStatementForAccount", "test statement for account", "ledger_test", "ledger test", "make test-db"} {
		if !strings.Contains("|"+got+"|", "|"+want+"|") {
			t.Errorf("triggers %q lack %q", ps[0].Triggers, want)
		}
	}
	if strings.Contains(got, "does not exist") {
		t.Errorf("triggers %q hold the error's sentence", ps[0].Triggers)
	}
	var tr triggerSet
	errorTriggers(&tr, failed("Bash", "cargo test", "error[E0433]: failed to resolve: use of undeclared crate or module `rustls`", 101))
	errorTriggers(&tr, failed("Bash", "pytest", "E   ModuleNotFoundError: No module named 'shop'", 2))
	if want := []string{"E0433", "ModuleNotFoundError", "module not found error", "shop"}; !reflect.DeepEqual(tr.list, want) {
		t.Errorf("error triggers = %q, want %q", tr.list, want)
	}
}
