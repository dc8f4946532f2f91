package history

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
)

// TestSpacesTokenizerAsWhitespace: on what termer writes (and on stray spaces) the text
// field's tokenizer gives exactly the tokens bleve's whitespace tokenizer gave.
func TestSpacesTokenizerAsWhitespace(t *testing.T) {
	ws, err := whitespace.TokenizerConstructor(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTermer()
	inputs := []string{"", " ", "   ", "a", "one two", " lead", "trail ", "two  spaces", "  both  ends  "}
	for _, s := range []string{
		"ERR_MODULE_NOT_FOUND in checkout.test.ts at /home/dev/src/webshop",
		"Ünïcödé wörds, ΕΛΛΗΝΙΚΆ and кириллица; failing tests failed",
		"部署到测试环境失败了 mixed with English words 数据库连接",
		strings.Repeat("cache retry timeout ", 500),
		"tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em-space",
	} {
		text, _ := tr.split(s)
		inputs = append(inputs, text)
	}
	for _, in := range inputs {
		got, want := spacesTokenizer{}.Tokenize([]byte(in)), ws.Tokenize([]byte(in))
		if len(got) != len(want) {
			t.Errorf("%q: %d tokens, whitespace gives %d", in, len(got), len(want))
			continue
		}
		for i := range got {
			g, w := got[i], want[i]
			if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type || g.KeyWord != w.KeyWord {
				t.Errorf("%q token %d: %v, whitespace gives %v", in, i, g, w)
			}
		}
	}
}

// BenchmarkTokenize: the text field of a tool output, by this tokenizer and by bleve's
// whitespace one.
func BenchmarkTokenize(b *testing.B) {
	text, _ := newTermer().split(strings.Repeat("INFO cache: retry the deploy after timeout (42 ms)\n", 40))
	in := []byte(text)
	for _, tt := range []struct {
		name string
		tok  analysis.Tokenizer
	}{{"spaces", spacesTokenizer{}}, {"whitespace", func() analysis.Tokenizer { t, _ := whitespace.TokenizerConstructor(nil, nil); return t }()}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tt.tok.Tokenize(in)
			}
		})
	}
}
