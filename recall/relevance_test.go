package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/internal/testenv"
)

func setHome(t testing.TB) { testenv.SetHome(t) }

// relevanceRepo is a knowledge repository holding the relevance corpus; keys maps ids back
// to corpus keys.
func relevanceRepo(t testing.TB) (*gitstore.Repo, map[string]string, []fixtures.RelQuery) {
	t.Helper()
	return grownRepo(t, growth{})
}

// growth is what a memory holds besides the relevance corpus: copies more of each of its
// learnings, each in a project of its own (the same words, in a memory copies+1 times the
// size), and synth synthetic learnings (fixtures.SynthLearning: other words) spread over 20
// other projects. Neither is ever labelled: no query's scope holds them.
type growth struct{ copies, synth int }

// grownRepo is relevanceRepo in a memory grown by g.
func grownRepo(t testing.TB, g growth) (*gitstore.Repo, map[string]string, []fixtures.RelQuery) {
	t.Helper()
	setHome(t)
	ls, qs, err := fixtures.Relevance()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids, keys := map[string]string{}, map[string]string{}
	for _, l := range ls {
		ids[l.Key] = fixtures.RelID(l)
		keys[ids[l.Key]] = l.Key
	}
	files := map[string][]byte{}
	for _, l := range ls {
		p, data := l.Render(ids)
		files[p] = data
	}
	for c := 1; c <= g.copies; c++ {
		for _, l := range ls {
			l.Key = fmt.Sprintf("%s-copy%d", l.Key, c)
			l.Project = fmt.Sprintf("github.com/copy%d/%s", c, strings.ReplaceAll(l.Project, "/", "-"))
			if l.Status == "superseded" {
				l.Status, l.SupersededBy = "archived", ""
			}
			ids[l.Key] = fixtures.RelID(l)
			p, data := l.Render(ids)
			files[p] = data
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range g.synth {
		p, data := fixtures.SynthLearning(rng, i, fixtures.SynthProject(i%20), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute))
		files[p] = data
	}
	if _, err := r.Commit(ctx, "relevance corpus", files); err != nil {
		t.Fatal(err)
	}
	checkLabels(t, ls, qs)
	return r, keys, qs
}

// checkLabels holds the suite to its own rules: a query labels only current learnings of its
// own project or _global, each under one name.
func checkLabels(t testing.TB, ls []fixtures.RelLearning, qs []fixtures.RelQuery) {
	t.Helper()
	byKey := map[string]fixtures.RelLearning{}
	for _, l := range ls {
		byKey[l.Key] = l
	}
	names := map[string]bool{}
	for _, q := range qs {
		if names[q.Name] {
			t.Fatalf("query %s: named twice", q.Name)
		}
		names[q.Name] = true
		for _, k := range append(append([]string(nil), q.Relevant...), q.Related...) {
			l, ok := byKey[k]
			switch {
			case !ok:
				t.Fatalf("query %s: no learning %s", q.Name, k)
			case l.Status != "" && l.Status != "current":
				t.Fatalf("query %s: %s is %s", q.Name, k, l.Status)
			case l.Project != q.Project && l.Project != "_global":
				t.Fatalf("query %s: %s is of %s", q.Name, k, l.Project)
			}
		}
	}
}

// suiteNow is the day the suite's queries are asked (the corpus ends in November 2026).
var suiteNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// figures are what a set of labelled queries measures of recall.
type figures struct {
	queries, negatives, silent int
	injected, relevant, dirty  int
	found, want                map[string]int // labelled-relevant injected, and labelled, by hook (prompt, start)
	byName                     map[string][2]int
	report                     []string // a line a query; "!!" marks one that injected something irrelevant or missed all it should find
}

func (f figures) precision() float64  { return float64(f.relevant) / float64(max(1, f.injected)) }
func (f figures) dirtyShare() float64 { return float64(f.dirty) / float64(max(1, f.queries)) }
func (f figures) share(kind string) float64 {
	return float64(f.found[kind]) / float64(max(1, f.want[kind]))
}

func (f figures) summary(name string) string {
	return fmt.Sprintf("%s: %d queries (%d negative): precision@3 %.3f, queries injecting something irrelevant %.1f%% (%d), relevant found %.3f at UserPromptSubmit (%d/%d) and %.3f at SessionStart (%d/%d), negatives left silent %d/%d, injected %d",
		name, f.queries, f.negatives, f.precision(), 100*f.dirtyShare(), f.dirty, f.share("prompt"), f.found["prompt"], f.want["prompt"], f.share("start"), f.found["start"], f.want["start"], f.silent, f.negatives, f.injected)
}

// measure asks every query of qs of the memory r holds (keys: learning ids to corpus keys).
func measure(t *testing.T, r *gitstore.Repo, keys map[string]string, qs []fixtures.RelQuery) figures {
	t.Helper()
	ctx := context.Background()
	ix := openIndex(t, r)
	f := figures{queries: len(qs), found: map[string]int{}, want: map[string]int{}, byName: map[string][2]int{}}
	for _, q := range qs {
		ws := &Workspace{Project: q.Project, Branch: q.Branch, Subjects: q.Commits, Files: q.Files}
		res, err := Recall(ctx, r, ix, Request{Workspace: ws, Prompt: q.Prompt, Now: suiteNow})
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := map[string]bool{}, map[string]bool{}
		for _, k := range q.Relevant {
			rel[k], ok[k] = true, true
		}
		for _, k := range q.Related {
			ok[k] = true
		}
		var got []string
		bad := false
		for _, c := range res.Injected {
			k := keys[c.ID]
			mark := "✗"
			switch {
			case rel[k]:
				mark = "✓"
				f.relevant++
			case ok[k]:
				mark = "~"
			default:
				bad = true
			}
			got = append(got, mark+k)
		}
		f.injected += len(res.Injected)
		f.want[res.Kind] += len(q.Relevant)
		kind, _, _ := strings.Cut(q.Name, "-")
		n := f.byName[kind]
		n[1] += len(q.Relevant)
		for _, c := range res.Injected {
			if rel[keys[c.ID]] {
				f.found[res.Kind]++
				n[0]++
			}
		}
		f.byName[kind] = n
		if bad {
			f.dirty++
		}
		if len(q.Relevant) == 0 && len(q.Related) == 0 {
			f.negatives++
			if len(res.Injected) == 0 {
				f.silent++
			}
		}
		line := fmt.Sprintf("%-45s want %v got %v", q.Name, q.Relevant, got)
		if bad || len(q.Relevant) > 0 && len(got) == 0 {
			line = "!! " + line
			var why []string
			for _, c := range res.Candidates[:min(5, len(res.Candidates))] {
				why = append(why, fmt.Sprintf("%s %.2f cov %.2f rarity %.2f rel %.2f [%s] %s", keys[c.ID], c.Final, c.Coverage, c.Rarity, c.Relative, matched(c), c.Why))
			}
			line += "\n      terms: " + strings.Join(res.Terms, " ") + "\n      top: " + strings.Join(why, "\n           ")
		}
		f.report = append(f.report, line)
	}
	sort.Strings(f.report)
	return f
}

// log prints the figures, by kind of query (the first word of a query's name), and with -v
// query by query.
func (f figures) log(t *testing.T, name string) {
	t.Log(f.summary(name))
	var kinds []string
	for k, n := range f.byName {
		if n[1] > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %.2f (%d/%d)", k, float64(n[0])/float64(n[1]), n[0], n[1]))
		}
	}
	sort.Strings(kinds)
	t.Log("relevant found by kind of query: " + strings.Join(kinds, ", "))
	if testing.Verbose() {
		for _, l := range f.report {
			t.Log(l)
		}
	}
}

// fail reports the figures as below target, with the queries that erred.
func (f figures) fail(t *testing.T, name string) {
	for _, l := range f.report {
		if strings.HasPrefix(l, "!!") {
			t.Log(l)
		}
	}
	t.Errorf("below target: %s", f.summary(name))
}

// TestRelevance measures recall on the labelled suite: precision@3 (of what is injected,
// the share labelled relevant), the share of queries that inject anything irrelevant
// (labelled neither relevant nor related), the negative queries (nothing labelled) left
// silent, and the share of labelled-relevant learnings found at each hook. It holds the
// first three to issue 16's targets (≥ 0.9, ≤ 5%, all) and the last to SessionStart's target
// (0.7: 27/38) and the UserPromptSubmit figure reached (81/126 since a clause's floor is taken
// against its own best candidate; the target, 0.75, is not: see the README). Precision is held
// at the figure reached, 0.947 (108/114) since a session start's learning after the first
// needs most of its topic (Gates.Further; 0.939, 108/115, before).
func TestRelevance(t *testing.T) {
	r, keys, qs := relevanceRepo(t)
	f := measure(t, r, keys, qs)
	f.log(t, "relevance")
	if f.precision() < 0.947 || f.dirtyShare() > 0.05 || f.silent < f.negatives || f.found["prompt"] < 81 || f.share("start") < 0.7 {
		f.fail(t, "relevance")
	}
}

// TestRelevanceGrowth measures the suite in a memory that grew, to hold recall as flat as
// its speed while a memory grows (index/rarity.go). Before a word's weight was counted in
// the query's scope and measured in a fixed unit, four more copies of the corpus in other
// projects (1,180 learnings) cut UserPromptSubmit from 81 to 63 of 126 and SessionStart from
// 27 to 18 of 38; now 79 and 25 (26 before Gates.Further). With 2,000 synthetic learnings of 20 other projects (words
// of their own, which the suite's queries share only in part), UserPromptSubmit finds 77,
// SessionStart 24, 3 queries inject something irrelevant and one negative speaks.
func TestRelevanceGrowth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		g     growth
		floor floor
	}{
		{"copies", growth{copies: 4}, floor{precision: 0.939, silent: 23, prompt: 79, start: 25}},
		{"others", growth{synth: 2000}, floor{precision: 0.939, silent: 22, prompt: 77, start: 24}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, keys, qs := grownRepo(t, tc.g)
			f := measure(t, r, keys, qs)
			f.log(t, "relevance, "+tc.name)
			if f.precision() < tc.floor.precision || f.dirtyShare() > 0.05 || f.silent < tc.floor.silent || f.found["prompt"] < tc.floor.prompt || f.found["start"] < tc.floor.start {
				f.fail(t, "relevance, "+tc.name)
			}
		})
	}
}

// matched lists what a candidate matched, for the suite's report.
func matched(c Candidate) string {
	var out []string
	for _, m := range c.Matches {
		s := m.Said
		if m.Found != "" {
			s += "=" + m.Found
		}
		if m.Kind != string(Word) {
			s += "(" + m.Kind + ")"
		}
		out = append(out, fmt.Sprintf("%s %.2f", s, m.Weight))
	}
	return strings.Join(out, ", ")
}

// measureSet measures a held-out set of queries over the suite's corpus, its labels held to
// the suite's rules.
func measureSet(t *testing.T, load func() ([]fixtures.RelQuery, error)) figures {
	t.Helper()
	r, keys, _ := relevanceRepo(t)
	ls, _, err := fixtures.Relevance()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := load()
	if err != nil {
		t.Fatal(err)
	}
	checkLabels(t, ls, qs)
	return measure(t, r, keys, qs)
}

// TestRelevanceHeldout measures the held-out queries (fixtures/relevance/heldout.yaml),
// written and labelled before recall was tuned for issue 16's targets and never tuned
// against, on the same corpus. Measured once (precision 1.0, 0 of 39 injecting anything
// irrelevant, 27/30 found at UserPromptSubmit, 5/5 at SessionStart, 4/4 negatives silent),
// it holds them to issue 16's targets. One miss was read since (heldout-web-sentry-minified:
// the best of a clause, 54% of it, rarity 2.48, was held to the 80% a clause of a compound
// prompt needs): a clause's best match now qualifies as a prompt's does (28/30), and the
// suite's figures did not move. The fourth round's chatter (since, anyway, probably, …) finds
// one more (heldout-data-full-scan-cost): 29/30, the floor.
func TestRelevanceHeldout(t *testing.T) {
	f := measureSet(t, fixtures.RelevanceHeldout)
	f.log(t, "held out")
	if f.precision() < 0.9 || f.dirtyShare() > 0.05 || f.silent < f.negatives || f.found["prompt"] < 29 || f.share("start") < 0.7 {
		f.fail(t, "held out")
	}
}

// TestRelevanceHeldout2 measures the second held-out set (fixtures/relevance/heldout2.yaml):
// 57 queries over the same corpus, the learnings they ask about drawn at random, written and
// labelled from the learnings' text before the second round of tuning for issue 16, without
// running recall on them. First measured (before any change of that round): precision@3
// 0.868 (46 of 53 injected relevant; related ones count against it), 2 of 57 queries
// injecting something irrelevant (3.5%), 31/36 found at UserPromptSubmit, 15/17 at
// SessionStart, 8/8 negatives silent. Precision is under issue 16's 0.9 on this set, so the
// test holds the figures first measured as floors (a change may not lose on them) and the
// targets where they are met (≤ 5% dirty, every negative silent). One floor moved since, for
// a bug fix and not for tuning: Render's body cut ran over recall.max_chars and the budget
// refused a qualifying third learning; with it fixed the suite's SessionStart finds 27/38
// where it found 26, and one session start here that already injected something
// irrelevant (start-bill-duplicate-emails) gains a third, irrelevant one: precision 0.852.
// The third round (measured on heldout3.yaml too, which it was not tuned on) read each
// irrelevant injection here: two rode on a touched path's words counted for a commit subject
// (once more when the subject said the word itself, and at a said word's full weight: billing/
// and .py); with a path's word counted once and at half weight, precision is 0.902 (46 of 51),
// 1 query of 57 dirty; "timed out" analyzed as timeout finds one more at UserPromptSubmit
// (32/36): precision 0.904 (47 of 52). The fourth round added the currency codes to the
// vocabulary (read off para-web-eur-dollars' miss: "billed in euros", the learning's EUR):
// 33/36, precision 0.906 (48 of 53). The fifth round made a synonym count 0.8 of its word
// (read off start-auth-token-flaky, which added the learning about tokens rejected
// "intermittently" to the branch fix/flaky-token-tests): precision 0.923 (48 of 52), no query
// injecting anything irrelevant. The test holds the figures reached as floors.
func TestRelevanceHeldout2(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout2, "held out 2", floor{precision: 0.941, silent: 8, prompt: 33, start: 15})
}

// TestRelevanceHeldout3 measures the third held-out set (fixtures/relevance/heldout3.yaml):
// 40 queries over the same corpus (26 prompts, 8 session starts, 6 negatives), the
// learnings they ask about drawn by a seeded shuffle, written and labelled from the
// learnings' text before the third round of tuning for issue 16, without running recall on
// them. Its labels never change after the commit that added it: it measures whether that
// round's changes hold on queries they were not made for. First measured (before any change
// of that round): precision@3 0.659 (27 of 41 injected relevant; related ones count against
// it), 5 of 40 queries injecting something irrelevant (12.5%), 21/26 found at
// UserPromptSubmit, 6/8 at SessionStart, 4/6 negatives silent (neg-auth-rename-handler
// injects r.PathValue's learning on "handler … route … GetUser"; neg-start-infra-codeowners
// two on "network stacks"). Those figures were its floors: a change may not lose on them.
// After that round: precision@3 0.711 (27 of 38), 3 of 40 dirty (7.5%), 21/26 and 6/8 found,
// 5/6 negatives silent (neg-start-infra-codeowners is silent since "add" is commit-subject noise
// and a touched path's word counts half; start-auth-client-logo no longer injects PKCE's
// learning on "client" counted twice). The fourth round (not tuned on this set): precision@3
// 0.730 (27 of 37), 2 of 40 dirty (5.0%, issue 16's bound): start-mob-missing-dsyms no longer
// adds the Play track learning, which scored under half its topic's first learning. The fifth
// round: precision@3 0.750 (27 of 36): start-web-vite-5 no longer adds the corepack learning
// (related) at 42% of the score the files' query gave the Vite upgrade learning, injected for
// a commit. The floors are these figures.
func TestRelevanceHeldout3(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout3, "held out 3", floor{precision: 0.771, dirty: 2, silent: 5, prompt: 21, start: 6})
}

// TestRelevanceHeldout4 measures the fourth held-out set (fixtures/relevance/heldout4.yaml):
// 42 queries over the same corpus (26 prompts, mostly symptoms and paraphrases, 8 session
// starts, 8 negatives that share words with the memory), the learnings they ask about drawn by
// a seeded shuffle, written and labelled from the learnings' text before the fourth round of
// tuning for issue 16, without running recall on them. Its labels never change after the
// commit that added it. First measured (before any change of that round): precision@3 0.719
// (23 of 32 injected relevant), 5 of 42 queries injecting something irrelevant (11.9%),
// 17/26 found at UserPromptSubmit, 6/8 at SessionStart, 7/8 negatives silent
// (neg-infra-cost-tag injects the VPC endpoints' learning on aws, cost, network). After the
// fourth round: precision@3 0.839 (26 of 31), 3 of 42 dirty (7.1%), 20/26 and 6/8 found, 7/8
// negatives silent (cronjob typed in lower case is CronJob's identifier; production is no
// longer stemmed to product; a views.py of another directory carries no session start; a
// topic's second learning needs half its first one's text score; a chatty prompt's
// adverbs are chatter). The fifth round: precision@3 0.867 (26 of 30), 2 of 42 dirty (4.8%,
// issue 16's bound): a compound identifier (refresh_tokens) carries a match alone only for a
// learning scoring near its query's best or holding 60% of the topic. The floors are these
// figures (20/26 meets issue 16's 0.75): a change may not lose on them.
func TestRelevanceHeldout4(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout4, "held out 4", floor{relevant: 26, precision: 0.896, dirty: 1, silent: 7, prompt: 20, start: 6})
}

// TestRelevanceHeldout5 measures the fifth held-out set (fixtures/relevance/heldout5.yaml):
// 42 queries over the same corpus (26 prompts, 8 session starts, 8 negatives that share
// ordinary words with the memory), the learnings they ask about drawn by a seeded shuffle,
// written and labelled from the learnings' text before the fifth round of tuning for issue
// 16, without running recall on them. Its labels never change after the commit that added it.
// First measured (before any change of that round): precision@3 0.767 (23 of 30 injected
// relevant; related ones count against it), 4 of 42 queries injecting something irrelevant
// (9.5%), 18/27 found at UserPromptSubmit, 5/9 at SessionStart, 7/8 negatives silent
// (neg-auth-display-name-error injects the SQLSTATE 23505 learning on error, message,
// return, name). After that round: precision@3 0.793 (23 of 29), 3 of 42 dirty (7.1%), the
// rest unchanged: start-auth-totp-drift no longer adds the id_token clock-skew learning, which
// its branch's query scored at 14% of the TOTP learning injected for a commit subject. That
// rule was designed from the irrelevant injections of all six sets, this one's included, and
// the derived nouns (expiry: expire) were seen in its start-auth-token-lifetime (which they do
// not find): the unseen estimate lies between the first figures and these. The floors are
// these figures.
func TestRelevanceHeldout5(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout5, "held out 5", floor{relevant: 22, precision: 0.814, dirty: 3, silent: 7, prompt: 18, start: 4})
}

// TestRelevanceHeldout6 measures the sixth held-out set (fixtures/relevance/heldout6.yaml):
// 42 queries over the same corpus (26 prompts in five styles, 8 session starts, 8 negatives),
// the learnings they ask about drawn by a seeded shuffle, written and labelled blind (by a
// helper that never ran recall) before the sixth round of tuning for issue 16. Its labels
// never change after the commit that added it. First measured (before any change of that
// round): precision@3 0.733 (22 of 30 injected relevant; related ones count against it), 4 of
// 42 queries injecting something irrelevant (9.5%), 16/27 found at UserPromptSubmit, 6/8 at
// SessionStart, 8/8 negatives silent. After that round: precision@3 0.742 (23 of 31), 7/8 at
// SessionStart (a learning two commit subjects each score first qualifies: Gates.Topics), the
// rest unchanged and no other set's figure moved. The floors are these figures, but for
// precision and the dirty count, which the eighth and ninth rounds improved (see
// TestRelevanceHeldout8).
func TestRelevanceHeldout6(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout6, "held out 6", floor{precision: 0.851, dirty: 3, silent: 8, prompt: 16, start: 7})
}

// TestRelevanceHeldout7 measures the seventh held-out set (fixtures/relevance/heldout7.yaml),
// written and labelled blind with the sixth, by another helper, from another draw. The sixth
// round was tuned on the sixth set only; this one is its check, read query by query only after
// that round. First measured (before any change of that round, its summary alone): precision@3
// 0.818 (18 of 22), 3 of 42 queries injecting something irrelevant (7.1%), 15/26 found at
// UserPromptSubmit, 3/8 at SessionStart, 8/8 negatives silent; after the round the same. By
// kind: pasted errors 5/5, identifiers 3/4, symptoms in everyday words 2/10 (a launch in
// Chilean pesos for the zero-decimal currencies, a DAG that floods the scheduler with runs for
// catchup: no word in common that a learning's own vocabulary holds). The floors are these
// figures, but for precision, which the ninth round, read off this set and the eighth, raised
// (see TestRelevanceHeldout8).
func TestRelevanceHeldout7(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout7, "held out 7", floor{precision: 0.857, dirty: 3, silent: 8, prompt: 15, start: 3})
}

// TestRelevanceHeldout8 measures the eighth held-out set (fixtures/relevance/heldout8.yaml):
// 40 queries over the same corpus (28 session starts, half of them over two or three topics,
// 4 negative session starts, 8 prompts), the learnings they ask about drawn by a seeded
// shuffle, written and labelled blind (by a helper that never ran recall nor read its code)
// before the eighth round of tuning for issue 16, which concerns session starts. Its labels
// never change after the commit that added it. First measured (before any change of that
// round): precision@3 0.500 (20 of 40 injected relevant; related ones count against it), 7 of
// 40 queries injecting something irrelevant (17.5%), 4/9 found at UserPromptSubmit, 16/29 at
// SessionStart, 4/4 negatives silent: on branches nobody tuned for, half of what a session
// start injects is the learning wanted. With Gates.Further as first written (read off the
// other sets): precision@3 0.514, 4 of 40 dirty (10%), 14/29 at SessionStart: it dropped three
// irrelevant learnings and two relevant ones, each the branch's own match after a learning a
// touched file or a commit subject gave (ci/faster-terraform-init, ci/android-auto-promote).
// With a branch's match exempt (read off those two): precision@3 0.541 (20 of 37), 4 of 40
// dirty, 16/29 at SessionStart. The floors are these figures, but for those the ninth round
// improved (below).
//
// The eighth round (Gates.Further, read off every set's session starts but the eighth) moved:
// on the suite precision 0.939 → 0.947; held out 2 0.923 → 0.941; held out 3 0.750 → 0.771;
// held out 4 0.867 → 0.897 and 2 → 1 dirty; held out 5 0.793 → 0.815 and SessionStart 5 → 4
// of 9 (infra-cronjob-missed-schedules, after the chart learning, at 46% of its commit subject);
// held out 6 0.742 → 0.821 and 4 → 3 dirty; in the memory grown by copies SessionStart 26 → 25
// (the OpenAPI types learning's rarity falls under StrongRarity there). Held out 8 is its check.
//
// The ninth round, read off this set (uv.lock, pyproject.toml, package.json) and held out 7,
// takes a touched manifest or lock file of a package manager (recall.manifests) as no
// evidence of the work: it no longer carries a learning by name, and its words no longer
// count for a commit subject. Here precision@3 0.541 → 0.625 (20 of 32) and 4 → 3 dirty;
// held out 6 0.821 → 0.852 and held out 7 0.818 → 0.857 (a related learning each); in the
// memory grown by copies one related learning more (infra-tf-plan-in-pr). No relevant
// learning was lost on any set; the suite's figures did not move.
func TestRelevanceHeldout8(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout8, "held out 8", floor{relevant: 20, precision: 0.625, dirty: 3, silent: 4, prompt: 4, start: 16})
}

// floor is what a held-out set's figures may not fall under (dirty: not rise over).
type floor struct {
	relevant      int
	precision     float64
	dirty, silent int
	prompt, start int
}

// holdSet measures a held-out set and holds it to its floor.
func holdSet(t *testing.T, load func() ([]fixtures.RelQuery, error), name string, fl floor) {
	t.Helper()
	f := measureSet(t, load)
	f.log(t, name)
	if f.relevant < fl.relevant || f.precision() < fl.precision || f.dirty > fl.dirty || f.silent < fl.silent || f.found["prompt"] < fl.prompt || f.found["start"] < fl.start {
		f.fail(t, name)
	}
}

// TestRelevanceHeldout9 measures the ninth held-out set (fixtures/relevance/heldout9.yaml):
// 44 queries over the same corpus (26 prompts in five styles, 12 session starts, 3 negative
// prompts and 3 negative session starts), the learnings they ask about drawn by a seeded
// shuffle, written and labelled blind (by a helper that never ran recall nor read its code)
// after the ninth round, which read sets 7 and 8: the one set no change has read. First
// measured (nothing changed for it): precision@3 0.767 (23 of 30 injected relevant), 3 of 44
// queries injecting something irrelevant (6.8%), 14/28 found at UserPromptSubmit, 9/13 at
// SessionStart, 6/6 negatives silent. The floors are these figures.
func TestRelevanceHeldout9(t *testing.T) {
	holdSet(t, fixtures.RelevanceHeldout9, "held out 9", floor{relevant: 23, precision: 0.766, dirty: 3, silent: 6, prompt: 14, start: 9})
}
