package correction

import (
	"strings"
	"testing"
)

// statementPositives are prompts that state a lasting fact or rule, with the sentence that
// says it (the start of Statement.Text) and whether it is an explicit rule.
var statementPositives = []struct {
	prompt, text string
	rule         bool
}{
	{"we don't control the claude code process", "we don't control the claude code process", false},
	{"keep in mind we don't control the claude code process that runs us, so the hook has to exit 0", "we don't control the claude code process", false},
	{"staging uses the eu-west-1 bucket", "staging uses the eu-west-1 bucket", false},
	{"this repo uses pnpm", "this repo uses pnpm", false},
	{"never push to main", "never push to main", true},
	{"always run make lint first", "always run make lint first", true},
	{"Always run `make lint` before pushing.", "Always run `make lint` before pushing", true},
	{"add the column. staging uses the eu-west-1 bucket region, prod is us-east-1 — don't mix them up", "staging uses the eu-west-1 bucket region", false},
	{"great. we never push to main here, everything goes through a PR.", "we never push to main here", true},
	{"we edit unreleased migrations in place instead of stacking new ones", "we edit unreleased migrations in place", false},
	{"don't mock s3 with moto. we test against localstack, it's in docker-compose.yml", "we test against localstack", false},
	{"note the staging cluster is still on kubernetes 1.27, so native sidecars don't work there", "the staging cluster is still on kubernetes 1.27", false},
	{"commit Cargo.lock too — CI builds with --locked, so it fails whenever the lockfile isn't committed", "CI builds with --locked", false},
	{"fyi the test database is reset every night at 2am", "the test database is reset every night", false},
	{"FYI: prod runs on ARM, so build multi-arch images", "prod runs on ARM", false},
	{"btw this project targets Python 3.9, no match statements", "this project targets Python 3.9", false},
	{"our CI runs on self-hosted runners without docker", "our CI runs on self-hosted runners", false},
	{"the CI runners don't have docker, so integration tests must be skipped there", "the CI runners don't have docker", false},
	{"jq isn't installed on this machine", "jq isn't installed on this machine", false},
	{"there's no docker in this environment", "there's no docker in this environment", false},
	{"we always squash-merge, so keep the PR title clean", "we always squash-merge", true},
	{"never commit the .env file", "never commit the .env file", true},
	{"don't ever force push to a shared branch", "don't ever force push to a shared branch", true},
	{"make sure to always regenerate the client after touching the schema", "make sure to always regenerate the client", true},
	{"as a rule, every handler returns a typed error", "as a rule, every handler returns a typed error", true},
	{"we pin all GitHub actions to a commit sha", "we pin all GitHub actions to a commit sha", false},
	{"this service talks to the billing API through the internal gateway, never directly", "this service talks to the billing API", false},
	{"we use conventional commits here", "we use conventional commits here", false},
	{"heads up: the staging db is read-only after 6pm UTC", "the staging db is read-only after 6pm UTC", false},
	{"I always run the linter before pushing", "I always run the linter before pushing", true},
	{"in this repo we vendor dependencies, so go mod vendor after any change to go.mod", "in this repo we vendor dependencies", false},
	{"we deploy with argo, not with kubectl apply", "we deploy with argo", false},
	{"prod is still on postgres 13, so no MERGE statements", "prod is still on postgres 13", false},
	{"we no longer use lodash, write plain JS", "we no longer use lodash", false},
	{"never run the migrations against prod from a laptop", "never run the migrations against prod", true},
	{"our monorepo uses turbo for builds, so run turbo run build, not npm run build", "our monorepo uses turbo for builds", false},
	{"we have to support node 18 because of the lambda runtime", "we have to support node 18", false},
	{"the prod cluster has no internet egress, so images must come from our registry", "the prod cluster has no internet egress", false},
	{"we must never log PII, not even in debug builds", "we must never log PII", true},
	{"you should never commit secrets, use the vault", "you should never commit secrets", true},
	{"always ask before deleting files", "always ask before deleting files", true},
	{"in prod we use RDS, locally it's the postgres container", "in prod we use RDS", false},
	{"the app uses react 18 and the router v6, so no data loaders", "the app uses react 18", false},
	{"we run the sync job on a cron every hour", "we run the sync job on a cron every hour", false},
	{"this project is a monorepo with three packages under packages/", "this project is a monorepo with three packages", false},
	{"the build uses esbuild, not webpack", "the build uses esbuild", false},
	{"the app is deployed to fly.io from the main branch", "the app is deployed to fly.io", false},
	{"this service is written in Go 1.22", "this service is written in Go 1.22", false},
	{"we store all dates in UTC", "we store all dates in UTC", false},
	{"thanks! btw the deploy script lives in ops/deploy.sh, and we always deploy from a tag", "we always deploy from a tag", true},
	{"I'd like the table to be sortable. We're using tanstack table v8 everywhere else, so stick to that.", "We're using tanstack table v8 everywhere else", false},
	{"Note: our Postgres is 15 in all environments, so you can use MERGE.", "our Postgres is 15 in all environments", false},
	{"The API team owns the schema, we only consume it. Don't edit openapi.yaml", "The API team owns the schema", false},
	{"use the staging profile. the default profile points at prod!", "the default profile points at prod", false},
	{"the billing service uses stripe webhooks to update subscriptions", "the billing service uses stripe webhooks", false},
	{"the tests use a real redis, started by docker compose", "the tests use a real redis", false},
	{"kubernetes manifests are generated by kustomize, don't edit the rendered yaml", "kubernetes manifests are generated by kustomize", false},
	{"this is a monorepo with a Go backend and a React frontend", "this is a monorepo", false},
	{"please don't add new dependencies without asking", "don't add new dependencies without asking", true},
}

// statementNegatives are prompts with no lasting fact or rule: tasks, questions, bug
// reports, one-off constraints, chit-chat, the state of the code.
var statementNegatives = []string{
	"add a CSV export for account statements, next to the JSON one in internal/export",
	"the order total is off by one cent when a discount applies. there's a test for it in tests/api/test_orders.py that's marked xfail, make it pass",
	"certificates should reload when the files change on disk, without restarting. src/tls.rs has the acceptor",
	"bump the chart colors to the new palette in src/theme.ts and make sure it still builds",
	"the /checkout endpoint returns 500 when the cart is empty. it should be a 400 with {\"error\": \"cart_empty\"}. the handler is in src/shop/api/checkout.py",
	"add a due date column to the invoices table, after the amount. use the existing DateCell component for it, and don't change the API types for this — the field is already in the response",
	"let's not touch the migration today, just compute it on render in the invoice view",
	"the LegacyID field on Account isn't used anymore after the migration. remove it",
	"ParseDuration(\"1h30m\") returns 30m. fix it, there's a failing test already",
	"how does the retry middleware decide how long to wait between attempts?",
	"ok thanks, that's what I needed",
	"looks good, ship it",
	"cool, thanks!",
	"would it match foo.example.com.evil.io?",
	"the nightly export of the monthly report takes 40 minutes since last week. find out why, the export code is in reports/exports",
	"which claude code sessions did I run yesterday, roughly? just the project names",
	"where do we compute shipping costs, and is the free shipping threshold configurable?",
	"the webhook sender should retry on 5xx with backoff, three tries max",
	"great. commit it on a branch",
	"no, don't add a new migration",
	"log when the rate limiter rejects a request, with the client key and the limit. use slog, not log.Printf",
	"we need to add a cache in front of the pricing service",
	"we should probably split this file at some point",
	"I think the tests are flaky",
	"you're editing the wrong file",
	"CI is failing on main since this morning",
	"the build is broken",
	"staging is down right now, use the local stack for now",
	"for this PR, don't touch the generated files",
	"can you check whether prod uses the new bucket?",
	"do we always need to run the migrations?",
	"this is great, thanks",
	"it works now",
	"I ran make test and it passed",
	"there's a bug in the parser when the input is empty",
	"the tests are in tests/unit",
	"the config lives in config/app.yaml",
	"please always be careful", // too short and vague to keep? it is a rule, but says nothing
	"yes. remember to free the buffer",
	"make the header say \"Due date\" and sort by it by default, newest first",
	"update vitest to 3.2 and make sure the suite still passes",
	"we're almost done, just the README left",
	"upload over 100 MB should use multipart upload. the uploader is archiver/storage/s3.py",
	"the chart tooltips cut off long series names. wrap them at 32 chars",
	"```\nwe never push to main\n```",
	"    always run the tests", // code, indented
	"> we use pnpm here",       // a quote
	"what does this regex match? ^(?:[a-z0-9-]+\\.)*example\\.com$",
	"the staging deploy failed with a timeout, can you look",
	"reseed the local db with the new vehicle types from the csv",
	"we log the token in plaintext here, remove that",
	"CI is red",
	"CI is red again after your change",
	"staging is ready, deploy it",
	"prod is on fire",
	"this project is a mess",
	"the build takes forever",
	"never seen this error before",
	"never used this library, explain it",
	"always fails on the first run",
	"we are using the wrong endpoint",
	"we need to use the v2 client",
	"we call the API twice on load, which is why it's slow",
	"continue",
	"did you push?",
	"start phoenix in background",
	"mix phx.server doesnt seem to start",
	"Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task.",
	"scrolling back in xterm.js still does not work (maybe because outer web catches it)? websearch xterm.js tmux interactions",
	"implement the plan",
	"go ahead and commit",
	"staging has the new build now",
	"the staging db has stale data, reseed it",
	"we don't need that anymore",
	"I always forget how this works, explain the retry logic",
	"we get a 500 when posting an empty cart",
	"the repo is huge, search before reading whole folders",
	"staging is deployed now",
	"the app is slow on the dashboard",
	"this project is so complicated",
	"we're on a deadline, keep it minimal",
	"the tests are slow because they hit the real network. can you mock the http client?",
	"why do we use a mutex here instead of a channel?",
	"we're using the wrong bucket, switch it",
	"the api team is asking for a new endpoint",
}

func TestStatementsPositives(t *testing.T) {
	for _, c := range statementPositives {
		ss := Statements(c.prompt)
		var hit *Statement
		for i := range ss {
			if strings.HasPrefix(strings.ToLower(ss[i].Text), strings.ToLower(c.text)) {
				hit = &ss[i]
			}
		}
		if hit == nil {
			var got []string
			for _, s := range ss {
				got = append(got, s.Text)
			}
			t.Errorf("Statements(%q) = %q, want one starting %q", c.prompt, got, c.text)
			continue
		}
		if hit.Rule != c.rule {
			t.Errorf("Statements(%q): %q rule = %v, want %v (cue %s)", c.prompt, hit.Text, hit.Rule, c.rule, hit.Cue)
		}
	}
}

func TestStatementsNegatives(t *testing.T) {
	for _, p := range statementNegatives {
		if ss := Statements(p); len(ss) > 0 {
			t.Errorf("Statements(%q) = %q (%s, %.2f), want none", p, ss[0].Text, ss[0].Cue, ss[0].Score)
		}
	}
}

func TestStatementsContinue(t *testing.T) {
	ss := Statements("we test against localstack, it's in docker-compose.yml. never commit it to the repo")
	if len(ss) != 2 || ss[0].Continues || !ss[1].Continues {
		t.Fatalf("Statements = %+v, want the second to continue the first", ss)
	}
	ss = Statements("yes. the key is in 1Password. never commit it to the repo")
	if len(ss) != 1 || !ss[0].Continues {
		t.Errorf("Statements = %+v, want one that continues what came before", ss)
	}
}
