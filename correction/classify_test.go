package correction

import (
	"strings"
	"testing"
)

// classifyPositives are prompts that correct what the agent just did, with
// the alternative and the thing to avoid that each one names ("" when none).
var classifyPositives = []struct {
	prompt, instead, avoid string
}{
	{"no, use pnpm instead of npm", "pnpm", "npm"},
	{"No that's wrong", "", ""},
	{"wrong, the config lives in ~/.config/app", "", ""},
	{"Wrong file. The handler is in internal/api/routes.go", "", ""},
	{"that's not right", "", ""},
	{"That isn't correct, the port is 8443", "", ""},
	{"That’s wrong — the flag is --force-with-lease", "", ""},
	{"incorrect: the timeout is in milliseconds", "", ""},
	{"you're wrong, the API returns 204 here", "", ""},
	{"you're editing the wrong file", "", ""},
	{"that's not what I asked for", "", ""},
	{"don't use sudo", "", "sudo"},
	{"Do not touch the generated files", "", "touch the generated files"},
	{"please don't run the migrations against prod", "", "run the migrations against prod"},
	{"Please, don't add emojis to commit messages", "", "add emojis to commit messages"},
	{"don't ever hardcode the API URL", "", "hardcode the API URL"},
	{"wait, don't commit that", "", "commit that"},
	{"never push to main directly", "", "push to main directly"},
	{"stop adding comments to every line", "", "adding comments to every line"},
	{"Stop. Revert it.", "", ""},
	{"stop it", "", ""},
	{"no more console.log please", "", "console.log"},
	{"you should have run the tests first", "", ""},
	{"you should've asked before deleting that", "", ""},
	{"you shouldn't have deleted the lockfile", "", ""},
	{"you're supposed to use the Makefile targets", "the Makefile targets", ""},
	{"why did you delete config.go?", "", ""},
	{"Why would you force push to main?", "", ""},
	{"why are you still using the deprecated client?", "", "the deprecated client"},
	{"who told you to delete the branch?", "", ""},
	{"What are you doing? I asked for a one-line fix", "", ""},
	{"that broke the build", "", ""},
	{"this broke CI, the linter is failing now", "", ""},
	{"that made it worse", "", ""},
	{"you broke the login page", "", ""},
	{"Ugh, you forgot to run gofmt again", "", ""},
	{"you ignored the linter output", "", ""},
	{"you didn't even run the tests", "", ""},
	{"you keep using var instead of :=", ":=", "var"},
	{"I said use pnpm", "pnpm", ""},
	{"I told you to use the staging database", "the staging database", ""},
	{"I already told you not to use global state", "", "global state"},
	{"I meant the other file", "", ""},
	{"I didn't ask you to refactor the whole file", "", ""},
	{"not npm, pnpm", "pnpm", "npm"},
	{"Not the tests, the linter is what fails", "the linter", "the tests"},
	{"not like that", "", ""},
	{"not that one, the other one", "the other one", "that one"},
	{"use pnpm, not npm", "pnpm", "npm"},
	{"it's `go test ./...`, not `go test .`", "go test ./...", "go test ."},
	{"Nope, it's yarn, not npm", "yarn", "npm"},
	{"the tests are in pkg/foo, not pkg/bar", "pkg/foo", "pkg/bar"},
	{"instead of npm use pnpm", "pnpm", "npm"},
	{"no, use make migrate instead of go run ./cmd/migrate — it loads .env", "make migrate", "go run ./cmd/migrate"}, // a dash ends the phrase
	{"no, use make migrate instead of go run ./cmd/migrate - it loads .env", "make migrate", "go run ./cmd/migrate"},
	{"instead of mocking the db, use the testcontainer", "the testcontainer", "mocking the db"},
	{"try `--insecure` instead", "--insecure", ""},
	{"**No**, use `yarn` instead", "yarn", ""},
	{"use a map instead of a slice for lookups", "a map", "a slice"}, // "use" makes "instead of" a correction
	{"no, return an error instead of panicking", "", "panicking"},    // so does a leading negation
	{"put it in the handler instead.", "", ""},
	{"revert that", "", ""},
	{"undo that please", "", ""},
	{"roll back your last change", "", ""},
	{"actually, use pnpm", "pnpm", ""},
	{"actually, switch to slog instead", "slog", ""},
	{"nope", "", ""},
	{"no, pnpm", "pnpm", ""},
	{"no, the other one", "the other one", ""},
	{"no no, switch back to the old parser", "the old parser", ""},
	{"NO. Use the existing helper in util.go", "the existing helper", ""},
	{"> no, use pnpm", "pnpm", ""},
	{"for the third time, use tabs", "tabs", ""},
	{"you don't need sudo for that", "", "sudo"},
	{"no need to mock the database", "", "mock the database"},
	{"leave the README alone", "", ""},
	{"that's a bad idea, just bump the timeout", "", ""},
	{"this is overkill, a simple if is enough", "", ""},
	{"that's the wrong endpoint, it should be /v2/users", "", ""},
	{"Hmm no, we use tabs in this repo", "tabs", ""},
	{"Nah, go with the simpler approach", "the simpler approach", ""},
	{"not quite, the flag is --no-verify", "", ""},
	{"wrong directory, cd into web/ first", "", ""},
	{"use `uv` instead of pip", "uv", "pip"},
	{"can you undo your last edit", "", ""},
	{"Don't. Just don't.", "", ""},
	{"stop using console.log for debugging", "", "console.log"},
	{"you forgot the --frozen-lockfile flag", "", ""},
	{"No! Don't delete the migrations folder", "", "delete the migrations folder"},
	// The correction is the first line; what follows is pasted output.
	{"no\n\nhere's the log:\nerror: something went wrong", "", ""},
	{"don't use `npm ci` here\n```\nnpm ERR! code ERESOLVE\nnpm ERR! wrong peer dependency\n```", "", "npm ci"},
	{"```\n$ npm install\nnpm ERR! 404\n```\nno, use pnpm", "pnpm", ""},
}

// classifyNegatives must not read as corrections.
var classifyNegatives = []string{
	// Ordinary requests.
	"use pnpm to install deps",
	"can you add a test",
	"now run the build",
	"now let's do the migration",
	"ok let's continue",
	"try running the tests again",
	"could you use a context with a timeout here?",
	"stop the dev server and restart it",
	"please add undo support to the editor",
	"revert the commit that added the flag in 1.2 and cherry-pick the fix",
	// "instead of" in a feature request, with no negation and no "use".
	"return an error instead of panicking in parse()",
	"the function should return nil instead of an empty slice",
	// Questions.
	"why is the build slow?",
	"what does this do",
	"is this the right approach?",
	"how do I stop the watcher?",
	"what's wrong with the build?",
	"can you check why the query returns the wrong rows?",
	// Thanks and approval.
	"no problem, thanks",
	"no worries, great job",
	"yes that's right",
	"great, now add the docs",
	"perfect, that works",
	"nice work! let's move on to the docs",
	"lgtm, ship it",
	"yes, use the new API",
	"no more errors, thanks!",
	"looks good but don't forget the changelog",
	"no, that's fine",
	"no rush, take your time",
	"no, go ahead",
	"Not bad! now the docs",
	"nothing wrong with the approach, keep going",
	"what went wrong there?",
	"please use the existing logger",
	"you can use either pnpm or npm",
	"Keep it as is and add tests",
	"can you explain why it fails instead of guessing",
	// "no" inside words or unrelated.
	"node 20 is required",
	"I know it's slow",
	"note that the API is rate limited",
	"north region should use the other bucket",
	"generate a nonce per request",
	"the notion of a session is unclear",
	"no tests were run?",
	"Nonetheless, add the retry",
	// "don't" about the program, or in code.
	"write a test that checks we don't crash",
	"make sure the function doesn't panic",
	"add `// don't edit` to the header",
	"write the error as 'don't know how to parse'",
	"make it never retry more than 3 times",
	"Now add a flag to stop the daemon",
	"noop is fine for now",
	"Note: CI uses Go 1.22",
	"don't worry about the lint warnings for now",
	"I don't know why it fails",
	"never mind, I'll do it",
	"the retry loop never stops when the server is down",
	// "stop" as a domain word.
	"add a stop button",
	"implement a graceful stop of the server",
	"the stop signal should drain in-flight requests",
	// Hedges, and "wrong" deep inside pasted logs.
	"not sure, maybe check the logs",
	"it works, not sure why though",
	"here's the log:\n2024-01-01 INFO starting\n2024 ERROR something is wrong with the db\nthat's wrong",
	"Error: connection refused\n  at foo\n  at bar\nthat's wrong",
	"please look at this trace " + strings.Repeat("frame ", 80) + " that's wrong, don't use it",
	"",
	"   \n\t\n",
}

func TestClassifyPositives(t *testing.T) {
	for _, tc := range classifyPositives {
		c, ok := Classify(tc.prompt)
		if !ok {
			t.Errorf("Classify(%q) = not a correction (score %.2f, cue %q)", tc.prompt, c.Score, c.Cue)
			continue
		}
		if c.Score < threshold || c.Score > 1 || c.Cue == "" {
			t.Errorf("Classify(%q): score %.2f cue %q", tc.prompt, c.Score, c.Cue)
		}
		if c.Instead != tc.instead || c.Avoid != tc.avoid {
			t.Errorf("Classify(%q): Instead %q Avoid %q, want %q %q", tc.prompt, c.Instead, c.Avoid, tc.instead, tc.avoid)
		}
	}
}

func TestClassifyNegatives(t *testing.T) {
	for _, p := range classifyNegatives {
		if c, ok := Classify(p); ok || c.Score >= threshold {
			t.Errorf("Classify(%q) = correction (score %.2f, cue %q)", p, c.Score, c.Cue)
		}
	}
}

func TestClassifyCounts(t *testing.T) {
	if len(classifyPositives) < 40 || len(classifyNegatives) < 40 {
		t.Fatalf("%d positives, %d negatives: the tables are the spec, keep at least 40 of each", len(classifyPositives), len(classifyNegatives))
	}
}

func TestClassifyCues(t *testing.T) {
	for _, tc := range []struct{ prompt, cue string }{
		{"no, use pnpm instead of npm", "use … instead"},
		{"don't use sudo", "don't …"},
		{"why did you delete config.go?", "why did you …"},
		{"nope", "nope"},
		{"actually, use pnpm", "actually, use …"},
	} {
		if c, _ := Classify(tc.prompt); c.Cue != tc.cue {
			t.Errorf("Classify(%q).Cue = %q, want %q", tc.prompt, c.Cue, tc.cue)
		}
	}
}

// Weak cues only count together: "actually," alone is not a correction.
func TestClassifyWeakCues(t *testing.T) {
	for _, p := range []string{"actually, can you also add a test?", "actually the docs are fine", "that didn't work", "ugh"} {
		if c, ok := Classify(p); ok {
			t.Errorf("Classify(%q) = correction (%.2f %q); a weak cue alone must not be", p, c.Score, c.Cue)
		}
	}
	for _, p := range []string{"actually, use pnpm", "that didn't work, use the v2 endpoint instead", "ugh, you forgot the flag"} {
		if c, ok := Classify(p); !ok {
			t.Errorf("Classify(%q) = not a correction (%.2f %q)", p, c.Score, c.Cue)
		}
	}
}

// Only the first two non-empty lines and 400 bytes are read.
func TestClassifyHead(t *testing.T) {
	long := "here is the output\n" + strings.Repeat("ok 1 - passes\n", 3) + "no, that's wrong, don't use npm"
	if _, ok := Classify(long); ok {
		t.Errorf("a cue on line 5 counted")
	}
	wide := "please summarise " + strings.Repeat("x", 400) + " don't use npm"
	if _, ok := Classify(wide); ok {
		t.Errorf("a cue after 400 bytes counted")
	}
	second := "hmm\nthat's wrong, the port is 8443"
	if _, ok := Classify(second); !ok {
		t.Errorf("a cue on the second line did not count")
	}
}

// benchPrompts are 2 KB prompts: a correction followed by a pasted log, a log
// with no correction at all (the common case), and a head that is cues from
// end to end (the worst case for the anchored cues).
func benchPrompts() []struct{ name, prompt string } {
	log := strings.Repeat("2024-05-01T10:00:00Z ERROR handler: something went wrong, retrying\n", 40)
	return []struct{ name, prompt string }{
		{"correction+log", ("no, use pnpm instead of npm. here is the log:\n" + log)[:2048]},
		{"log", ("please look at this failure and fix it\n" + log)[:2048]},
		{"dense-cues", strings.Repeat("why did you use the wrong flag, you should have asked ", 40)[:2048]},
	}
}

func BenchmarkClassify(b *testing.B) {
	for _, p := range benchPrompts() {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(p.prompt)))
			b.ReportAllocs()
			for b.Loop() {
				Classify(p.prompt)
			}
		})
	}
}

func TestCueTable(t *testing.T) {
	cues, _ := cueTable()
	if len(cues) > maxCues {
		t.Fatalf("%d cues, maxCues is %d", len(cues), maxCues)
	}
	for i, c := range cues {
		if len(c.anchors) == 0 || c.re == nil || c.w <= 0 || c.w >= 1 || !c.neg && c.label == "" {
			t.Errorf("cue %d (%q) is incomplete", i, c.label)
		}
		for _, w := range append(c.kw, c.anchors...) {
			if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
				t.Errorf("cue %q: keyword or anchor %q is not one word", c.label, w)
			}
		}
	}
}

// The cue tables are shared by every hook process's goroutines: read-only.
func TestClassifyConcurrent(t *testing.T) {
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for _, tc := range classifyPositives {
				if _, ok := Classify(tc.prompt); !ok {
					t.Errorf("Classify(%q) changed under concurrency", tc.prompt)
				}
				Remember(tc.prompt)
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
