package history

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestJoinAsSearchable: the document a read-ahead goroutine's terms make with the tool the
// import finds later is the one split of the whole searchable text made before.
func TestJoinAsSearchable(t *testing.T) {
	parts := []string{"", "Bash", "mcp__github__create_pr", "读取文件", "数据库", "Read", "ERR_X failed", "连接 超时",
		"pnpm test --filter web", "部署到测试环境失败了", "a", "x", "Ünïcödé", "the of and", strings.Repeat("z", 70),
		"checkout.test.ts", "\n", "  ", "数", "a数b"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string {
		var b strings.Builder
		for n := rng.IntN(4); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	tr, want := newTermer(), newTermer()
	for range 5000 {
		r := record{Tool: pick(), Input: pick(), Text: pick()}
		var body terms
		body.text, body.grams = tr.split(r.body())
		got := tr.join(r.Tool, body, "p")
		text, grams := want.split(r.searchable())
		g, _ := got["cjk"].([]string)
		if got["text"] != text || !slices.Equal(g, grams) || got["project"] != "p" {
			t.Fatalf("tool %q input %q text %q: got %q %q, split of searchable %q %q", r.Tool, r.Input, r.Text, got["text"], g, text, grams)
		}
		if _, ok := got["cjk"]; ok != (len(grams) > 0) {
			t.Fatalf("%+v: a cjk field without grams, or grams without one", r)
		}
	}
}
