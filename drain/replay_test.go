package drain

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
)

// replayAnswers are recorded answers of a model for one session of the extraction suite
// (fixtures/extraction/replay/<session>.json), each the model's raw text:
//   - Good: what a careful model answers: the session's labelled lessons, grounded in its digest
//     ({"learnings": []} for a session without a lesson);
//   - Invented: the good learnings mixed with lessons the session never showed (a command or
//     flag nobody ran, a file nobody opened, a version), whose titles are InventedTitles;
//   - Restate: learnings that restate the task or narrate what the session did.
type replayAnswers struct {
	Good           string   `json:"good"`
	Invented       string   `json:"invented"`
	InventedTitles []string `json:"invented_titles"`
	Restate        string   `json:"restate"`
}

// replayTally counts, for one session or in total, what the grounding check did with the
// recorded answers.
type replayTally struct {
	good, goodKept         int // proposals of the good answers, and those kept
	mixedGood, mixedKept   int // the good proposals of the invented answers, and those kept
	invented, inventedDrop int // the invented proposals, and those dropped
	restate, restateKept   int // the restating proposals, and those kept
}

func (a *replayTally) add(b replayTally) {
	a.good += b.good
	a.goodKept += b.goodKept
	a.mixedGood += b.mixedGood
	a.mixedKept += b.mixedKept
	a.invented += b.invented
	a.inventedDrop += b.inventedDrop
	a.restate += b.restate
	a.restateKept += b.restateKept
}

func (a replayTally) row() string {
	return fmt.Sprintf("good kept %2d/%-2d  in mixed %2d/%-2d  invented dropped %2d/%-2d  restate kept %d/%d",
		a.goodKept, a.good, a.mixedKept, a.mixedGood, a.inventedDrop, a.invented, a.restateKept, a.restate)
}

// TestReplay runs recorded model answers for every session of the extraction suite through
// what the worker does with an LLM's answer: ParseAnswer, then the grounding check
// (dropUngrounded) against the session's digest, built as TestExtractionSuite builds it. It
// prints what was kept and dropped per session and in total:
//
//	go test ./drain -run Replay -v
//
// It fails when a good proposal (a labelled lesson the digest shows) is dropped, and when the
// recorded data does not fit the labels (the good proposals of an answer are not the session's
// lessons, one each, by the suite's matching rule). Invented proposals the check keeps and
// restating ones it keeps are reported, not failed: it promises neither.
func TestReplay(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "extraction")
	sessions, err := fixtures.LoadExtraction(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries := replayDigests(t, dir, sessions)

	files, err := filepath.Glob(filepath.Join(dir, "replay", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range sessions {
		names[s.Name] = true
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".json"); !names[name] {
			t.Errorf("%s: no session of the suite is named %s", f, name)
		}
	}

	var total replayTally
	var rows, misses, near []string
	for _, s := range sessions {
		a, err := loadReplay(filepath.Join(dir, "replay", s.Name+".json"))
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		e := entries[s.Name]
		digest := digestText(e)
		var tl replayTally
		fail := func(format string, args ...any) { t.Errorf(s.Name+": "+format, args...) }

		// good: the labelled lessons, every one kept
		good := parseReplay(t, s.Name, "good", a.Good)
		if m, _ := matchLabels(s.Lessons, good); m != len(s.Lessons) || len(good) != len(s.Lessons) {
			fail("the good answer has %d proposals matching %d of the %d labels: want the labels, one each", len(good), m, len(s.Lessons))
		}
		kept := keptTitles(good, e)
		tl.good, tl.goodKept = len(good), len(kept)
		for _, p := range good {
			if !kept[p.Title] {
				fail("good proposal dropped: %q (%s)", p.Title, termReport(p, digest))
				misses = append(misses, fmt.Sprintf("%s good dropped: %q (%s)", s.Name, p.Title, termReport(p, digest)))
			} else if _, missing := grounded(p, digest); len(missing) > 0 {
				near = append(near, fmt.Sprintf("%s: %q (%s)", s.Name, p.Title, termReport(p, digest)))
			}
		}

		// invented: the good ones kept, the invented ones counted
		mixed := parseReplay(t, s.Name, "invented", a.Invented)
		var mixedGood, invented []Proposal
		for _, p := range mixed {
			if slices.Contains(a.InventedTitles, p.Title) {
				invented = append(invented, p)
			} else {
				mixedGood = append(mixedGood, p)
			}
		}
		if len(invented) != len(a.InventedTitles) || len(invented) == 0 {
			fail("the invented answer holds %d of the %d invented_titles", len(invented), len(a.InventedTitles))
		}
		if m, _ := matchLabels(s.Lessons, mixedGood); m != len(s.Lessons) || len(mixedGood) != len(s.Lessons) {
			fail("the invented answer's good proposals (%d) match %d of the %d labels", len(mixedGood), m, len(s.Lessons))
		}
		kept = keptTitles(mixed, e)
		tl.mixedGood, tl.invented = len(mixedGood), len(invented)
		for _, p := range mixedGood {
			if kept[p.Title] {
				tl.mixedKept++
			} else {
				fail("good proposal dropped beside invented ones: %q (%s)", p.Title, termReport(p, digest))
				misses = append(misses, fmt.Sprintf("%s good dropped in mixed: %q (%s)", s.Name, p.Title, termReport(p, digest)))
			}
		}
		for _, p := range invented {
			if !kept[p.Title] {
				tl.inventedDrop++
			} else {
				misses = append(misses, fmt.Sprintf("%s invented kept: %q (%s)", s.Name, p.Title, termReport(p, digest)))
			}
		}

		// restate: reported, not failed
		restate := parseReplay(t, s.Name, "restate", a.Restate)
		tl.restate, tl.restateKept = len(restate), len(keptTitles(restate, e))

		total.add(tl)
		rows = append(rows, fmt.Sprintf("%-38s labels %d  %s", s.Name, len(s.Lessons), tl.row()))
	}
	t.Logf("replayed answers, grounding check (%d sessions):\n%s\n%-38s %9s %s\n\nwhat the check got wrong or let through:\n%s\n\ngood proposals kept with terms the digest lacks:\n%s",
		len(sessions), strings.Join(rows, "\n"), "total", "", total.row(), strings.Join(misses, "\n"), strings.Join(near, "\n"))
	t.Logf("good kept %.2f (%d/%d); good beside invented kept %.2f (%d/%d); invented dropped %.2f (%d/%d); restating kept %d of %d",
		ratio(total.goodKept, total.good), total.goodKept, total.good,
		ratio(total.mixedKept, total.mixedGood), total.mixedKept, total.mixedGood,
		ratio(total.inventedDrop, total.invented), total.inventedDrop, total.invented,
		total.restateKept, total.restate)
}

// replayDigests enqueues every session's transcript into a temporary memory as
// TestExtractionSuite does and returns the entries by session name (nil for an empty digest).
func replayDigests(t *testing.T, dir string, sessions []fixtures.ExtSession) map[string]*queue.Entry {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	capture := queue.Capture{Trigger: queue.TriggerSessionEnd, Machine: "test",
		Now: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), DigestBytes: config.Default().Queue.DigestMaxBytes}
	out := map[string]*queue.Entry{}
	for _, s := range sessions {
		c := capture
		c.Harness, c.Session, c.Project = "claude-code", s.Name, "local/"+s.Name
		if s.Host == "codex" {
			c.Harness = "codex"
		}
		c.TranscriptPath = filepath.Join(dir, s.Name+".jsonl")
		res, err := queue.Enqueue(ctx, r, c)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		out[s.Name] = res.Entry
	}
	return out
}

func loadReplay(path string) (replayAnswers, error) {
	var a replayAnswers
	data, err := os.ReadFile(path)
	if err != nil {
		return a, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// parseReplay reads a recorded answer as the worker does; every recorded answer must parse.
func parseReplay(t *testing.T, name, kind, text string) []Proposal {
	t.Helper()
	ps, err := ParseAnswer(text)
	if err != nil {
		t.Errorf("%s: the %s answer: %v", name, kind, err)
	}
	return ps
}

// keptTitles applies the worker's filter for an LLM's proposals and returns the titles it kept.
func keptTitles(ps []Proposal, e *queue.Entry) map[string]bool {
	var res EntryResult
	kept := map[string]bool{}
	for _, p := range dropUngrounded(slices.Clone(ps), e, &res) {
		kept[p.Title] = true
	}
	return kept
}

// termReport lists a proposal's precise terms as the check sees them: found in the digest or not.
func termReport(p Proposal, digest string) string {
	_, missing := grounded(p, digest)
	var found []string
	for _, term := range keyTerms(p) {
		if !slices.Contains(missing, term) {
			found = append(found, term)
		}
	}
	return fmt.Sprintf("found [%s] missing [%s]", strings.Join(found, ", "), strings.Join(missing, ", "))
}
