package history

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestSearchGolden pins what searches of the fixtures print, as text and as JSON: the
// evidence windows, their order, the budgets, the modes and the scopes.
func TestSearchGolden(t *testing.T) {
	a, _ := imported(t)
	for _, tt := range []struct {
		name    string
		query   string
		project string // "" : --global
		adjust  func(*Query)
	}{
		// a Codex exec_command: its name, its command and its output
		{name: "codex-tool-call", query: "test:migrations", project: "github.com/acme/api"},
		// Chinese, found by substring: not in the reply that holds 数据 and 据库 apart
		{name: "cjk-chinese", query: "数据库", project: "local/kanban"},
		// Japanese, in the middle of a long tool output: cut around where it matched
		{name: "cjk-japanese", query: "タイムアウト", project: "local/kanban"},
		// one character
		{name: "cjk-one-char", query: "库", project: "local/kanban"},
		{name: "no-match", query: "kubernetes", project: "local/webshop"},
		// all terms first; none has both, so any term
		{name: "or-fallback", query: "pnpm kubernetes", project: "local/webshop"},
		{name: "all-terms", query: "pnpm kubernetes", project: "local/webshop", adjust: func(q *Query) { q.AllTerms = true }},
		{name: "alternatives", query: "EUNSUPPORTEDPROTOCOL|nolint"},
		// the same needle in this project and in every project
		{name: "scope-project", query: "frozen-lockfile", project: "local/webshop"},
		{name: "scope-global", query: "frozen-lockfile"},
		// a phrase, found as written
		{name: "phrase", query: `"Exit code 1"`},
		// budgets: messages cut in the middle, the total reached
		{name: "budget", query: "checkout", project: "local/webshop", adjust: func(q *Query) {
			q.MessageChars, q.ToolMessageChars, q.BudgetChars = 90, 60, 900
		}},
		{name: "search-recent", query: "pnpm", adjust: func(q *Query) { q.Recent, q.Limit, q.WindowsPerSession, q.Before, q.After = true, 2, 1, 1, 1 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := NewQuery(tt.query)
			q.Now = now
			q.Project, q.Global = tt.project, tt.project == ""
			if tt.adjust != nil {
				tt.adjust(&q)
			}
			res, err := a.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			res.WriteText(&text)
			golden(t, tt.name+".txt", text.Bytes())
			js, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".json", append(js, '\n'))
			for _, s := range []string{"AKIAIOSFODNN7EXAMPLE", "ghp_R8x2"} {
				if strings.Contains(text.String()+string(js), s) {
					t.Errorf("the output shows the secret %s", s)
				}
			}
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./history -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./history -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestSearchSemantics checks what the golden files show, one property at a time.
func TestSearchSemantics(t *testing.T) {
	a, _ := imported(t)
	search := func(text, project string, adjust func(*Query)) *Result {
		t.Helper()
		q := NewQuery(text)
		q.Now, q.Project, q.Global = now, project, project == ""
		if adjust != nil {
			adjust(&q)
		}
		res, err := a.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	sessions := func(res *Result) []string {
		var out []string
		for _, s := range res.Results {
			out = append(out, s.Session)
		}
		return out
	}
	for _, tt := range []struct {
		name, query, project string
		mode                 string
		sessions             []string
	}{
		{"one project", "frozen-lockfile", "local/webshop", ModeAll, []string{webshopID}},
		{"every project", "frozen-lockfile", "", ModeAll, []string{webshopID, apiID}},
		{"another project", "frozen-lockfile", "github.com/acme/api", ModeAll, []string{apiID}},
		{"stemmed", "failing", "local/webshop", ModeAll, []string{webshopID}},
		{"any when not all", "pnpm kubernetes", "local/webshop", ModeAny, []string{webshopID}},
		{"alternatives", "EUNSUPPORTEDPROTOCOL|nolint", "", ModeAlternative, []string{apiID, webshopID, toolID}},
		{"no alternative falls back", "kubernetes|helm", "", ModeAlternative, nil},
		{"cjk substring", "连接超时", "local/kanban", ModeAll, []string{kanbanID}},
		{"cjk pairs apart", "据库存报告", "local/kanban", ModeAll, []string{kanbanID}},
		{"cjk pairs only apart", "数据据库", "local/kanban", ModeAll, nil},
		{"japanese", "失敗", "", ModeAll, []string{kanbanID}},
		{"a path", "packages/cart", "local/webshop", ModeAll, []string{webshopID}},
		{"a path, written apart", "cart/packages", "local/webshop", ModeAll, nil},
		{"stop words only", "the of", "", ModeAll, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := search(tt.query, tt.project, nil)
			if got := sessions(res); res.Mode != tt.mode || strings.Join(got, ",") != strings.Join(tt.sessions, ",") {
				t.Errorf("%q: mode %q, sessions %v; want %q, %v", tt.query, res.Mode, got, tt.mode, tt.sessions)
			}
		})
	}

	// budgets
	res := search("checkout", "local/webshop", func(q *Query) { q.MessageChars, q.ToolMessageChars, q.BudgetChars = 90, 60, 900 })
	total := 0
	for _, s := range res.Results {
		for _, w := range s.Windows {
			for _, m := range w.Messages {
				total += utf8.RuneCountInString(stripMarkers(m.Text)) + utf8.RuneCountInString(stripMarkers(m.Input))
				limit := 90
				if m.Role == roleTool {
					limit = 60
				}
				if n := utf8.RuneCountInString(stripMarkers(m.Text)); n > limit {
					t.Errorf("message %d: %d characters, over %d", m.Seq, n, limit)
				}
			}
		}
	}
	if !res.BudgetReached || total > 900 {
		t.Errorf("budget: %d characters shown, reached %v", total, res.BudgetReached)
	}

	// windows per session, before and after
	res = search("npm", "local/webshop", func(q *Query) { q.WindowsPerSession, q.Before, q.After = 1, 0, 0 })
	if w := res.Results[0].Windows; len(w) != 1 || w[0].To-w[0].From > 1 {
		t.Errorf("one window of the hit alone (and its call): %+v", w)
	}

	// a hit in a long message is cut around the match
	res = search("ETIMEDOUT", "local/kanban", func(q *Query) { q.ToolMessageChars = 200 })
	shown := false
	for _, w := range res.Results[0].Windows {
		for _, m := range w.Messages {
			if m.Hit && strings.Contains(m.Text, "ETIMEDOUT") && m.Cut > 0 {
				shown = true
			}
		}
	}
	if !shown {
		t.Errorf("the cut hit does not show ETIMEDOUT: %+v", res.Results[0].Windows)
	}
}

// TestRank: sessions by their hits weighted by kind, times recency; newest first with Recent.
func TestRank(t *testing.T) {
	day := 24 * time.Hour
	cat := &catalog{Sessions: map[string]*Session{}, Streams: map[string]*Stream{}}
	add := func(key string, age time.Duration) {
		cat.Sessions[key] = &Session{Key: key, ID: key, Updated: now.Add(-age)}
		cat.Streams[key] = &Stream{Name: key, Session: key, Messages: 100}
	}
	add("prompt", 2*day)        // one hit in what a person typed: 3
	add("chatter", 2*day)       // two hits in replies: 2
	add("failure", 2*day)       // a failed tool: 3, newer than prompt
	add("old-prompts", 400*day) // three prompts a year ago: 9 × ~½
	add("new-chatter", 0)       // four replies today: 4
	cat.Sessions["failure"].Updated = now.Add(-day)
	hits := []hit{
		{"prompt", 1, 'u', 1}, {"chatter", 1, 'a', 1}, {"chatter", 2, 'a', 1}, {"failure", 3, 'e', 1},
		{"old-prompts", 1, 'u', 1}, {"old-prompts", 2, 'u', 1}, {"old-prompts", 3, 'u', 1},
		{"new-chatter", 1, 'a', 1}, {"new-chatter", 2, 'a', 1}, {"new-chatter", 3, 'a', 1}, {"new-chatter", 4, 'a', 1},
	}
	order := func(q Query) string {
		var keys []string
		for _, g := range rank(cat, hits, q) {
			keys = append(keys, g.sess.Key)
		}
		return strings.Join(keys, " ")
	}
	if got, want := order(Query{Now: now}), "old-prompts new-chatter failure prompt chatter"; got != want {
		t.Errorf("rank: %s, want %s", got, want)
	}
	if got, want := order(Query{Now: now, Recent: true}), "new-chatter failure prompt chatter old-prompts"; got != want {
		t.Errorf("rank --recent: %s, want %s", got, want)
	}
}

func stripMarkers(s string) string {
	for {
		i := strings.Index(s, " [… ")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], " …] ")
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+len(" …] "):]
	}
}

func TestSearchEmpty(t *testing.T) {
	a := newArchive(t)
	if _, err := a.Search(context.Background(), NewQuery("x")); err != ErrEmpty {
		t.Errorf("search of nothing imported: %v, want ErrEmpty", err)
	}
	if _, err := a.Recent(context.Background(), "", true, 3); err != ErrEmpty {
		t.Errorf("recent of nothing imported: %v, want ErrEmpty", err)
	}
}

func TestRecent(t *testing.T) {
	a, _ := imported(t)
	got, err := a.Recent(context.Background(), "local/webshop", false, 10)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteRecent(&b, got)
	golden(t, "recent.txt", b.Bytes())
	all, _ := a.Recent(context.Background(), "", true, 2)
	if len(all) != 2 || all[0].ID != couponsID || all[1].ID != kanbanID {
		t.Errorf("recent, global, 2: %+v", all)
	}
}

func TestParseQuery(t *testing.T) {
	for _, tt := range []struct {
		in    string
		want  string // alternatives | terms as text+grams(literal)
		plain bool
	}{
		{"npm", "[npm]", false},
		{"npm test", "[npm] [test]", true},
		{"npm test|pnpm", "[npm] [test] | [pnpm]", false},
		{`"exit code 1" npm`, `[exit code 1 ("exit code 1")] [npm]`, true},
		{"checkout.test.ts", `[checkout test ts ("checkout.test.ts")]`, false},
		{"Failing", "[fail]", false},
		{"库", "[库]", false},
		{"超时", "[超时]", false},
		{"连接超时", `[连接 接超 超时 ("连接超时")]`, false},
		{"the|a", "", false},
		{"数据库error", `[error 数据 据库 ("数据库error")]`, false},
	} {
		p := parseQuery(tt.in)
		var alts []string
		for _, alt := range p.alts {
			var ts []string
			for _, term := range alt {
				s := strings.Join(append(append([]string(nil), term.text...), term.grams...), " ")
				if term.literal != "" {
					s += ` ("` + term.literal + `")`
				}
				ts = append(ts, "["+s+"]")
			}
			alts = append(alts, strings.Join(ts, " "))
		}
		if got := strings.Join(alts, " | "); got != tt.want || p.plain != tt.plain {
			t.Errorf("parseQuery(%q) = %s (plain %v), want %s (plain %v)", tt.in, got, p.plain, tt.want, tt.plain)
		}
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("a", 100) + "NEEDLE" + strings.Repeat("b", 100)
	for _, tt := range []struct {
		s            string
		limit, focus int
		want         string
	}{
		{"short", 10, -1, "short"},
		{"0123456789abcdefghij", 10, -1, "01234 [… 10 chars cut …] fghij"},
		{"数据库连接超时的问题", 4, -1, "数据 [… 6 chars cut …] 问题"},
		{long, 40, 100, strings.Repeat("a", 10) + " [… 84 chars cut …] " + "aaaaaaNEEDLEbbbbbbbb" + " [… 82 chars cut …] " + strings.Repeat("b", 10)},
		{long, 40, 2, strings.Repeat("a", 20) + " [… 166 chars cut …] " + strings.Repeat("b", 20)},
		{long, 40, 190, strings.Repeat("a", 20) + " [… 166 chars cut …] " + strings.Repeat("b", 20)},
	} {
		if got, _ := cut(tt.s, tt.limit, tt.focus); got != tt.want {
			t.Errorf("cut(%q, %d, %d) =\n%q, want\n%q", tt.s, tt.limit, tt.focus, got, tt.want)
		}
	}
}

func TestSplit(t *testing.T) {
	text, grams := newTermer().split("npm ERR! 数据库连接 at checkout.test.ts:12 テスト Failing the Café's")
	if text != "npm err checkout test ts 12 fail café" {
		t.Errorf("text %q", text)
	}
	want := "数 数据 据 据库 库 库连 连 连接 接 テ テス ス スト ト"
	if got := strings.Join(grams, " "); got != want {
		t.Errorf("grams %q, want %q", got, want)
	}
}

// The confirmation finds a term only as a whole term of the message, wherever it is.
func TestMatcherTerms(t *testing.T) {
	m := &matcher{terms: " retry cache retries time "}
	for w, want := range map[string]bool{"retry": true, "cache": true, "time": true, "retries": true,
		"ret": false, "tim": false, "ache": false, "": false, "retry cache": true, "etries": false} {
		if got := m.hasTerm(w); got != want {
			t.Errorf("hasTerm(%q) = %v; want %v", w, got, want)
		}
	}
}
