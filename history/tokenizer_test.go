package history

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// whitespaceTokenizer is bleve's whitespace tokenizer, found by name as an index's mapping
// finds it: this test binary does not import its package, so that the package's own
// imports must register it.
func whitespaceTokenizer(tb testing.TB) analysis.Tokenizer {
	tb.Helper()
	tok, err := registry.NewCache().TokenizerNamed("whitespace")
	if err != nil {
		tb.Fatalf("the tokenizer indexes built before history_spaces name: %v", err)
	}
	return tok
}

// oldMapping is the mapping an index built before history_spaces holds (index_meta.json).
const oldMapping = `{"default_mapping":{"enabled":true,"dynamic":false,"properties":{"cjk":{"enabled":true,"dynamic":true,"fields":[{"type":"text","analyzer":"keyword","index":true}]},"project":{"enabled":true,"dynamic":true,"fields":[{"type":"text","analyzer":"keyword","index":true}]},"text":{"enabled":true,"dynamic":true,"fields":[{"type":"text","analyzer":"history_terms","index":true}]}}},"type_field":"_type","default_type":"_default","default_analyzer":"history_terms","default_datetime_parser":"dateTimeOptional","scoring_model":"bm25","default_field":"_all","store_dynamic":false,"index_dynamic":false,"docvalues_dynamic":false,"analysis":{"analyzers":{"history_terms":{"tokenizer":"whitespace","type":"custom"}}}}`

// TestOldIndexOpens: an index the previous version built (whitespace tokenizer, an _all
// field) opens and finds its documents by the text field as before.
func TestOldIndexOpens(t *testing.T) {
	var m mapping.IndexMappingImpl
	if err := json.Unmarshal([]byte(oldMapping), &m); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := bleve.New(dir, &m)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTermer()
	if err := idx.Index("s:0:u", tr.fields(&record{Text: "the deploy failed with ERR_SOCKET_TIMEOUT"}, "local/api")); err != nil {
		t.Fatal(err)
	}
	idx.Close()
	idx, err = openIndex(dir, true, time.Second)
	if err != nil {
		t.Fatalf("an index of the previous version does not open: %v", err)
	}
	defer idx.Close()
	q := bleve.NewTermQuery("err_socket_timeout")
	if terms := tr.analyze("ERR_SOCKET_TIMEOUT"); len(terms) > 0 {
		q = bleve.NewTermQuery(terms[0])
	}
	q.SetField("text")
	res, err := idx.Search(bleve.NewSearchRequest(q))
	if err != nil || res.Total != 1 {
		t.Fatalf("search of the previous version's index: %v, %v", err, res)
	}
}

// TestSpacesTokenizerAsWhitespace: on what termer writes (and on stray spaces) the text
// field's tokenizer gives exactly the tokens bleve's whitespace tokenizer gave.
func TestSpacesTokenizerAsWhitespace(t *testing.T) {
	ws := whitespaceTokenizer(t)
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
	}{{"spaces", spacesTokenizer{}}, {"whitespace", whitespaceTokenizer(b)}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tt.tok.Tokenize(in)
			}
		})
	}
}
