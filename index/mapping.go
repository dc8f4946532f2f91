package index

import (
	"bytes"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/util"
)

// Field boosts for text matches: a word in the title says more than one in the body; a
// trigger (a phrase the learning is asked for by) sits between.
var fieldBoost = map[string]float64{"title": 3, "tags": 2, "entities": 2, "triggers": 2, "body": 1}

// textFields are searched by free text, in fieldBoost order of weight.
var textFields = []string{"title", "tags", "entities", "triggers", "body"}

func newMapping() mapping.IndexMapping {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzerName
		f.Store = true
		// No term vectors and no _all field: each would double the cost of a build.
		// Which words matched, and where, is worked out on the few hits returned.
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false // nothing sorts or facets on them
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = true
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	// Stored only: shown with a hit and weighed by recall, never searched.
	stored := func(f *mapping.FieldMapping) *mapping.FieldMapping {
		f.Store, f.Index, f.IncludeInAll, f.DocValues = true, false, false, false
		return f
	}
	date := stored(bleve.NewDateTimeFieldMapping())
	num := stored(bleve.NewNumericFieldMapping())

	doc := bleve.NewDocumentStaticMapping()
	for _, f := range textFields {
		doc.AddFieldMappingsAt(f, text())
	}
	for _, f := range []string{"project", "kind", "status", "id"} {
		doc.AddFieldMappingsAt(f, kw())
	}
	doc.AddFieldMappingsAt("confidence", stored(bleve.NewKeywordFieldMapping()))
	tag := kw()
	tag.Store = false
	doc.AddFieldMappingsAt("tag", tag)
	doc.AddFieldMappingsAt("created", date)
	doc.AddFieldMappingsAt("updated", date)
	doc.AddFieldMappingsAt("seen", num)
	doc.AddFieldMappingsAt("anchors", stored(bleve.NewKeywordFieldMapping()))
	doc.AddFieldMappingsAt("source_commit", stored(bleve.NewKeywordFieldMapping()))

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = analyzerName
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.ScoringModel = "bm25"
	return m
}

// bleve reads an index's mapping back from the index at every open and parses its JSON:
// half of an open (BenchmarkOpenSearch, pprof: 0.15 of 0.3 ms), in every hook of a resident
// engine. Every generation holds the same mapping, so the parse is kept: bleve's JSON hook
// (util.UnmarshalJSON, there for a faster decoder) answers the bytes of the mapping it parsed
// last with that mapping. bleve only reads a mapping once it is open (its analyzers are
// looked up in its own concurrency-safe cache), and this one is static.
func init() {
	plain := util.UnmarshalJSON
	util.UnmarshalJSON = func(data []byte, v any) error {
		im, ok := v.(**mapping.IndexMappingImpl)
		if !ok {
			return plain(data, v)
		}
		parsed.Lock()
		defer parsed.Unlock()
		if parsed.mapping != nil && bytes.Equal(parsed.data, data) {
			*im = parsed.mapping
			return nil
		}
		if err := plain(data, v); err != nil {
			return err
		}
		parsed.data, parsed.mapping = bytes.Clone(data), *im
		return nil
	}
}

// parsed is the mapping bleve parsed last, and its JSON.
var parsed struct {
	sync.Mutex
	data    []byte
	mapping *mapping.IndexMappingImpl
}
