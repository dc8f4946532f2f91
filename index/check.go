package index

import (
	"regexp"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// Check reports what makes a person's query unusable (an unterminated quote, a regular
// expression that does not compile), as Search would, but without an index: a scan of git,
// which stands in when the index cannot be opened, reads the words leniently and would just
// find nothing. What answers a model (reflect mcp) asks first, so that a bad query is an
// error whatever the source.
func Check(text string) error { return check(parseText(text)) }

func check(q query.Query) error {
	switch q := q.(type) {
	case *query.QueryStringQuery:
		p, err := q.Parse()
		if err != nil {
			return err
		}
		return check(p)
	case *query.BooleanQuery:
		for _, c := range []query.Query{q.Must, q.Should, q.MustNot, q.Filter} {
			if c != nil {
				if err := check(c); err != nil {
					return err
				}
			}
		}
	case *query.ConjunctionQuery:
		for _, c := range q.Conjuncts {
			if err := check(c); err != nil {
				return err
			}
		}
	case *query.DisjunctionQuery:
		for _, c := range q.Disjuncts {
			if err := check(c); err != nil {
				return err
			}
		}
	case *query.RegexpQuery:
		_, err := regexp.Compile(strings.TrimSuffix(strings.TrimPrefix(q.Regexp, "^"), "$"))
		return err
	}
	return nil
}
