package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/transcript"
)

// schema is the part of opencode's tables (packages/opencode/src/session/session.sql.ts) that
// reflect reads, with some of the columns it does not.
const schema = `
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, cost REAL, permission TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
PRAGMA journal_mode=WAL;
`

// t0 is when the fixture session starts.
var t0 = time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC).UnixMilli()

// fixtureDB writes an opencode database holding one session in opencode's shapes: a prompt,
// a failed bash call (exit 1), the correction, a successful call, the answer, and a last
// assistant message still being written.
func fixtureDB(t testing.TB, dir, project string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(dir, "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO session VALUES ('ses_01J9', 'prj_1', NULL, NULL, 'quiet-otter', ?, 'Checkout tests', '1.16.2', NULL, 0.01, NULL, ?, ?, NULL, NULL)`, project, t0, t0+60000)
	msg := func(id string, at int64, data string) {
		exec(`INSERT INTO message VALUES (?, 'ses_01J9', ?, ?, ?)`, id, at, at, data)
	}
	prt := func(id, m string, at int64, data string) {
		exec(`INSERT INTO part VALUES (?, ?, 'ses_01J9', ?, ?, ?)`, id, m, at, at, data)
	}
	msg("msg_01", t0+1000, `{"role":"user","time":{"created":`+itoa(t0+1000)+`}}`)
	prt("prt_01a", "msg_01", t0+1000, `{"type":"text","text":"run the checkout tests"}`)
	prt("prt_01b", "msg_01", t0+1000, `{"type":"text","text":"<system-reminder>plan mode</system-reminder>","synthetic":true}`)
	msg("msg_02", t0+2000, `{"role":"assistant","modelID":"claude-sonnet-4-5","providerID":"anthropic","time":{"created":`+itoa(t0+2000)+`,"completed":`+itoa(t0+9000)+`}}`)
	prt("prt_02a", "msg_02", t0+2000, `{"type":"step-start"}`)
	prt("prt_02b", "msg_02", t0+2000, `{"type":"reasoning","text":"The repo uses npm scripts."}`)
	prt("prt_02c", "msg_02", t0+2000, `{"type":"tool","callID":"toolu_1","tool":"bash","state":{"status":"completed","input":{"command":"npm test -- checkout","description":"run tests"},"output":"npm ERR! workspace:* needs pnpm\nAPI_KEY=sk-live-1234567890abcdefghijklmnop","metadata":{"exit":1,"description":"run tests"},"title":"npm test","time":{"start":1,"end":2}}}`)
	prt("prt_02d", "msg_02", t0+2000, `{"type":"step-finish","tokens":{"input":10,"output":5}}`)
	msg("msg_03", t0+10000, `{"role":"user","time":{"created":`+itoa(t0+10000)+`}}`)
	prt("prt_03a", "msg_03", t0+10000, `{"type":"text","text":"no, use pnpm instead of npm"}`)
	msg("msg_04", t0+11000, `{"role":"assistant","modelID":"claude-sonnet-4-5","time":{"created":`+itoa(t0+11000)+`,"completed":`+itoa(t0+20000)+`}}`)
	prt("prt_04a", "msg_04", t0+11000, `{"type":"tool","callID":"toolu_2","tool":"bash","state":{"status":"completed","input":{"command":"pnpm --filter @webshop/cart test"},"output":"42 passed","metadata":{"exit":0}}}`)
	prt("prt_04b", "msg_04", t0+11000, `{"type":"tool","callID":"toolu_3","tool":"read","state":{"status":"error","input":{"filePath":"/x/missing.json"},"error":"File not found: /x/missing.json"}}`)
	prt("prt_04c", "msg_04", t0+11000, `{"type":"text","text":"All 42 cart tests pass with pnpm."}`)
	msg("msg_05", t0+30000, `{"role":"assistant","modelID":"claude-sonnet-4-5","time":{"created":`+itoa(t0+30000)+`}}`)
	prt("prt_05a", "msg_05", t0+30000, `{"type":"text","text":"Still thinking"}`)
	return path, db
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestExportAndRead: a session of the database, mirrored and read, is the conversation, with
// its failure, redacted, and without the message still being written.
func TestExportAndRead(t *testing.T) {
	dir := t.TempDir()
	path, db := fixtureDB(t, dir, "/home/dev/src/webshop")
	ctx := context.Background()
	list, err := List(ctx, path, time.UnixMilli(t0))
	if err != nil || len(list) != 1 || list[0].ID != "ses_01J9" || list[0].Directory != "/home/dev/src/webshop" {
		t.Fatalf("List: %+v, %v", list, err)
	}
	mirror := filepath.Join(dir, "mirror", "ses_01J9.jsonl")
	got, err := MirrorSession(ctx, path, filepath.Join(dir, "storage"), filepath.Join(dir, "mirror"), "ses_01J9")
	if err != nil || got != mirror {
		t.Fatalf("MirrorSession: %s, %v", got, err)
	}
	data, _ := os.ReadFile(mirror)
	if strings.Contains(string(data), "sk-live-1234567890") || strings.Contains(string(data), "Still thinking") {
		t.Fatalf("the mirror holds a secret or an unfinished message:\n%s", data)
	}
	s, err := transcript.ReadFile(mirror)
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != transcript.HarnessOpencode || s.ID != "ses_01J9" || s.CWD != "/home/dev/src/webshop" || s.Skipped != 0 {
		t.Fatalf("session: %s %s %s skipped %d", s.Harness, s.ID, s.CWD, s.Skipped)
	}
	var kinds []string
	for _, m := range s.Messages {
		k := string(m.Role) + "/" + string(m.Kind)
		if m.IsError {
			k += "!"
		}
		kinds = append(kinds, k)
	}
	want := "user/text system/text assistant/thinking assistant/tool_call tool/tool_result! user/text assistant/tool_call tool/tool_result assistant/tool_call tool/tool_result! assistant/text"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("messages:\n got %s\nwant %s", strings.Join(kinds, " "), want)
	}
	if s.Messages[3].ToolInput != "npm test -- checkout" || *s.Messages[4].ExitCode != 1 {
		t.Fatalf("the failed call: %+v %+v", s.Messages[3], s.Messages[4])
	}

	// the last message finishes and a prompt follows: the mirror grows, what it held is kept
	before := len(data)
	if _, err := db.Exec(`UPDATE message SET data = ? WHERE id = 'msg_05'`, `{"role":"assistant","time":{"created":1,"completed":2}}`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO message VALUES ('msg_06', 'ses_01J9', ?, ?, '{"role":"user"}')`, t0+40000, t0+40000); err != nil {
		t.Fatal(err)
	}
	db.Exec(`INSERT INTO part VALUES ('prt_06a', 'msg_06', 'ses_01J9', 1, 1, '{"type":"text","text":"thanks"}')`)
	if _, err := MirrorSession(ctx, path, "", filepath.Join(dir, "mirror"), "ses_01J9"); err != nil {
		t.Fatal(err)
	}
	grown, _ := os.ReadFile(mirror)
	if len(grown) <= before || string(grown[:before]) != string(data) {
		t.Fatal("the mirror was not appended to")
	}
	s, _ = transcript.ReadFileFrom(mirror, int64(before), transcript.HarnessOpencode)
	if len(s.Messages) != 2 || s.Messages[0].Text != "Still thinking" || s.Messages[1].Text != "thanks" {
		t.Fatalf("read from the old end: %+v", s.Messages)
	}
	// a session that is not there, and an id that could name a path
	for _, id := range []string{"ses_nope", "../../etc/passwd", ""} {
		if _, err := MirrorSession(ctx, path, "", filepath.Join(dir, "mirror"), id); err == nil {
			t.Errorf("%q: no error", id)
		}
	}
}

// TestStorage: the JSON files of opencode before its database give the same mirror lines.
func TestStorage(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "storage")
	write := func(rel, data string) {
		p := filepath.Join(st, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	write("session/4f2a9c1e/ses_OLD.json", `{"id":"ses_OLD","projectID":"4f2a9c1e","directory":"/home/dev/src/tool","title":"lint","version":"0.9.1","time":{"created":`+itoa(t0)+`,"updated":`+itoa(t0+5000)+`}}`)
	write("message/ses_OLD/msg_a.json", `{"id":"msg_a","sessionID":"ses_OLD","role":"user","time":{"created":`+itoa(t0+1)+`}}`)
	write("part/msg_a/prt_a1.json", `{"id":"prt_a1","messageID":"msg_a","sessionID":"ses_OLD","type":"text","text":"why does make lint fail?"}`)
	write("message/ses_OLD/msg_b.json", `{"id":"msg_b","sessionID":"ses_OLD","role":"assistant","time":{"created":`+itoa(t0+2)+`,"completed":`+itoa(t0+3)+`}}`)
	write("part/msg_b/prt_b1.json", `{"id":"prt_b1","type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"make lint"},"output":"errcheck","metadata":{"exit":2}}}`)
	write("part/msg_b/prt_b2.json", `{"id":"prt_b2","type":"text","text":"It is errcheck."}`)
	n, err := MirrorAll(context.Background(), filepath.Join(dir, "none.db"), st, filepath.Join(dir, "mirror"), time.UnixMilli(t0))
	if err != nil || n != 1 {
		t.Fatalf("MirrorAll: %d, %v", n, err)
	}
	s, err := transcript.ReadFile(filepath.Join(dir, "mirror", "ses_OLD.jsonl"))
	if err != nil || s.CWD != "/home/dev/src/tool" || len(s.Messages) != 4 || !s.Messages[2].IsError {
		t.Fatalf("%+v %v", s, err)
	}
	if n, _ := MirrorAll(context.Background(), filepath.Join(dir, "none.db"), st, filepath.Join(dir, "mirror"), time.UnixMilli(t0)); n != 0 {
		t.Fatalf("a second MirrorAll changed %d mirrors", n)
	}
}
