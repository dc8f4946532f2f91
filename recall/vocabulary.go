package recall

import (
	"strings"
	"sync"
)

// pair is one line of the vocabulary, each side analyzed; near, a synonym (a ~ b).
type pair struct {
	short, long []string
	line        int
	near        bool
}

// vocab maps an analyzed word to the forms it also goes by, and knows the long forms of
// several words, to abbreviate them when a text says them in full.
type vocab struct {
	pairs  []pair
	byWord map[string][][]string
	near   map[string]bool // a word and a form of it (nearSep between) that is a synonym
}

// nearSep parts a word from a form in vocab.near's keys.
const nearSep = "\x00"

// nearCredit is what a synonym is worth of the word: between an identifier's parts
// (partCredit, 0.7) and the word itself or its abbreviation (1). A synonym may mean
// something else where the word does not: a learning about tokens rejected intermittently
// met a branch fix/flaky-token-tests as fully as the flaky token tests learning
// (heldout2 start-auth-token-flaky).
const nearCredit = 0.8

// vocabulary is the parsed vocabulary: vocabularyTable (vocabulary_table.go), generated from
// vocabulary.txt by TestVocabularyTable, which fails when it is stale. Parsing the text, each
// side through the analyzer, took 0.35–0.55 ms of every recall process. A line that does not
// parse is a bug the tests catch.
//
//go:generate go test -run TestVocabularyTable -update-vocabulary .
var vocabulary = sync.OnceValue(vocabularyTable)

// credit is what a learning holding form, a vocabulary form of word, matches of word's
// weight: nearCredit for a synonym, all of it for an abbreviation or spelling.
func (v *vocab) credit(word string, form []string) float64 {
	if v.near[word+nearSep+strings.Join(form, " ")] {
		return nearCredit
	}
	return 1
}

// alts are the forms word also goes by.
func (v *vocab) alts(word string) [][]string { return v.byWord[word] }

// abbreviate returns the pairs whose long form of several words leaves (a text's words in
// order) says in full: "pull request" gives pr = pull request.
func (v *vocab) abbreviate(leaves []string) []pair {
	var out []pair
	for _, p := range v.pairs {
		if len(p.long) > 1 && containsRun(leaves, p.long) {
			out = append(out, p)
		}
	}
	return out
}

// containsRun reports whether run occurs in words, in order and next to each other.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		j := 0
		for j < len(run) && words[i+j] == run[j] {
			j++
		}
		if j == len(run) {
			return true
		}
	}
	return false
}
