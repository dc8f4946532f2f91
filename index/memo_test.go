package index

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// TestMemoFollowsTheState: the opens of one state of the index share what their searches read
// and counted, and answer exactly as an open that read it all itself; a learning rewritten or
// added, or a rebuild, gives the next open a memo of its own, so no open ever answers from a
// state it does not reflect.
func TestMemoFollowsTheState(t *testing.T) {
	ctx := context.Background()
	const project = "github.com/acme/zoo"
	when := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	render := func(l *learnings.Learning) (string, []byte) {
		data, err := l.Render()
		if err != nil {
			t.Fatal(err)
		}
		return learnings.PathFor(project, l.ID), data
	}
	learning := func(title, body string, at time.Duration) (string, []byte) {
		l := learnings.New(title, project, when.Add(at))
		l.Body = body
		return render(l)
	}
	files := map[string][]byte{}
	g := learnings.New("Deploy the gizmo with the canary flag", project, when)
	g.Body = "The gizmo rollout needs the canary flag set."
	gizmo, data := render(g)
	files[gizmo] = data
	for i, title := range []string{"Lint before pushing", "Retry the flaky webhook test", "Pin the schema version", "Cache the token per tenant"} {
		p, data := learning(title, "Said once: "+strings.ToLower(title)+".", time.Duration(i+1)*time.Minute)
		files[p] = data
	}
	r := repoWith(t, files)
	q := Query{Terms: Analyze("gizmo canary rollout webhook"), Projects: []string{project, learnings.Global}}
	// search opens the index (a writer, when it catches up, holds it: each closes it), and
	// returns its memo and what q found
	search := func() (*memo, *Result) {
		t.Helper()
		ix, err := Open(ctx, r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		res, err := ix.Search(ctx, q)
		if err != nil || res.Source != "index" {
			t.Fatalf("search: %v (%+v)", err, res)
		}
		return ix.shared, res
	}
	title := func(res *Result, path string) string {
		for _, h := range res.Hits {
			if h.Path == path {
				return h.Title
			}
		}
		return ""
	}

	first, cold := search()
	second, warm := search()
	if first == nil || second != first {
		t.Fatal("two opens of the same state do not share a memo")
	}
	for _, res := range []*Result{cold, warm} {
		for i := range res.Hits {
			res.Hits[i].from = nil // which open found it
		}
	}
	if !reflect.DeepEqual(cold, warm) {
		t.Errorf("an open answering from the memo differs from one that read it all:\n%+v\n%+v", cold, warm)
	}

	// the same learning rewritten, at the same path: its new title, not the memo's
	g.Title, g.Body = "Deploy the gizmo behind the canary gate", "The gizmo rollout now waits for the canary gate."
	_, data = render(g)
	if _, err := r.Commit(ctx, "rewrite", map[string][]byte{gizmo: data}); err != nil {
		t.Fatal(err)
	}
	third, rewritten := search()
	if third == second {
		t.Error("an open after a rewrite shares the memo of the state before it")
	}
	if got := title(rewritten, gizmo); got != "Deploy the gizmo behind the canary gate" {
		t.Errorf("the rewritten learning's title: %q", got)
	}

	// more learnings hold "gizmo": its weight falls with the new counts
	more := map[string][]byte{}
	for i := range 3 {
		p, data := learning("Gizmo note", "Another gizmo fact.", time.Duration(10+i)*time.Minute)
		more[p] = data
	}
	if _, err := r.Commit(ctx, "more", more); err != nil {
		t.Fatal(err)
	}
	_, added := search()
	if !(added.Weights["gizmo"] < rewritten.Weights["gizmo"]) {
		t.Errorf("gizmo weighs %.3f in 4 of 8 learnings, %.3f in 1 of 5: the counts are stale", added.Weights["gizmo"], rewritten.Weights["gizmo"])
	}

	// a rebuild writes a new generation: a memo of its own, the same answer
	fourth, _ := search()
	if _, err := Rebuild(ctx, r, Options{}); err != nil {
		t.Fatal(err)
	}
	fifth, rebuilt := search()
	if fifth == fourth {
		t.Error("an open of a rebuilt index shares the memo of the generation before it")
	}
	// (its scores differ a little: a caught-up index counts its deleted documents' lengths)
	found := func(res *Result) []string {
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Path+" "+h.Title+" "+strings.Join(h.Terms, ","))
		}
		sort.Strings(out)
		return out
	}
	if !reflect.DeepEqual(found(rebuilt), found(added)) {
		t.Errorf("the rebuilt index finds otherwise:\n%q\n%q", found(rebuilt), found(added))
	}
}

// TestMemoBounded: a memo past its size is not handed to the next open.
func TestMemoBounded(t *testing.T) {
	m := memoOf(t.TempDir(), [20]byte{1})
	if m != memoOf(m.key[:strings.LastIndex(m.key, "@")], [20]byte{1}) {
		t.Fatal("the same state, another memo")
	}
	m.size = maxMemoBytes + 1
	if m == memoOf(m.key[:strings.LastIndex(m.key, "@")], [20]byte{1}) {
		t.Error("a full memo handed out again")
	}
}

// TestPrunedScoresAsWhole: a query without the clauses of its words in fields that hold them
// nowhere (pruned) finds the same learnings, in the same order, with the same scores as the
// query with them, in a memory whose every text field holds words and in one where some hold
// none (bleve's idf then falls back to tf-idf's); and the pruning leaves most clauses out.
func TestPrunedScoresAsWhole(t *testing.T) {
	ctx := context.Background()
	_, qs, err := fixtures.Relevance()
	if err != nil {
		t.Fatal(err)
	}
	synth := map[string][]byte{}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		p, data := fixtures.SynthLearning(rng, i, fixtures.SynthProject(i%3), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute))
		synth[p] = data
	}
	for name, r := range map[string]*gitstore.Repo{"fixtures": fixtureRepo(t), "synthetic": repoWith(t, synth)} {
		t.Run(name, func(t *testing.T) {
			ix, err := Open(ctx, r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			compared, kept, all := 0, 0, 0
			for _, rq := range qs {
				text := rq.Prompt + " " + rq.Branch + " " + strings.Join(rq.Commits, " ")
				terms := Analyze(text + " cache retry token schema deploy webhook")
				c := ix.counts(ctx, terms, nil)
				if c.zero == nil {
					t.Fatal("the memo does not know which fields hold a word")
				}
				whole := Query{Terms: terms, Limit: 48}
				pruned := whole
				pruned.held, pruned.zero = c.held, c.zero
				a, err := ix.idx.SearchInContext(ctx, whole.request())
				if err != nil {
					t.Fatal(err)
				}
				b, err := ix.idx.SearchInContext(ctx, pruned.request())
				if err != nil {
					t.Fatal(err)
				}
				if len(a.Hits) != len(b.Hits) || a.Total != b.Total {
					t.Fatalf("%s: %d hits of %d pruned, %d of %d whole", rq.Name, len(b.Hits), b.Total, len(a.Hits), a.Total)
				}
				for i := range a.Hits {
					if a.Hits[i].ID != b.Hits[i].ID || math.Abs(a.Hits[i].Score-b.Hits[i].Score) > 1e-12*a.Hits[i].Score {
						t.Fatalf("%s: hit %d: %s %.17g pruned, %s %.17g whole", rq.Name, i, b.Hits[i].ID, b.Hits[i].Score, a.Hits[i].ID, a.Hits[i].Score)
					}
				}
				compared += len(a.Hits)
				for _, t := range terms {
					all += len(textFields)
					kept += bits.OnesCount8(c.held[t])
				}
			}
			t.Logf("%d hits of %d queries compared; %d of %d clauses kept", compared, len(qs), kept, all)
			if compared == 0 || kept*2 > all {
				t.Errorf("%d hits compared, %d of %d clauses kept: the test no longer tries what it is for", compared, kept, all)
			}
		})
	}
}

// TestMemoKeepsOnlyLoaded: a learning asked of the memo without its stored fields is not kept,
// or every later open of the state would take its path alone for the learning.
func TestMemoKeepsOnlyLoaded(t *testing.T) {
	var m memo
	if d := m.doc("learnings/a.md", nil); d.Path != "learnings/a.md" || !m.empty() {
		t.Errorf("a learning not loaded: %+v kept %v", d, !m.empty())
	}
	m.doc("learnings/a.md", map[string]any{"title": "Pin Go"})
	if d := m.doc("learnings/a.md", nil); d.Title != "Pin Go" {
		t.Errorf("a loaded learning: %+v", d)
	}
}
