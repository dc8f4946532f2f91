package history

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	// an index built before history_spaces names this tokenizer in its mapping: without it
	// registered, such an index does not open
	_ "github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
)

// The index holds one document per message a person could look for (prompts, replies,
// tool calls and results; not system lines or thinking), with three fields:
//
//   - text: the message's words as terms: every run of letters and digits, lower-cased,
//     English stop words out, Porter-stemmed — so checkout.test.ts, ERR_MODULE_NOT_FOUND
//     and /home/dev/src/webshop are found by their parts, and "failing" finds "failed";
//   - cjk: every character and every pair of adjacent characters of each run of Chinese,
//     Japanese or Korean, as keywords. Those scripts do not separate words with spaces, so a
//     needle of any length is found by its pairs (a single character by itself) and then
//     confirmed by a literal substring check;
//   - project: the session's project key, to scope a search.
//
// Nothing is stored: a document's id says where its message is (stream:seq:class) and the
// stores hold the text. No term vectors, no doc values: a search needs neither.
//
// The terms are made here, not by a bleve analyzer: the index only splits them on spaces.
// bleve's English analyzer (Unicode word segmentation, then stemming every word) took 60%
// of an import; a transcript repeats its words, so stemming each distinct word once
// (termer's cache) and splitting on plain separators made imports about twice as fast.
func newMapping() mapping.IndexMapping {
	field := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("text", field(termsAnalyzer))
	doc.AddFieldMappingsAt("cjk", field(keyword.Name))
	doc.AddFieldMappingsAt("project", field(keyword.Name))
	// no "_all" field: every query names its field, and no field is included in it, yet
	// bleve still made an empty composite field for every document and processed it when it
	// built a segment: 0.8 s of the 9 s of CPU an import of 134,000 messages took, on the
	// goroutine that bounds the import's time (index building). An index made before still
	// has the empty field and searches alike.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	m := bleve.NewIndexMapping()
	if err := m.AddCustomAnalyzer(termsAnalyzer, map[string]any{"type": custom.Name, "tokenizer": spacesName}); err != nil {
		panic(err) // a constant configuration
	}
	m.DefaultMapping = doc
	m.DefaultAnalyzer = termsAnalyzer
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	m.ScoringModel = "bm25"
	return m
}

// termsAnalyzer splits the text field on spaces: its terms are made by termer.
const termsAnalyzer = "history_terms"

// docID names the message of seq in stream, with the class its hits weigh.
func docID(stream string, seq int, class byte) string {
	return stream + ":" + strconv.Itoa(seq) + ":" + string(class)
}

// parseID reverses docID.
func parseID(id string) (stream string, seq int, class byte, ok bool) {
	j := strings.LastIndexByte(id, ':')
	if j < 1 || j != len(id)-2 {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(id[:j], ':')
	if i < 1 {
		return "", 0, 0, false
	}
	n, err := strconv.Atoi(id[i+1 : j])
	if err != nil {
		return "", 0, 0, false
	}
	return id[:i], n, id[j+1], true
}

// termer turns text into index terms. It caches the term of every word it has seen, so one
// is used for a whole import or search, never shared between goroutines.
type termer struct {
	terms   map[string]string // lower-cased word → its term, "" for a stop word
	stop    analysis.TokenMap
	stemmer *porter.PorterStemmer
	word    []byte
}

func newTermer() *termer {
	stop := analysis.NewTokenMap()
	stop.LoadBytes(en.EnglishStopWords)
	return &termer{terms: map[string]string{}, stop: stop, stemmer: porter.NewPorterStemmer()}
}

// maxWord: longer runs of letters and digits (hashes, base64, minified code) are not words
// anyone searches for, and would fill the index with terms found once.
const maxWord = 64

// maxCached bounds the cache of a long import.
const maxCached = 200_000

// fields is the document of a record.
func (t *termer) fields(r *record, project string) map[string]any {
	var body terms
	body.text, body.grams = t.split(r.body())
	return t.join(r.Tool, body, project)
}

// split returns the terms of s joined by spaces, and its CJK grams: each character of a CJK
// run and each pair of adjacent ones, without repeats.
func (t *termer) split(s string) (string, []string) {
	var b strings.Builder
	b.Grow(len(s) / 2)
	var grams []string
	var seen map[string]bool
	runStart, runEnd := -1, -1
	flushRun := func() {
		if runStart < 0 {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		run := s[runStart:runEnd]
		for i, r := range run {
			n := utf8.RuneLen(r)
			one := run[i : i+n]
			if !seen[one] {
				seen[one] = true
				grams = append(grams, one)
			}
			if i+n < len(run) {
				_, m := utf8.DecodeRuneInString(run[i+n:])
				two := run[i : i+n+m]
				if !seen[two] {
					seen[two] = true
					grams = append(grams, two)
				}
			}
		}
		runStart = -1
	}
	for i, r := range s {
		switch {
		case isCJK(r):
			t.flushWord(&b)
			if runStart < 0 {
				runStart = i
			}
			runEnd = i + utf8.RuneLen(r)
			continue
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			t.word = append(t.word, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			t.word = append(t.word, byte(r+'a'-'A'))
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			t.word = utf8.AppendRune(t.word, unicode.ToLower(r))
		default:
			t.flushWord(&b)
		}
		flushRun()
	}
	t.flushWord(&b)
	flushRun()
	return b.String(), grams
}

// flushWord writes the term of the word collected so far.
func (t *termer) flushWord(b *strings.Builder) {
	if len(t.word) == 0 {
		return
	}
	defer func() { t.word = t.word[:0] }()
	if len(t.word) > maxWord || len(t.word) == 1 && t.word[0] >= 'a' {
		return // and a single letter (the s of a possessive, the t of don't) says nothing
	}
	term, ok := t.terms[string(t.word)]
	if !ok {
		w := string(t.word)
		if !t.stop[w] {
			tok := analysis.TokenStream{&analysis.Token{Term: []byte(w)}}
			term = string(t.stemmer.Filter(tok)[0].Term)
		}
		if len(t.terms) >= maxCached {
			clear(t.terms)
		}
		t.terms[w] = term
	}
	if term == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(term)
}

// analyze returns the terms of s.
func (t *termer) analyze(s string) []string {
	text, _ := t.split(s)
	return strings.Fields(text)
}

// isCJK reports whether r is written in a script that does not separate words: Han
// (Chinese, Japanese kanji), kana, Hangul.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー' || r == '々'
}

// isWordRune reports whether r is part of a word the text field indexes.
func isWordRune(r rune) bool { return !isCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
