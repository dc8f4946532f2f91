package history

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/gitstore"
)

// TestImportFixtures pins what an import of the bundled transcripts keeps. The counts are
// transcript's (fixtures/transcripts/README.md) less what history leaves out: the Claude
// session's 21 messages less 3 system and 2 thinking, plus its subagent's 6; the Codex
// rollout's 14 less 2 system and 1 thinking; the legacy rollout's 12 less 1 and 1; the
// kanban session's 13 less 1 thinking; the truncated session's 4 complete messages.
func TestImportFixtures(t *testing.T) {
	h := newHosts(t)
	a := newArchive(t)
	rep := mustImport(t, a, h.options())
	if rep.Found != 7 || rep.Read != 7 || rep.New != 7 || rep.Sessions != 5 || rep.Messages != 59 ||
		rep.TotalSessions != 5 || rep.TotalMessages != 59 {
		t.Errorf("report: %+v", rep)
	}
	malformed := filepath.Join(h.claude, "-home-dev-src-webshop", malformeID+".jsonl")
	truncated := filepath.Join(h.claude, "-home-dev-src-webshop", couponsID+".jsonl")
	if want := []SkippedFile{{malformed, "no usable line (malformed json ×3)"}}; !slices.Equal(rep.SkippedFiles, want) {
		t.Errorf("skipped files %v, want %v", rep.SkippedFiles, want)
	}
	if len(rep.SkippedLines) != 1 || rep.SkippedLines["malformed json"] != 1 {
		t.Errorf("skipped lines %v, want 1 malformed (in the truncated file)", rep.SkippedLines)
	}
	if want := (LineRef{truncated, 3}); rep.FirstSkippedLine == nil || *rep.FirstSkippedLine != want || rep.SkippedLineFiles != 1 {
		t.Errorf("first skipped line %+v in %d files, want %+v in 1", rep.FirstSkippedLine, rep.SkippedLineFiles, want)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if want := "skipped 1 unusable line of the files read: malformed json ×1; the first at " + truncated + " line 3\n"; !strings.Contains(out.String(), want) {
		t.Errorf("the report does not say where:\n%s\nwant the line %q", out.String(), want)
	}
	if !slices.Equal(rep.Torn, []string{truncated}) {
		t.Errorf("torn %v, want the truncated file", rep.Torn)
	}
	st, err := a.loadState()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key      string
		messages int
		project  string
		streams  int
		prompt   string
	}{
		{"claude-code-" + webshopID, 22, "local/webshop", 2, "the checkout tests fail on CI, can you run them locally and fix it?"},
		{"claude-code-" + kanbanID, 12, "local/kanban", 1, "部署到测试环境失败了，数据库连接超时。请检查一下配置。"},
		{"claude-code-" + couponsID, 4, "local/webshop", 1, "add a coupon field to the checkout form"},
		{"codex-" + apiID, 11, "github.com/acme/api", 1, "run the migration tests"},
		{"codex-" + toolID, 10, "github.com/acme/tool", 1, "make lint pass"},
	} {
		s := st.Sessions[tt.key]
		if s == nil {
			t.Errorf("no session %s", tt.key)
			continue
		}
		if s.Messages != tt.messages || s.Project != tt.project || len(s.Streams) != tt.streams || s.Prompt != tt.prompt {
			t.Errorf("%s: %d messages in %d streams, project %s, prompt %q; want %d in %d, %s, %q",
				tt.key, s.Messages, len(s.Streams), s.Project, s.Prompt, tt.messages, tt.streams, tt.project, tt.prompt)
		}
	}
	if len(st.Sessions) != 5 {
		t.Errorf("%d sessions, want 5", len(st.Sessions))
	}
	// every stored line is the message of its seq
	for name, strm := range st.Streams {
		lines, err := a.readStore(name, strm.Messages+1)
		if err != nil || len(lines) != strm.Messages {
			t.Errorf("store %s: %d lines (%v), want %d", name, len(lines), err, strm.Messages)
		}
		for seq := range lines {
			if _, ok := lines.get(seq); !ok {
				t.Errorf("store %s: line %d is not the message of seq %d", name, seq, seq)
			}
		}
	}

	// a second import reads nothing; the files it could not use are not reported again
	rep = mustImport(t, a, h.options())
	if rep.Read != 0 || rep.Unchanged != 7 || rep.Messages != 0 || rep.Bytes != 0 || len(rep.SkippedFiles) != 0 || rep.TotalMessages != 59 {
		t.Errorf("second import: %+v", rep)
	}
}

// TestImportSamples imports the real transcripts of ../shared/samples where they are, in
// place (they are never copied into the project).
func TestImportSamples(t *testing.T) {
	const samples = "../../shared/samples"
	if _, err := os.Stat(samples); err != nil {
		t.Skipf("no samples at %s", samples)
	}
	a := newArchive(t)
	rep := mustImport(t, a, ImportOptions{ClaudeDir: filepath.Join(samples, "claude"), CodexDir: filepath.Join(samples, "codex")})
	// 4c2ddfdc: 20 with its old-style agent-50243ee8 file; 9eda1058: 15; e9fb405b: 33;
	// the Codex rollout's first 60 lines: 14 (5 polled commands folded into 5 calls and 5
	// results, one of them empty, as history leaves empty results out)
	if rep.Found != 5 || rep.Read != 5 || rep.Sessions != 4 || rep.Messages != 82 || len(rep.SkippedFiles) != 0 || len(rep.Torn) != 0 {
		t.Errorf("samples: %+v", rep)
	}
	st, _ := a.loadState()
	for key, n := range map[string]int{
		"claude-code-4c2ddfdc-b619-4525-8d03-1950fb1b0257": 20, "claude-code-9eda1058-9706-484a-b992-d03f9cfa2546": 15,
		"claude-code-e9fb405b-169f-40eb-9396-7e75076f045d": 33, "codex-019e1625-789d-76c0-80ab-3724b5ddb799": 14,
	} {
		if s := st.Sessions[key]; s == nil || s.Messages != n {
			t.Errorf("%s: %+v, want %d messages", key, s, n)
		}
	}
	if s := st.Sessions["codex-019e1625-789d-76c0-80ab-3724b5ddb799"]; s != nil && s.Project != "github.com/codemie-ai/codemie-code" {
		t.Errorf("codex sample in project %s, want the one its session_meta names", s.Project)
	}
	if rep := mustImport(t, a, ImportOptions{ClaudeDir: filepath.Join(samples, "claude"), CodexDir: filepath.Join(samples, "codex")}); rep.Read != 0 || rep.Messages != 0 {
		t.Errorf("second import of the samples: %+v", rep)
	}
}

// TestImportAppended: a transcript that grew is read from where the last import stopped;
// a last line still being written is left for the next import; a tool result whose call
// an earlier import read still gets the tool's name.
func TestImportAppended(t *testing.T) {
	data := fixture(t, "transcripts/claude-session.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	// line 12 is the Bash call `npm test -- checkout`, line 13 its failed result
	part1 := bytes.Join(lines[:12], nil)
	half := lines[12][:len(lines[12])/2]
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "projects", "-home-dev-src-webshop", webshopID+".jsonl")
	write(t, path, append(append([]byte(nil), part1...), half...))
	a := newArchive(t)
	o := ImportOptions{Files: []string{path}}
	rep := mustImport(t, a, o)
	st, _ := a.loadState()
	fst := st.Files[path]
	stream := "claude-code-" + webshopID
	first := st.Streams[stream].Messages
	// the 12 lines hold the prompt, a reply, the Task call and result, the Bash call, and the
	// Warmup pair; the rest are metadata, system lines and thinking
	if fst == nil || fst.Offset != int64(len(part1)) || len(rep.Torn) != 1 || first != 7 {
		t.Fatalf("first import: offset %v, %d messages, torn %v; want offset %d, 7 messages, torn", fst, first, rep.Torn, len(part1))
	}

	write(t, path, data) // the host finished the line and went on
	rep = mustImport(t, a, o)
	if rep.Grown != 1 || rep.Read != 1 || rep.Bytes != int64(len(data)-len(part1)) || rep.Messages != 16-first || len(rep.Torn) != 0 {
		t.Errorf("second import: %+v; want only the %d bytes after the first import's end, %d messages", rep, len(data)-len(part1), 16-first)
	}
	st, _ = a.loadState()
	if st.Files[path].Offset != int64(len(data)) || st.Streams[stream].Messages != 16 {
		t.Errorf("after the second import: offset %d, %d messages", st.Files[path].Offset, st.Streams[stream].Messages)
	}
	store, _ := a.readStore(stream, 16)
	r, ok := store.get(first)
	if !ok || r.Kind != kindResult || r.Tool != "Bash" || !r.Error {
		t.Errorf("the result read after the boundary: %+v; want the failed Bash result, joined to its call", r)
	}
	// the same as one import of the whole file
	whole := newArchive(t)
	mustImport(t, whole, o)
	got, _ := os.ReadFile(a.storePath(stream))
	want, _ := os.ReadFile(whole.storePath(stream))
	if !bytes.Equal(got, want) {
		t.Errorf("two imports stored\n%s\none stored\n%s", got, want)
	}

	// a bad line appended later is named by its line in the file, not in what this read saw
	n := len(bytes.Split(bytes.TrimSpace(data), []byte("\n")))
	write(t, path, append(append([]byte(nil), data...), "{not json\n"...))
	rep = mustImport(t, a, o)
	if f := rep.FirstSkippedLine; f == nil || *f != (LineRef{path, n + 1}) {
		t.Errorf("first skipped line of the grown file %+v, want %s line %d", f, path, n+1)
	}
}

// TestImportPolledCommand: a Codex command polled until it exited is one call and one
// result in the store, as transcript folds it; when an import stops while the command runs,
// the polls the next import reads are a result joined to that command's call (found by its
// process in the store), not a write_stdin call of their own. The rollout is in Codex's
// default persistence, which keeps no exec_command_end.
func TestImportPolledCommand(t *testing.T) {
	const id = "019e2a40-1c7d-7b10-9f3e-5a6b7c8d9e0f"
	ln := func(ts, payload string) string {
		return `{"timestamp":"2026-05-20T10:00:` + ts + `.000Z","type":"response_item","payload":` + payload + "}\n"
	}
	part1 := `{"timestamp":"2026-05-20T10:00:00.000Z","type":"session_meta","payload":{"id":"` + id + `","timestamp":"2026-05-20T10:00:00.000Z","cwd":"/w/web","originator":"codex-tui","cli_version":"0.128.0","source":"cli"}}` + "\n" +
		ln("01", `{"type":"message","role":"user","content":[{"type":"input_text","text":"build it"}]}`) +
		ln("02", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm run build\",\"yield_time_ms\":10000}","call_id":"call_b"}`) +
		ln("12", `{"type":"function_call_output","call_id":"call_b","output":"Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 42\nOriginal token count: 3\nOutput:\ncompiling\n"}`)
	part2 := ln("13", `{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":42,\"chars\":\"\",\"yield_time_ms\":30000}","call_id":"call_p"}`) +
		ln("40", `{"type":"function_call_output","call_id":"call_p","output":"Chunk ID: 2\nWall time: 27.0 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nerror TS2304: Cannot find name 'foo'.\n"}`)
	dir := t.TempDir()
	path := filepath.Join(dir, ".codex", "sessions", "2026", "05", "20", "rollout-2026-05-20T12-00-00-"+id+".jsonl")
	stream := "codex-" + id
	o := ImportOptions{Files: []string{path}}

	whole := newArchive(t)
	write(t, path, []byte(part1+part2))
	mustImport(t, whole, o)
	store, _ := whole.readStore(stream, 10)
	if len(store) != 3 {
		t.Fatalf("one import stored %d records, want the prompt, the call and one result:\n%s", len(store), bytes.Join(store, []byte("\n")))
	}
	if r, _ := store.get(2); r.Call != "call_b" || r.Tool != "exec_command" || !r.Error || r.Exit == nil || *r.Exit != 2 ||
		r.Text != "compiling\nerror TS2304: Cannot find name 'foo'.\n" {
		t.Errorf("the folded result: %+v", r)
	}

	a := newArchive(t)
	write(t, path, []byte(part1))
	mustImport(t, a, o)
	write(t, path, []byte(part1+part2))
	mustImport(t, a, o)
	store, _ = a.readStore(stream, 10)
	if len(store) != 4 {
		t.Fatalf("two imports stored %d records, want the prompt, the call and two results:\n%s", len(store), bytes.Join(store, []byte("\n")))
	}
	for _, seq := range []int{2, 3} {
		if r, _ := store.get(seq); r.Kind != kindResult || r.Call != "call_b" || r.Tool != "exec_command" || r.Proc != "42" {
			t.Errorf("record %d: %+v; want a result of call_b", seq, r)
		}
	}
	if r, _ := store.get(3); !r.Error || r.Exit == nil || *r.Exit != 2 || r.Text != "error TS2304: Cannot find name 'foo'.\n" {
		t.Errorf("the polls' result: %+v", r)
	}
}

// TestImportOneTranscript: the Stop hook's import of one Claude Code transcript also reads
// its subagents' transcripts.
func TestImportOneTranscript(t *testing.T) {
	h := newHosts(t)
	a := newArchive(t)
	main := filepath.Join(h.claude, "-home-dev-src-webshop", webshopID+".jsonl")
	rep := mustImport(t, a, ImportOptions{Files: []string{main}})
	if rep.Read != 2 || rep.Sessions != 1 || rep.Messages != 22 || rep.TotalSessions != 1 {
		t.Errorf("%+v; want the session and its subagent: 22 messages", rep)
	}
	// the folders' import then finds both read already
	if rep = mustImport(t, a, h.options()); rep.Unchanged != 2 || rep.New != 5 {
		t.Errorf("%+v; want 2 unchanged, 5 new", rep)
	}
}

// TestImportRewritten: a file cut shorter than what was read, or rewritten with other
// content, is read again whole and what was read of it before is gone.
func TestImportRewritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "projects", "-home-dev-src-kanban", kanbanID+".jsonl")
	kanban := fixture(t, "history/claude-kanban.jsonl")
	write(t, path, kanban)
	a := newArchive(t)
	o := ImportOptions{Files: []string{path}}
	mustImport(t, a, o)
	search := func(text string) int {
		q := NewQuery(text)
		q.Global, q.Now = true, now
		res, err := a.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}
	if n := search("数据库"); n != 2 {
		t.Fatalf("数据库: %d hits before the rewrite, want 2", n)
	}

	// truncated: the first 6 lines (a snapshot, the prompt, thinking, the reply, the cat
	// call and its output)
	lines := bytes.SplitAfter(kanban, []byte("\n"))
	write(t, path, bytes.Join(lines[:6], nil))
	rep := mustImport(t, a, o)
	st, _ := a.loadState()
	if rep.Rewritten != 1 || rep.Messages != 4 || st.Sessions["claude-code-"+kanbanID].Messages != 4 {
		t.Errorf("after truncation: %+v, session %+v; want it read again whole: 4 messages", rep, st.Sessions["claude-code-"+kanbanID])
	}
	if n := search("数据库"); n != 1 {
		t.Errorf("数据库: %d hits after truncation, want 1 (the prompt)", n)
	}
	if n := search("修正しました"); n != 0 {
		t.Errorf("a message cut off the file is still found")
	}

	// rewritten with another session, longer than before
	other := fixture(t, "transcripts/claude-session.jsonl")
	write(t, path, other)
	rep = mustImport(t, a, o)
	st, _ = a.loadState()
	if rep.Rewritten != 1 || rep.Messages != 16 || st.Sessions["claude-code-"+kanbanID] != nil || st.Sessions["claude-code-"+webshopID].Messages != 16 {
		t.Errorf("after the rewrite: %+v; sessions %v", rep, st.Sessions)
	}
	if _, err := os.Stat(a.storePath("claude-code-" + kanbanID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rewritten file's old store is still there: %v", err)
	}
	if n := search("数据库"); n != 0 {
		t.Errorf("数据库: %d hits after the rewrite, want 0", n)
	}
	if n := search("pnpm"); n == 0 {
		t.Errorf("the new content is not found")
	}
}

// TestImportUnusable: files that are not transcripts, or not readable, are reported with a
// reason while the others import.
func TestImportUnusable(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.jsonl")
	write(t, notes, []byte(`{"title":"shopping","items":["milk"]}`+"\n"))
	good := filepath.Join(dir, ".codex", "sessions", "rollout-2026-03-04T10-12-07-"+apiID+".jsonl")
	write(t, good, fixture(t, "transcripts/codex-rollout.jsonl"))
	empty := filepath.Join(dir, ".codex", "sessions", "rollout-2026-03-05T10-00-00-019cb7e4-0000-7000-8000-000000000000.jsonl")
	write(t, empty, nil)
	missing := filepath.Join(dir, "gone.jsonl")
	a := newArchive(t)
	o := ImportOptions{Files: []string{notes, good, empty, missing}}
	rep := mustImport(t, a, o)
	want := []SkippedFile{{missing, "cannot read it: no such file or directory"}, {notes, "not a transcript of a host reflect reads"}}
	slices.SortFunc(rep.SkippedFiles, func(x, y SkippedFile) int { return strings.Compare(x.Path, y.Path) })
	slices.SortFunc(want, func(x, y SkippedFile) int { return strings.Compare(x.Path, y.Path) })
	if !slices.Equal(rep.SkippedFiles, want) || rep.Messages != 11 || rep.TotalSessions != 1 {
		t.Errorf("report %+v; want 11 messages of the rollout and skipped %v", rep, want)
	}
	rep = mustImport(t, a, o)
	if len(rep.SkippedFiles) != 1 || rep.SkippedFiles[0].Path != missing || rep.Read != 0 {
		t.Errorf("second import: %+v; want only the missing file reported", rep)
	}
}

// TestImportSinceAndLimit: files older than Since are left alone; LimitFiles reads the most
// recently changed first and leaves the others for later.
func TestImportSinceAndLimit(t *testing.T) {
	h := newHosts(t)
	old := time.Now().Add(-90 * 24 * time.Hour)
	legacy := filepath.Join(h.codex, "2025", "08", "21", "rollout-2025-08-21T18-42-05-"+toolID+".jsonl")
	if err := os.Chtimes(legacy, old, old); err != nil {
		t.Fatal(err)
	}
	a := newArchive(t)
	o := h.options()
	o.Since = time.Now().Add(-30 * 24 * time.Hour)
	o.LimitFiles = 4
	rep := mustImport(t, a, o)
	if rep.Older != 1 || rep.Read != 4 || rep.Deferred != 2 {
		t.Errorf("first import: %+v; want 1 older, 4 read, 2 deferred", rep)
	}
	rep = mustImport(t, a, o)
	if rep.Read != 2 || rep.Deferred != 0 || rep.Unchanged != 4 || rep.Older != 1 {
		t.Errorf("second import: %+v; want the 2 deferred read", rep)
	}
	o.Since = time.Time{}
	if rep = mustImport(t, a, o); rep.Read != 1 || rep.Messages != 10 {
		t.Errorf("all history: %+v; want the old legacy rollout read", rep)
	}
}

// TestImportRedacts: no secret of a transcript reaches the stores, the state or the index.
func TestImportRedacts(t *testing.T) {
	a, _ := imported(t)
	secrets := []string{"AKIAIOSFODNN7EXAMPLE", "ghp_R8x2Lq7Vt4Nz9Kc3Wm6Yb1Hd5Jf0Gs8Pa2Ue", "R8x2Lq7Vt4Nz9Kc3Wm6Yb1Hd5Jf0Gs8Pa2Ue"}
	found := 0
	filepath.WalkDir(a.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(s))) {
				t.Errorf("%s holds %s", p, s)
			}
		}
		found++
		return nil
	})
	store, _ := os.ReadFile(a.storePath("claude-code-" + kanbanID))
	if !bytes.Contains(store, []byte("[REDACTED:aws-access-key]")) || !bytes.Contains(store, []byte("[REDACTED:github-token]")) {
		t.Errorf("the store does not name what it redacted:\n%s", store)
	}
	if found < 5 {
		t.Errorf("only %d files under %s", found, a.dir)
	}
}

// TestImportRebuildsIndex: the index is a cache of the stores; a deleted or broken one is
// rebuilt from them by the next import, without reading a transcript again.
func TestImportRebuildsIndex(t *testing.T) {
	for _, damage := range []string{"deleted", "corrupt"} {
		t.Run(damage, func(t *testing.T) {
			a, h := imported(t)
			switch damage {
			case "deleted":
				os.RemoveAll(a.indexDir())
			case "corrupt":
				os.WriteFile(filepath.Join(a.indexDir(), "index_meta.json"), []byte("{oops"), 0o644)
			}
			rep := mustImport(t, a, h.options())
			if rep.Read != 0 || rep.Reindexed != 59 {
				t.Errorf("%+v; want 59 messages indexed again from the stores and no file read", rep)
			}
			q := NewQuery("pnpm")
			q.Global, q.Now = true, now
			if res, err := a.Search(context.Background(), q); err != nil || res.Sessions != 2 {
				t.Errorf("after the rebuild: %v, %+v", err, res)
			}
		})
	}
}

// TestImportLeftovers: an import that died after writing a store but before its state
// leaves lines that the next import cuts back, so nothing is stored twice.
func TestImportLeftovers(t *testing.T) {
	a, h := imported(t)
	stream := "codex-" + apiID
	st, _ := a.loadState()
	size := st.Streams[stream].Bytes
	f, _ := os.OpenFile(a.storePath(stream), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":11,"role":"user","kind":"text","text":"half written"}` + "\n")
	f.Close()
	// the file grows: the next import appends after the recorded size, not after the leftover
	path := filepath.Join(h.codex, "2026", "03", "04", "rollout-2026-03-04T10-12-07-"+apiID+".jsonl")
	data := fixture(t, "transcripts/codex-rollout.jsonl")
	extra := `{"timestamp":"2026-03-04T09:20:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks, ship it"}]}}` + "\n"
	write(t, path, append(data, extra...))
	rep := mustImport(t, a, h.options())
	if rep.Messages != 1 {
		t.Fatalf("%+v", rep)
	}
	lines, _ := a.readStore(stream, 100)
	if len(lines) != 12 || bytes.Contains(bytes.Join(lines, nil), []byte("half written")) {
		t.Errorf("store after the leftover: %d lines\n%s", len(lines), bytes.Join(lines, []byte("\n")))
	}
	st, _ = a.loadState()
	if st.Streams[stream].Bytes <= size {
		t.Errorf("store size not recorded")
	}
}

// TestImportBusy: a second import waits for the first, then gives up with ErrBusy (which a
// command reports as a busy repository).
func TestImportBusy(t *testing.T) {
	a, h := imported(t)
	unlock, err := a.takeLock(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o := h.options()
	o.LockTimeout = 50 * time.Millisecond
	_, err = a.Import(context.Background(), o)
	if !errors.Is(err, ErrBusy) || !errors.Is(err, gitstore.ErrLocked) {
		t.Errorf("got %v, want ErrBusy", err)
	}
}

// TestManyImportsMerge: the small segments that many imports add are merged, so a search
// does not open one per import.
func TestManyImportsMerge(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "projects", "-home-dev-src-webshop", webshopID+".jsonl")
	lines := bytes.SplitAfter(fixture(t, "transcripts/claude-session.jsonl"), []byte("\n"))
	a := newArchive(t)
	for i := 1; i <= len(lines); i++ {
		write(t, path, bytes.Join(lines[:i], nil))
		mustImport(t, a, ImportOptions{Files: []string{path}})
	}
	idx, err := openIndex(a.indexDir(), false, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	n, _ := idx.DocCount()
	if n != 16 {
		t.Errorf("%d documents, want 16", n)
	}
	t.Logf("%d segments", numSegments(idx))
	if segs := numSegments(idx); segs > maxSegments {
		t.Errorf("%d segments after %d imports, want at most %d", segs, len(lines), maxSegments)
	}
}
