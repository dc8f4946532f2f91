//go:build unix

package drain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/learnings"
)

// TestDrainDuplicateNamedByAnExtractor: a command: extractor (a script) names the existing
// "enabled" learning as the duplicate of what it found. What the worker does depends on
// what the proposal says and on whether the extractor also says it supersedes the old one.
func TestDrainDuplicateNamedByAnExtractor(t *testing.T) {
	const project = "github.com/acme/ledger"
	for _, tc := range []struct {
		name, title, supersedes string
		learned, merged         int
		oldStatus               learnings.Status
		oldSeen                 int
		message                 []string
		notInMessage            string
	}{
		{name: "different, not superseded", title: "Feature flag ledger_v2 disabled", learned: 1, oldStatus: learnings.StatusCurrent, oldSeen: 1,
			message: []string{"learn: Feature flag ledger_v2 disabled (from claude-code session", " not merged, kept beside the new learning: it says \"disabled\" where the existing learning says \"enabled\""}},
		{name: "different, superseded", title: "Feature flag ledger_v2 disabled", supersedes: "OLD", learned: 1, oldStatus: learnings.StatusSuperseded, oldSeen: 1,
			message: []string{"learn: Feature flag ledger_v2 disabled (from claude-code session", "~ OLD superseded"}, notInMessage: "not merged"},
		{name: "the same said again", title: "The ledger_v2 feature flag is enabled", merged: 1, oldStatus: learnings.StatusCurrent, oldSeen: 2,
			message: []string{"drain: 0 new, 1 seen again (from claude-code session", "= OLD seen again"}},
		{name: "the same, superseded all the same", title: "The ledger_v2 feature flag is enabled", supersedes: "OLD", merged: 1, oldStatus: learnings.StatusCurrent, oldSeen: 2,
			message: []string{"= OLD seen again"}, notInMessage: "~ lrn-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, "")
			old := seedLearning(t, r, project, "Feature flag ledger_v2 enabled", "The ledger_v2 flag is on for every tenant.\n")
			enqueuePrompt(t, r, project, "the feature flag ledger_v2 was switched off today")
			sup := "[]"
			if tc.supersedes != "" {
				sup = `["` + old.ID + `"]`
			}
			dir := t.TempDir()
			script := fmt.Sprintf(`#!/bin/sh
d=$(dirname "$0")
cat > "$d/stdin.json"
echo '{"learnings":[{"title":%q,"body":"","kind":"decision","duplicate_of":%q,"supersedes":%s}]}'
`, tc.title, old.ID, sup)
			path := filepath.Join(dir, "extract.sh")
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			rep := run(t, r, Command(path, llmOpts()))
			if stdin, _ := os.ReadFile(filepath.Join(dir, "stdin.json")); !strings.Contains(string(stdin), old.ID) {
				t.Fatalf("the extractor was not shown the old learning: %s", stdin)
			}
			if rep.Drained != 1 || rep.Learned != tc.learned || rep.Merged != tc.merged {
				t.Fatalf("report %+v", rep.Entries)
			}
			got, _, err := learnings.Get(r, old.ID)
			if err != nil || got.Status != tc.oldStatus || got.Seen != tc.oldSeen {
				t.Errorf("old learning: %+v %v", got, err)
			}
			if tc.learned == 1 {
				fresh, _, err := learnings.Get(r, rep.Entries[0].Learned[0])
				if err != nil || fresh.Title != tc.title || fresh.Status != learnings.StatusCurrent {
					t.Errorf("new learning: %+v %v", fresh, err)
				}
				if tc.oldStatus == learnings.StatusSuperseded && (got.SupersededBy != fresh.ID || !strings.Contains(strings.Join(fresh.Supersedes, ","), old.ID)) {
					t.Errorf("supersede links: %s superseded_by %q; %s supersedes %v", old.ID, got.SupersededBy, fresh.ID, fresh.Supersedes)
				}
			}
			if q := git(t, r.Root(), "ls-files", "queue"); q != "" {
				t.Errorf("entry not drained: %s", q)
			}
			msg := git(t, r.Root(), "log", "-1", "--format=%B")
			for _, want := range tc.message {
				if want = strings.ReplaceAll(want, "OLD", old.ID); !strings.Contains(msg, want) {
					t.Errorf("commit message does not say %q:\n%s", want, msg)
				}
			}
			if tc.notInMessage != "" && strings.Contains(msg, tc.notInMessage) {
				t.Errorf("commit message says %q:\n%s", tc.notInMessage, msg)
			}
			healthy(t, r)
		})
	}
}
