package drain

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/reflect-memory/reflect/config"
	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
)

var suiteShow = flag.Bool("suite.show", false, "TestExtractionSuite: print each session's digest and proposals")

// The targets of the extraction suite (fixtures/extraction/README.md).
const (
	suitePrecision = 0.9
	suiteRecall    = 0.5
	suiteSilent    = 1.0
)

// TestExtractionSuite runs every session of the extraction suite through the path a capture
// and a drain take (the transcript file, queue.Enqueue with the default digest budget, the
// heuristic extractor) and scores the proposals against the labelled lessons:
//
//	go test ./drain -run TestExtractionSuite -v
func TestExtractionSuite(t *testing.T) {
	sc, report := scoreSuite(t, filepath.Join("..", "fixtures", "extraction"))
	t.Logf("extraction suite, heuristic extractor:\n%s", report)
	if sc.precision() < suitePrecision || sc.recall() < suiteRecall || sc.silent() < suiteSilent {
		t.Errorf("below the targets (precision ≥ %.2f, recall ≥ %.2f, silent %.0f%%): %s", suitePrecision, suiteRecall, suiteSilent*100, sc)
	}
}

// TestExtractionHeldOut scores the heuristic on sessions labelled blind — by someone who read
// neither the extractor nor the tuned suite, and never measured before the labels were
// committed (fixtures/extraction/heldout/README.md): what it does on sessions nobody tuned
// it for. The figures are reported; the floor it must keep is lower than the suite's targets
// on purpose, and no rule may be tuned to these sessions.
//
//	go test ./drain -run TestExtractionHeldOut -v
func TestExtractionHeldOut(t *testing.T) {
	sc, report := scoreSuite(t, filepath.Join("..", "fixtures", "extraction", "heldout"))
	t.Logf("held-out sessions, heuristic extractor:\n%s", report)
	if sc.precision() < heldOutPrecision || sc.silent() < heldOutSilent {
		t.Errorf("below the held-out floor (precision ≥ %.2f, silent ≥ %.0f%%): %s", heldOutPrecision, heldOutSilent*100, sc)
	}
}

// The floor on the held-out sessions: junk is worse than nothing, so precision and silence
// are held; recall is reported.
const (
	heldOutPrecision = 0.8
	heldOutSilent    = 0.9
)

// scoreSuite runs every session of dir through the path a capture and a drain take (the
// transcript file, queue.Enqueue with the default digest budget, the heuristic extractor) and
// scores the proposals against the labelled lessons.
func scoreSuite(t *testing.T, dir string) (suiteScore, string) {
	t.Helper()
	sessions, err := fixtures.LoadExtraction(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	ctx := context.Background()
	r, _, err := gitstore.Init(ctx, filepath.Join(t.TempDir(), "mem"), gitstore.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	budget := config.Default().Queue.DigestMaxBytes
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

	var sc suiteScore
	var rows []string
	for _, s := range sessions {
		harness := "claude-code"
		if s.Host == "codex" {
			harness = "codex"
		}
		res, err := queue.Enqueue(ctx, r, queue.Capture{Harness: harness, Session: s.Name,
			TranscriptPath: filepath.Join(dir, s.Name+".jsonl"), Trigger: queue.TriggerSessionEnd,
			Project: "local/" + s.Name, Machine: "test", Now: now, DigestBytes: budget})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		var ps []Proposal
		if res.Entry != nil { // an empty digest is not committed: nothing to drain
			ps = extractHeuristic(t, res.Entry)
		}
		matched, verdicts := matchLabels(s.Lessons, ps)
		sc.add(len(s.Lessons), len(ps), matched)
		rows = append(rows, fmt.Sprintf("%-40s %-6s labels %d  proposals %d  matched %d", s.Name, s.Host, len(s.Lessons), len(ps), matched))
		if *suiteShow || testing.Verbose() {
			for _, v := range verdicts {
				rows = append(rows, "    "+v)
			}
		}
		if *suiteShow && res.Entry != nil {
			for _, n := range res.Entry.Digest.Notes {
				rows = append(rows, fmt.Sprintf("      | %-10s %s %q %q", n.Kind, n.Tool, clipRunes(n.Input, 80), clipRunes(n.Text, 120)))
			}
		}
	}
	return sc, fmt.Sprintf("%d sessions\n%s\n%s", len(sessions), strings.Join(rows, "\n"), sc)
}

type suiteScore struct {
	proposals, matchedProps, labels, matchedLabels int
	quiet, silentOK                                int
}

func (s *suiteScore) add(labels, proposals, matched int) {
	s.labels += labels
	s.proposals += proposals
	s.matchedLabels += matched
	s.matchedProps += matched // a label matches at most one proposal and a proposal one label
	if labels == 0 {
		s.quiet++
		if proposals == 0 {
			s.silentOK++
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s suiteScore) precision() float64 { return ratio(s.matchedProps, s.proposals) }
func (s suiteScore) recall() float64    { return ratio(s.matchedLabels, s.labels) }
func (s suiteScore) silent() float64    { return ratio(s.silentOK, s.quiet) }

func (s suiteScore) String() string {
	return fmt.Sprintf("precision %.2f (%d/%d)  recall %.2f (%d/%d)  silent %.0f%% (%d/%d)",
		s.precision(), s.matchedProps, s.proposals, s.recall(), s.matchedLabels, s.labels, s.silent()*100, s.silentOK, s.quiet)
}

// matchLabels pairs proposals with labels by the suite's rule (fixtures/extraction/README.md):
// every term in the title, body or triggers, one of them in the title, whole words, each
// label at most once, in the order of the proposals.
func matchLabels(lessons []fixtures.ExtLesson, ps []Proposal) (int, []string) {
	used := make([]bool, len(lessons))
	matched := 0
	var verdicts []string
	for _, p := range ps {
		all := p.Title + "\n" + p.Body + "\n" + strings.Join(p.Triggers, "\n")
		hit := -1
		for i, l := range lessons {
			if !used[i] && labelMatches(l, p.Title, all) {
				hit = i
				break
			}
		}
		if hit >= 0 {
			used[hit] = true
			matched++
			verdicts = append(verdicts, fmt.Sprintf("+ %s: %q (triggers %q)", p.Kind, p.Title, p.Triggers))
		} else {
			verdicts = append(verdicts, fmt.Sprintf("- %s: %q (triggers %q)", p.Kind, p.Title, p.Triggers))
		}
	}
	for i, l := range lessons {
		if !used[i] {
			verdicts = append(verdicts, fmt.Sprintf("? missed: %s (needs %v)", l.Lesson, l.Needs))
		}
	}
	return matched, verdicts
}

func labelMatches(l fixtures.ExtLesson, title, all string) bool {
	inTitle := false
	for _, item := range l.Terms {
		found := false
		for _, alt := range strings.Split(item, "|") {
			if containsTerm(all, alt) {
				found = true
				inTitle = inTitle || containsTerm(title, alt)
			}
		}
		if !found {
			return false
		}
	}
	return inTitle
}

// containsTerm: term occurs in s, case-insensitively, not inside a longer word (its plural
// counts: "sidecars" holds "sidecar").
func containsTerm(s, term string) bool {
	term = strings.TrimSpace(term)
	if term == "" {
		return false
	}
	pat := regexp.QuoteMeta(term)
	r := []rune(term)
	if isWordRune(r[0]) {
		pat = `(?:^|[^\p{L}\p{N}_])` + pat
	}
	if isWordRune(r[len(r)-1]) {
		pat += `(?:e?s)?(?:$|[^\p{L}\p{N}_])` // a plural is the same word
	}
	return regexp.MustCompile(`(?i)` + pat).MatchString(s)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func TestContainsTerm(t *testing.T) {
	for _, c := range []struct {
		s, term string
		want    bool
	}{
		{"use `rg` here", "rg", true},
		{"git merge main", "rg", false},
		{"run make test-db first", "make test-db", true},
		{"run make test-dbx first", "make test-db", false},
		{"cargo test --features tls", "--features tls", true},
		{"use .venv/bin/pip", ".venv", true},
		{"EU-WEST-1 bucket", "eu-west-1", true},
		{"native sidecars don't work", "sidecar", true},
		{"the sidecarless mode", "sidecar", false},
	} {
		if got := containsTerm(c.s, c.term); got != c.want {
			t.Errorf("containsTerm(%q, %q) = %v", c.s, c.term, got)
		}
	}
}
