package recall

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/index"
)

// openIndex opens r's index (building it) for the test's duration.
func openIndex(t *testing.T, r *gitstore.Repo) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), r, index.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// relevanceIndex is the relevance corpus's repository and its open index.
func relevanceIndex(t *testing.T) (*gitstore.Repo, *index.Index) {
	t.Helper()
	r, _, _ := relevanceRepo(t)
	return r, openIndex(t, r)
}

// TestDedupeAcrossASession: a learning injected once in a session is not injected again in
// it, whatever the prompt; a new session gets the fresh set.
func TestDedupeAcrossASession(t *testing.T) {
	r, keys, _ := relevanceRepo(t)
	ix := openIndex(t, r)
	ctx := context.Background()
	ws := &Workspace{Project: "github.com/acme/billing"}
	ask := func(session, prompt string) []string {
		t.Helper()
		res, err := Recall(ctx, r, ix, Request{Harness: "claude-code", Session: session, Workspace: ws, Prompt: prompt, Now: suiteNow})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, id := range res.IDs() {
			out = append(out, keys[id])
		}
		return out
	}
	prompts := []string{
		"stripe webhook signature verification fails on the raw body",
		"the stripe webhook signature check fails again after my change",
		"why does stripe webhook signature verification fail",
	}
	first := ask("s-1", prompts[0])
	if len(first) == 0 {
		t.Fatal("nothing recalled for a prompt the corpus answers")
	}
	seen := map[string]bool{}
	for _, k := range first {
		seen[k] = true
	}
	for _, p := range prompts[1:] {
		for _, k := range ask("s-1", p) {
			if seen[k] {
				t.Errorf("%s injected twice in session s-1", k)
			}
			seen[k] = true
		}
	}
	if again := ask("s-2", prompts[0]); strings.Join(again, ",") != strings.Join(first, ",") {
		t.Errorf("new session got %v, want the fresh set %v", again, first)
	}
	// the other host's session of the same id is another session
	if other := ask("s-1-codex", prompts[0]); len(other) == 0 {
		t.Error("a different session got nothing")
	}
	// a dry run (reflect recall) reads the state and adds nothing to it
	res, err := Recall(ctx, r, ix, Request{Harness: "claude-code", Session: "s-3", Workspace: ws, Prompt: prompts[0], Now: suiteNow, DryRun: true})
	if err != nil || len(res.Injected) == 0 {
		t.Fatal(err)
	}
	if again := ask("s-3", prompts[0]); len(again) != len(first) {
		t.Errorf("dry run recorded its picks: the session then got %v", again)
	}
}

func TestRenderStaysInBudget(t *testing.T) {
	_, ix := relevanceIndex(t)
	ctx := context.Background()
	res, err := ix.Search(ctx, index.Query{Terms: index.Analyze("stripe webhook celery retry postgres migration"), Limit: 5})
	if err != nil || len(res.Hits) < 3 {
		t.Fatal(err, len(res.Hits))
	}
	var cs []Candidate
	for _, h := range res.Hits[:3] {
		cs = append(cs, Candidate{Hit: h})
	}
	for _, budget := range []int{600, 1500, 4000} {
		text := Render(cs, budget)
		if n := utf8.RuneCountInString(text); n > budget {
			t.Errorf("budget %d: rendered %d characters", budget, n)
		}
		for _, c := range cs {
			if !strings.Contains(text, c.ID) || !strings.Contains(text, c.Title) || !strings.Contains(text, c.Confidence+" confidence") {
				t.Errorf("budget %d: %s not named with its title and confidence:\n%s", budget, c.ID, text)
			}
		}
	}
}

// TestPickKeepsTheCharacterBudget: with a small budget, fewer learnings are injected, and
// the block never exceeds it.
func TestPickKeepsTheCharacterBudget(t *testing.T) {
	_, ix := relevanceIndex(t)
	ctx := context.Background()
	res, err := ix.Search(ctx, index.Query{Terms: index.Analyze("stripe webhook signature"), Limit: 5})
	if err != nil || len(res.Hits) < 3 {
		t.Fatal(err)
	}
	for _, budget := range []int{200, 400, 1500} {
		out := &Result{Terms: index.Analyze("stripe webhook signature")}
		for _, h := range res.Hits[:3] {
			out.Candidates = append(out.Candidates, Candidate{Hit: h, Coverage: 1, Rarity: 3, Relative: 1, Final: 1})
		}
		pick(out, nil, config.Recall{MaxLearnings: 3, MaxChars: budget, MinCoverage: 0.4}, DefaultGates(), nil)
		if text := Render(out.Injected, budget); utf8.RuneCountInString(text) > budget {
			t.Errorf("budget %d: %d characters", budget, utf8.RuneCountInString(text))
		}
		if budget >= 1500 && len(out.Injected) == 0 {
			t.Errorf("budget %d: nothing injected", budget)
		}
	}
}

func TestTerms(t *testing.T) {
	words := func(tps ...Topic) string {
		var out []string
		for _, tp := range tps {
			var ws []string
			for _, t := range tp.Terms {
				w := t.Word
				if len(t.Parts) > 0 {
					w += "(" + strings.Join(t.Parts, " ") + ")"
				}
				ws = append(ws, w)
			}
			out = append(out, tp.Kind+": "+strings.Join(ws, " "))
		}
		return strings.Join(out, " | ")
	}
	cases := []struct {
		name string
		got  string
		want string
	}{
		{"chatter dropped", words(PromptTopic("hey can you please look at why the stripe webhooks fail?")), "prompt: stripe webhook fail"},
		{"function words dropped", words(PromptTopic("since yesterday the push is rejected anyway, probably because I rebased; is the token already used?")), "prompt: push reject rebas token alreadi"},
		{"ids and numbers dropped", words(PromptTopic("error 0x7f3a9c2e1b in request 6f1c2a9e-3b7d-4c55 at 12:03 on port 5433")), "prompt: error request port 5433"},
		{"identifiers whole and in parts", words(PromptTopic("r.PathValue is empty in load_to_snowflake")), "prompt: r.pathvalue(pathvalu path valu) empti load_to_snowflake(load snowflak)"},
		{"branch noise", words(StartTopics(Workspace{Branch: "feature/stripe-webhook-retries"})...), "branch: stripe webhook retri"},
		{"main says nothing", words(StartTopics(Workspace{Branch: "main"})...), ""},
		{"one topic a subject", words(StartTopics(Workspace{Branch: "main", Subjects: []string{"webhooks: verify signature", "bump stripe to 7.1"}})...),
			"commit: webhook verifi signatur | commit: stripe"},
		{"files", words(StartTopics(Workspace{Files: []string{"internal/auth/redirect.go"}})...),
			"files: internal/auth/redirect.go(intern auth redirect.go redirect go) redirect.go"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	got := phrases("login fails with 'invalid state' after the redirect, doesn't it?\n" +
		"  level=ERROR msg=\"callback failed\" err=\"oidc: failed to verify signature\"\nthanks")
	var out []string
	for _, p := range got {
		out = append(out, p.Kind+": "+strings.Join(p.Words, " "))
	}
	want := []string{
		"quoted: invalid state",
		"quoted: callback fail",
		"quoted: oidc fail verifi signatur",
		"error: login fail invalid state redirect",
		"error: level error msg callback fail err oidc fail verifi signatur",
	}
	if strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("phrases:\n%s\nwant:\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
	// an errno name is an error line; a word that only starts with an e is not (the errno
	// pattern was case-insensitive, so "everywhere", "export" and "email" made any line an
	// error message)
	for line, want := range map[string]bool{
		"dial tcp 10.0.0.5:5432: connect: ECONNREFUSED":        true,
		"open /etc/app.yaml: ENOENT":                           true,
		"rename the GetUser handler to GetAccount everywhere":  false,
		"export the customers list and email it to finance":    false,
		"Exception in thread main":                             true,
		"the request timed out after 30 seconds, see the logs": true,
	} {
		if got := errorLine.MatchString(line); got != want {
			t.Errorf("errorLine(%q) = %v, want %v", line, got, want)
		}
	}
	if start, n := longestRun(strings.Fields("a b c d e"), strings.Fields("x c d e y b")); start != 2 || n != 3 {
		t.Errorf("longestRun: %d %d", start, n)
	}
}

// TestNewCodeInACommitSubject: an identifier no learning holds, named by a commit subject
// (the model, table or function the branch adds), counts neither for nor against a
// learning's coverage of that subject; one a learning holds still counts.
func TestNewCodeInACommitSubject(t *testing.T) {
	_, ix := relevanceIndex(t)
	ctx := context.Background()
	cover := func(subject, key string) float64 {
		t.Helper()
		tps := StartTopics(Workspace{Subjects: []string{subject}})
		res, err := ix.Search(ctx, index.Query{Terms: tps[0].words(), Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if strings.Contains(strings.ToLower(h.Title), key) {
				return assess(h, tps[0], res).Coverage
			}
		}
		t.Fatalf("%q: no hit titled with %q", subject, key)
		return 0
	}
	bare := cover("dbt: add the tickets staging model", "naming layers")
	if got := cover("dbt: add the tickets staging model stg_qqzendesk__tickets", "naming layers"); got != bare {
		t.Errorf("a new identifier moved the coverage: %.2f, without it %.2f", got, bare)
	}
	if got := cover("dbt: add the tickets staging model fct_orders", "naming layers"); got >= bare {
		t.Errorf("an identifier other learnings hold did not count against this one: %.2f, without it %.2f", got, bare)
	}
}

// TestLowerCaseIdentifier: a camelCase identifier typed in lower case ("cronjob" of CronJob)
// is the identifier the learning holds whole, and carries a match as one (its weight, in
// the title, near the best); the same word held only as prose does not.
func TestLowerCaseIdentifier(t *testing.T) {
	_, ix := relevanceIndex(t)
	ctx := context.Background()
	tp := PromptTopic("the nightly cronjob has not run since we resumed it")
	res, err := ix.Search(ctx, index.Query{Terms: tp.words(), Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if !strings.Contains(h.Title, "CronJob") {
			continue
		}
		c := assess(h, tp, res)
		kinds := map[string]string{}
		for _, m := range c.Matches {
			kinds[m.Said] = m.Kind
		}
		if kinds["cronjob"] != string(Whole) || kinds["night"] == string(Whole) {
			t.Errorf("matches %+v: want cronjob whole", c.Matches)
		}
		if rule, why, ok := DefaultGates().qualify(&c, config.Recall{MinCoverage: 0.4}); !ok || rule != "identifier" {
			t.Errorf("CronJob learning: %s %s %v, want it kept as an identifier", rule, why, ok)
		}
		return
	}
	t.Fatalf("no CronJob learning among %v", res.Hits)
}

// TestOtherFile: a touched file's name the learning holds only as the name of a file in
// another directory is not that file; one it names bare, by the same path or by the path's
// tail is.
func TestOtherFile(t *testing.T) {
	touched := filesTopic([]string{"billing/subscriptions/views.py", "src/app/package.json"}).Terms
	cases := []struct {
		name, body, base, want string
		entities               []string
	}{
		{"another directory", "Verify in `billing/webhooks/views.py` first.", "views.py", "billing/webhooks/views.py", nil},
		{"another directory, in entities", "Verify the signature.", "views.py", "billing/webhooks/views.py", []string{"billing/webhooks/views.py"}},
		{"the same path", "See billing/subscriptions/views.py.", "views.py", "", nil},
		{"the path's tail", "See subscriptions/views.py.", "views.py", "", nil},
		{"bare", "Every views.py imports the decorator.", "views.py", "", nil},
		{"bare beside the touched path", "packages/ui/package.json and src/app/package.json differ", "package.json", "", nil},
	}
	for _, c := range cases {
		h := index.Hit{Doc: index.Doc{Title: "A learning", Body: c.body, Entities: c.entities}}
		if got := otherFile(wholePaths(h), c.base, touched); got != c.want {
			t.Errorf("%s: otherFile = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPickSameTopic: a learning a topic gave after another it gave is kept only when its
// text score is at least SameTopic of that one's; one of another topic, or of a team's
// memory, is held to the floor against the best only (text scores of two queries, or two
// indexes, are not on one scale) — unless its own topic's query scored a learning injected
// for another topic: then it needs SameTopic of that one's score in that query.
func TestPickSameTopic(t *testing.T) {
	cand := func(id, topic string, score float64) Candidate {
		return Candidate{Hit: index.Hit{Doc: index.Doc{ID: id, Title: id}, Score: score}, Topic: topic, Coverage: 1, Rarity: 3, Relative: 1, Final: score}
	}
	team := func(c Candidate) Candidate {
		c.From.Team = &TeamFrom{Name: "platform", Reviewed: true}
		return c
	}
	peers := func(c Candidate, id string, score float64) Candidate {
		c.peers = []index.Hit{{Doc: index.Doc{ID: id}, Score: score}, c.Hit}
		return c
	}
	cases := []struct {
		name string
		cs   []Candidate
		want []string
	}{
		{"same topic, under half", []Candidate{cand("a", "prompt", 10), cand("b", "prompt", 4.9)}, []string{"a"}},
		{"same topic, half", []Candidate{cand("a", "prompt", 10), cand("b", "prompt", 5)}, []string{"a", "b"}},
		{"another topic, under half", []Candidate{cand("a", "commit: x", 10), cand("b", "branch: y", 4)}, []string{"a", "b"}},
		{"under the floor", []Candidate{cand("a", "commit: x", 10), cand("b", "branch: y", 2)}, []string{"a"}},
		{"same topic, another memory", []Candidate{cand("a", "prompt", 10), team(cand("b", "prompt", 4))}, []string{"a", "b"}},
		// a learning injected for a commit that the branch's query scored first holds the
		// branch's runner-up to half its score there
		{"its topic's query scores an injected one higher", []Candidate{cand("a", "commit: x", 10), peers(cand("b", "branch: y", 4), "a", 9)}, []string{"a"}},
		{"its topic's query scores an injected one, half", []Candidate{cand("a", "commit: x", 10), peers(cand("b", "branch: y", 4.5), "a", 9)}, []string{"a", "b"}},
		{"its topic's query scores one not injected higher", []Candidate{cand("a", "commit: x", 10), peers(cand("b", "branch: y", 4), "c", 9)}, []string{"a", "b"}},
		{"its topic's query scores another memory's", []Candidate{cand("a", "commit: x", 10), team(peers(cand("b", "branch: y", 4), "a", 9))}, []string{"a", "b"}},
	}
	for _, c := range cases {
		out := &Result{Candidates: c.cs}
		pick(out, nil, config.Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: 0.4}, DefaultGates(), nil)
		var got []string
		for _, k := range out.Injected {
			got = append(got, k.ID)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: injected %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPickFurther: at a session start a learning after the first that qualified on words
// (match, best match) is kept only when it matches Further of its topic or words of
// StrongRarity, or matched the branch: the work the session is named for. A prompt's, an
// identifier's and a touched file's are not held to it.
func TestPickFurther(t *testing.T) {
	cand := func(id, topic, rule string, cov, rarity float64) Candidate {
		c := Candidate{Hit: index.Hit{Doc: index.Doc{ID: id, Title: id}, Score: 10}, Topic: topic, Coverage: cov, Rarity: rarity, Relative: 1, Final: 10}
		switch rule {
		case "file":
			c.Topic, c.Matches = "files", []Match{{Said: "a/b.yml", Kind: string(Whole), Weight: 1, Strength: 1}}
		case "identifier":
			c.Matches = []Match{{Said: "days_ago", Kind: string(Whole), Weight: 1, Strength: 1}}
		}
		return c
	}
	first := cand("a", "commit: x", "", 1, 3)
	cases := []struct {
		name, kind string
		c          Candidate
		kept       bool
	}{
		{"a commit's, part of it", "start", cand("b", "commit: y", "", 0.6, 2), false},
		{"a commit's, most of it", "start", cand("b", "commit: y", "", 0.75, 2), true},
		{"a commit's, rare words", "start", cand("b", "commit: y", "", 0.6, 3), true},
		{"the branch's", "start", cand("b", "branch: y", "", 0.6, 2), true},
		{"a touched file", "start", cand("b", "", "file", 0.3, 1), true},
		{"an identifier", "start", cand("b", "commit: y", "identifier", 0.3, 1), true},
		{"a prompt's", "prompt", cand("b", "prompt", "", 0.6, 2), true},
	}
	for _, c := range cases {
		out := &Result{Kind: c.kind, Candidates: []Candidate{first, c.c}}
		pick(out, nil, config.Recall{MaxLearnings: 3, MaxChars: 1500, MinCoverage: 0.4}, DefaultGates(), nil)
		if kept := len(out.Injected) == 2; kept != c.kept {
			t.Errorf("%s: kept %v (%s: %s), want %v", c.name, kept, out.Candidates[1].Rule, out.Candidates[1].Why, c.kept)
		}
	}
}

// TestClauses: a prompt is cut into the requests it makes at sentence ends, lines,
// semicolons, commas and "and"/"then", but not inside brackets or quotes, where commas and
// colons separate a call's arguments or an error message's parts (7 of the relevance sets'
// 379 queries were cut inside one: slog.Debug("refresh", "token", tok) gave three clauses).
func TestClauses(t *testing.T) {
	cases := []struct {
		prompt string
		want   []string
	}{
		{"add a column, migrate the dev database and run the db tests", []string{"add a column", "migrate the dev database", "run the db tests"}},
		{`I'll add slog.Debug("refresh", "token", tok) in the handler, ok?`, []string{`I'll add slog.Debug("refresh", "token", tok) in the handler`, "ok?"}},
		{`403 {"detail": "CSRF token missing"} from the void button`, []string{`403 {"detail": "CSRF token missing"} from the void button`}},
		{"worker logs `Invoice.DoesNotExist: no match.` then stops", []string{"worker logs `Invoice.DoesNotExist: no match.`", "stops"}},
		{`it says "(a, b" and c`, []string{`it says "(a, b"`, "c"}},        // a bracket inside quotes is text
		{"a stray ( paren, and more", []string{"a stray ( paren", "more"}}, // one left open encloses nothing
	}
	for _, c := range cases {
		if got := clauses(c.prompt); !slices.Equal(got, c.want) {
			t.Errorf("clauses(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

// TestBetterTopic: a learning that qualifies on two of a session start's topics is judged on
// the one whose query scores it higher, not the one it matches more closely; on a prompt and
// its clauses (one query, one score) closeness decides.
func TestBetterTopic(t *testing.T) {
	cfg := config.Recall{MinCoverage: 0.4}
	start := func(topic string, score, rel, cov float64) Candidate {
		h := index.Hit{Doc: index.Doc{ID: "a"}, Score: score}
		return Candidate{Hit: h, Topic: topic, Coverage: cov, Rarity: 2, Relative: rel, peers: []index.Hit{h}}
	}
	branch, commit := start("branch: fix/x", 0.60, 0.58, 1), start("commit: y", 0.29, 1, 0.62)
	if !branch.better(commit, DefaultGates(), cfg) || commit.better(branch, DefaultGates(), cfg) {
		t.Error("a learning qualifying on two topics is not judged on the one scoring it higher")
	}
	weak := start("commit: z", 0.9, 1, 0.2) // scores higher, does not qualify
	if weak.better(branch, DefaultGates(), cfg) {
		t.Error("a topic it does not qualify on won over one it does")
	}
	prompt, clause := start("prompt", 0.5, 1, 0.62), start("clause: y", 0.5, 1, 1)
	prompt.peers, clause.peers = nil, nil
	if !clause.better(prompt, DefaultGates(), cfg) {
		t.Error("a prompt's clause it matches wholly is not preferred")
	}
}

// TestCompoundIdentifierAlone: a compound identifier no other learning holds carries a match
// alone when the learning scores near its query's best or holds most of the topic, not when
// another learning scores twice it and it holds a third of the request ("an index on
// refresh_tokens(user_id) … goose migration" is about the migration learning, not the one
// about rotating refresh tokens).
func TestCompoundIdentifierAlone(t *testing.T) {
	cfg := config.Recall{MinCoverage: 0.4}
	cand := func(rel, cov float64) Candidate {
		return Candidate{Topic: "prompt", Relative: rel, Coverage: cov, Rarity: 1.7,
			Matches: []Match{{Said: "refresh_tokens", Kind: string(Whole), Weight: 1, Strength: fieldStrength["entities"]}}}
	}
	for _, c := range []struct {
		rel, cov float64
		want     bool
	}{{1, 0.31, true}, {0.34, 1, true}, {0.46, 0.31, false}, {0.2, 1, false}} {
		x := cand(c.rel, c.cov)
		if rule, _, ok := DefaultGates().qualify(&x, cfg); (ok && rule == "identifier") != c.want {
			t.Errorf("relative %.2f, coverage %.2f: rule %s (%v), want the identifier rule: %v", c.rel, c.cov, rule, ok, c.want)
		}
	}
}

// TestManifestAlone: a touched file named by a learning carries it alone (the file rule, or an
// identifier's) unless the file is a package manager's manifest or lock file, which every
// change of dependencies touches; a prompt that names one still names it. A manifest's words
// do not count for a commit subject either. The names are the files topic's, as analyzed
// (.terraform.lock.hcl loses its dot).
func TestManifestAlone(t *testing.T) {
	cfg := config.Recall{MinCoverage: 0.4}
	kept := func(topic, said string) bool {
		x := Candidate{Topic: topic, Relative: 1, Coverage: 0.3, Rarity: 1.2,
			Matches: []Match{{Said: said, Kind: string(Whole), Weight: 1, Strength: fieldStrength["entities"]}}}
		_, _, ok := DefaultGates().qualify(&x, cfg)
		return ok
	}
	for _, c := range []struct {
		touched string
		want    bool
	}{
		{"billing/pyproject.toml", false},
		{"uv.lock", false},
		{"web/package.json", false},
		{"Cargo.lock", false},
		{".terraform.lock.hcl", false},
		{"stacks/prod/.terraform.lock.hcl", false},
		{".github/workflows/terraform.yml", true},
		{"models/staging/schema.yml", true},
	} {
		tp := filesTopic([]string{c.touched})
		n := 0
		for _, term := range tp.Terms {
			if term.Kind != Whole {
				continue
			}
			n++
			if got := kept("files", term.Word); got != c.want {
				t.Errorf("touched %s, named as %s: kept %v, want %v", c.touched, term.Word, got, c.want)
			}
		}
		if n == 0 {
			t.Errorf("touched %s: no whole name in %+v", c.touched, tp.Terms)
		}
	}
	if !kept("prompt", "pyproject.toml") {
		t.Error("a prompt naming pyproject.toml does not carry the learning that names it")
	}
	tps := StartTopics(Workspace{Subjects: []string{"tests: freeze the clock"}, Files: []string{"billing/uv.lock", "billing/pyproject.toml", ".terraform.lock.hcl", "billing/dunning/schedule.py"}})
	var support []string
	for _, tp := range tps {
		for _, s := range tp.Support {
			support = append(support, s.Word)
		}
	}
	for _, w := range []string{"uv", "lock", "pyproject", "toml", "terraform", "hcl"} {
		if slices.Contains(support, w) {
			t.Errorf("support %v holds %s, a manifest's word", support, w)
		}
	}
	if !slices.Contains(support, "dun") {
		t.Errorf("support %v lacks dun, of billing/dunning/schedule.py", support)
	}
}

// A learning two of a session start's topics score near their best qualifies on a match that
// neither topic carries alone; one topic's, or a match of common words, does not.
func TestTopicsAgree(t *testing.T) {
	cfg := config.Recall{MinCoverage: 0.4}
	for _, c := range []struct {
		topics      int
		rarity, cov float64
		want        bool
	}{{2, 1.92, 0.44, true}, {3, 1.6, 0.3, true}, {1, 1.92, 0.44, false}, {2, 1.3, 0.44, false}, {2, 1.92, 0.2, false}} {
		x := Candidate{Topic: "commit: refresh: test the reuse grace window", Relative: 0.5, Coverage: c.cov, Rarity: c.rarity, topics: c.topics,
			Matches: []Match{{Said: "refresh", Kind: string(Word), Weight: 0.68}, {Said: "token", Kind: string(Word), Weight: 0.49}, {Said: "rotat", Kind: string(Word), Weight: 0.74}}}
		if rule, _, ok := DefaultGates().qualify(&x, cfg); (ok && rule == "topics") != c.want {
			t.Errorf("%d topics, rarity %.2f, coverage %.2f: rule %s (%v), want the topics rule: %v", c.topics, c.rarity, c.cov, rule, ok, c.want)
		}
	}
}

// distinct counts the topics that matched words of their own: a set another holds all of, or
// a set said again, is not a topic of its own.
func TestDistinctTopics(t *testing.T) {
	set := func(ws ...string) map[string]bool {
		m := map[string]bool{}
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	for _, c := range []struct {
		sets []map[string]bool
		want int
	}{
		{nil, 0},
		{[]map[string]bool{set("refresh", "token", "rotat"), set("refresh", "reus", "window")}, 2},
		{[]map[string]bool{set("refresh", "token"), set("refresh", "token")}, 1},
		{[]map[string]bool{set("refresh", "token"), set("refresh", "token", "rotat")}, 1},
		{[]map[string]bool{set("refresh", "token", "rotat"), set("token"), set("grace", "window"), set("grace", "window")}, 2},
	} {
		if got := distinct(c.sets); got != c.want {
			t.Errorf("distinct(%v) = %d, want %d", c.sets, got, c.want)
		}
	}
}

// A branch named for its commit, or a commit subject said twice, is one topic: the topics
// rule does not take it for two (a negative of the suite with its branch named for one of its
// commits injected the dbt slim CI learning that way).
func TestTopicsEcho(t *testing.T) {
	r, keys, _ := relevanceRepo(t)
	ix := openIndex(t, r)
	subject := "gitlab: update merge request template"
	for _, ws := range []Workspace{
		{Project: "gitlab.com/acme/data-pipeline", Branch: "fix/gitlab-update-merge-request-template", Subjects: []string{subject}},
		{Project: "gitlab.com/acme/data-pipeline", Branch: "main", Subjects: []string{subject, subject}},
	} {
		res, err := Recall(context.Background(), r, ix, Request{Workspace: &ws, Now: suiteNow})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Injected {
			t.Errorf("branch %s, subjects %q: injected %s (%s: %s)", ws.Branch, ws.Subjects, keys[c.ID], c.Rule, c.Why)
		}
	}
}
