package history

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// geminiHits counts the messages a global search of text finds.
func geminiHits(t *testing.T, a *Archive, text string) int {
	t.Helper()
	q := NewQuery(text)
	q.Global, q.Now, q.LockTimeout = true, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), time.Second
	res, err := a.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

// stores returns every store of an archive, by file name.
func stores(t *testing.T, a *Archive) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths, _ := filepath.Glob(filepath.Join(a.storesDir(), "*.jsonl"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

func appendTo(t *testing.T, path, lines string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
}

// TestImportGeminiChanges: a Gemini CLI session read again after each change keeps the
// messages that did not change and stores again those that did: after every step the
// archive holds what an import of the file as it now is into an empty archive holds, byte
// for byte, a replaced message is found by its new words and not its old ones, and nothing
// is found twice.
func TestImportGeminiChanges(t *testing.T) {
	path, g := geminiSession(t, 200)
	a := newArchive(t)
	o := ImportOptions{Files: []string{path}, LockTimeout: time.Second}
	rep := mustImport(t, a, o)
	if rep.New != 1 || rep.Messages != g.Messages {
		t.Fatalf("first import: %+v, want %d messages", rep, g.Messages)
	}
	g1 := `{"id":"g-x1","timestamp":"2026-08-22T09:00:00.000Z","type":"gemini","content":"Checking quokkaold first.","model":"gemini-3-pro","toolCalls":[{"id":"c-x1","name":"run_shell_command","args":{"command":"ls quokkadir"},"status":"executing"}]}` + "\n"
	g1done := `{"id":"g-x1","timestamp":"2026-08-22T09:00:00.000Z","type":"gemini","content":"Checking quokkanew instead.","model":"gemini-3-pro","toolCalls":[{"id":"c-x1","name":"run_shell_command","args":{"command":"ls quokkadir"},"result":[{"functionResponse":{"id":"c-x1","name":"run_shell_command","response":{"output":"quokkaresult.txt\nExit Code: 0"}}}],"status":"success"}]}` + "\n"
	steps := []struct {
		name     string
		lines    string
		replaced int
		rewrite  bool
		found    []string
		gone     []string
	}{
		{"a turn appended", string(g.Turn()), 0, false, nil, nil},
		{"a message with its call executing", `{"id":"u-x1","timestamp":"2026-08-22T08:59:00.000Z","type":"user","content":[{"text":"look at quokkadir"}]}` + "\n" + g1,
			0, false, []string{"quokkaold", "quokkadir"}, nil},
		{"the same message written again with its result", g1done + `{"$set":{"lastUpdated":"2026-08-22T09:00:05.000Z"}}` + "\n",
			1, true, []string{"quokkanew", "quokkaresult"}, []string{"quokkaold"}},
		{"an earlier message written again", `{"id":"u-3","timestamp":"2026-08-21T10:10:00.000Z","type":"user","content":[{"text":"wallabyedit of the third prompt"}]}` + "\n",
			1, true, []string{"wallabyedit"}, nil},
		{"a rewind past the last two", `{"$rewindTo":"g-x1"}` + "\n", 3, true, []string{"wallabyedit"}, []string{"quokkanew", "quokkaresult"}},
	}
	for _, st := range steps {
		appendTo(t, path, st.lines)
		rep := mustImport(t, a, o)
		if rep.Read != 1 || rep.Replaced != st.replaced || (rep.Rewritten == 1) != st.rewrite || rep.Reindexed != 0 {
			t.Errorf("%s: %+v", st.name, rep)
		}
		fresh := newArchive(t)
		frep := mustImport(t, fresh, o)
		if rep.TotalMessages != frep.TotalMessages {
			t.Errorf("%s: %d messages in the archive, %d in a fresh import", st.name, rep.TotalMessages, frep.TotalMessages)
		}
		got, want := stores(t, a), stores(t, fresh)
		if len(got) != 1 || got[firstKey(want)] != want[firstKey(want)] {
			t.Errorf("%s: the store differs from a fresh import's", st.name)
		}
		for _, w := range st.found {
			if n, fn := geminiHits(t, a, w), geminiHits(t, fresh, w); n != fn || n == 0 {
				t.Errorf("%s: %q: %d hits, a fresh import %d", st.name, w, n, fn)
			}
		}
		for _, w := range st.gone {
			if n := geminiHits(t, a, w); n != 0 {
				t.Errorf("%s: %q, replaced, is still found (%d)", st.name, w, n)
			}
		}
		for _, w := range []string{"pnpm", "Exit"} { // in most messages: no document twice or left behind
			if n, fn := geminiHits(t, a, w), geminiHits(t, fresh, w); n != fn {
				t.Errorf("%s: %q: %d hits, a fresh import %d", st.name, w, n, fn)
			}
		}
	}
	if n := geminiHits(t, a, `"third prompt"`); n != 1 {
		t.Errorf("the earlier message written again: %d hits, want 1", n)
	}
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// TestImportGeminiUnreadable: a session that no longer reads as one (overwritten with
// something else, a single-JSON file caught half written) is reported with the line, and the
// archive keeps what it held; once the file reads again, it is imported.
func TestImportGeminiUnreadable(t *testing.T) {
	path, g := geminiSession(t, 60)
	a := newArchive(t)
	o := ImportOptions{Files: []string{path}, LockTimeout: time.Second}
	mustImport(t, a, o)
	before := stores(t, a)
	state, _ := os.ReadFile(a.statePath())
	good, _ := os.ReadFile(path)
	for _, tt := range []struct{ name, content, reason string }{
		{"not JSON", "this is not a session\n{broken\n", "no usable line (malformed json ×2), first at line 1"},
		{"binary", "\x00\x01\x02\n", "first at line 1"},
	} {
		write(t, path, []byte(tt.content))
		rep := mustImport(t, a, o)
		if len(rep.SkippedFiles) != 1 || rep.SkippedFiles[0].Path != path || !strings.Contains(rep.SkippedFiles[0].Reason, tt.reason) ||
			!strings.Contains(rep.SkippedFiles[0].Reason, "keeps the") || rep.Messages != 0 || rep.Replaced != 0 {
			t.Errorf("%s: %+v", tt.name, rep)
		}
		if got := stores(t, a); got[firstKey(got)] != before[firstKey(before)] {
			t.Errorf("%s: the store changed", tt.name)
		}
		if now, _ := os.ReadFile(a.statePath()); !bytes.Equal(now, state) {
			t.Errorf("%s: state.json changed", tt.name)
		}
		if geminiHits(t, a, "pnpm") == 0 {
			t.Errorf("%s: the session is no longer found", tt.name)
		}
	}
	write(t, path, append(good, g.Turn()...))
	if rep := mustImport(t, a, o); rep.Read != 1 || rep.Replaced != 0 || rep.Messages == 0 || len(rep.SkippedFiles) != 0 {
		t.Errorf("readable again: %+v", rep)
	}

	// Gemini before v0.39: one JSON file, rewritten whole as the session goes on
	dir := filepath.Dir(path)
	old := filepath.Join(dir, "session-2026-03-02T09-00-0a1b2c3d.json")
	doc := fixture(t, "transcripts/gemini-session.json")
	write(t, old, doc)
	o.Files = []string{old}
	first := mustImport(t, a, o)
	kept := stores(t, a)
	write(t, old, doc[:len(doc)/2]) // caught while it is rewritten
	rep := mustImport(t, a, o)
	if len(rep.SkippedFiles) != 1 || !strings.Contains(rep.SkippedFiles[0].Reason, "being written") || rep.Replaced != 0 {
		t.Errorf("half written: %+v", rep)
	}
	if got := stores(t, a); len(got) != len(kept) || got["gemini-0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9.jsonl"] != kept["gemini-0a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9.jsonl"] {
		t.Errorf("half written: the store changed")
	}
	// rewritten whole with one more message: only that one is added
	var top map[string]any
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	top["messages"] = append(top["messages"].([]any), map[string]any{"id": "m-last", "timestamp": "2026-03-02T09:30:00.000Z", "type": "user", "content": "numbatprompt last"})
	more, _ := json.MarshalIndent(top, "", "  ")
	write(t, old, more)
	rep = mustImport(t, a, o)
	if rep.Messages != 1 || rep.TotalMessages != first.TotalMessages+1 || geminiHits(t, a, "numbatprompt") != 1 {
		t.Errorf("a message added at the end: %+v", rep)
	}
}

// TestImportGeminiWithoutSums: an archive written before sums were kept (or whose sums do
// not match its store) reads a changed Gemini session again whole, once; an index that is
// gone is built with what a diff keeps.
func TestImportGeminiWithoutSums(t *testing.T) {
	path, g := geminiSession(t, 60)
	a := newArchive(t)
	o := ImportOptions{Files: []string{path}, LockTimeout: time.Second}
	mustImport(t, a, o)
	sums, _ := filepath.Glob(filepath.Join(a.storesDir(), "*.sums"))
	if len(sums) != 1 {
		t.Fatalf("sums: %v", sums)
	}
	os.Remove(sums[0])
	appendTo(t, path, string(g.Turn()))
	if rep := mustImport(t, a, o); rep.Rewritten != 1 || rep.Messages != g.Messages {
		t.Errorf("without sums: %+v, want the whole session read again (%d)", rep, g.Messages)
	}
	appendTo(t, path, string(g.Turn()))
	rep := mustImport(t, a, o)
	if rep.Grown != 1 || rep.Messages >= 10 {
		t.Errorf("sums again: %+v", rep)
	}
	// a line that changes no message kept: remembered, not read again by the next import
	appendTo(t, path, `{"$set":{"lastUpdated":"2026-08-22T10:00:00.000Z"}}`+"\n")
	if rep := mustImport(t, a, o); rep.Read != 1 || rep.Messages != 0 || rep.Replaced != 0 {
		t.Errorf("a $set: %+v", rep)
	}
	if rep := mustImport(t, a, o); rep.Unchanged != 1 || rep.Read != 0 {
		t.Errorf("after a $set, nothing new: %+v", rep)
	}
	// a store cut short behind the archive's back: reported, then read again whole
	store, _ := filepath.Glob(filepath.Join(a.storesDir(), "*.jsonl"))
	os.Truncate(store[0], 10)
	appendTo(t, path, `{"$rewindTo":"u-2"}`+"\n")
	if rep := mustImport(t, a, o); len(rep.SkippedFiles) != 1 || !strings.Contains(rep.SkippedFiles[0].Reason, "read again whole") {
		t.Errorf("a damaged store: %+v", rep)
	}
	if rep := mustImport(t, a, o); rep.Rewritten != 1 || len(rep.SkippedFiles) != 0 {
		t.Errorf("after a damaged store: %+v", rep)
	}
	if got, want := stores(t, a), stores(t, func() *Archive { f := newArchive(t); mustImport(t, f, o); return f }()); got[firstKey(got)] != want[firstKey(want)] {
		t.Errorf("after a damaged store, the store differs from a fresh import's")
	}
	appendTo(t, path, string(g.Turn()))
	mustImport(t, a, o)
	os.RemoveAll(a.indexDir())
	appendTo(t, path, string(g.Turn()))
	rep = mustImport(t, a, o)
	if rep.Grown != 1 || rep.Reindexed == 0 || rep.Reindexed+rep.Messages != rep.TotalMessages {
		t.Errorf("index rebuilt: %+v", rep)
	}
	fresh := newArchive(t)
	mustImport(t, fresh, o)
	for _, w := range []string{"pnpm", "Exit"} {
		if n, fn := geminiHits(t, a, w), geminiHits(t, fresh, w); n != fn || n == 0 {
			t.Errorf("%q: %d hits, a fresh import %d", w, n, fn)
		}
	}
}
