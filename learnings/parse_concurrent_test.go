package learnings_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/reflect-memory/reflect/fixtures"
	"github.com/reflect-memory/reflect/learnings"
)

// TestParseConcurrent: the shared frontmatter parser gives, on many goroutines at once
// (the viewer parses on every core), what it gives on one (run with -race).
func TestParseConcurrent(t *testing.T) {
	samples := fixtures.Learnings()
	want := make([]*learnings.Learning, len(samples))
	for i, s := range samples {
		l, err := learnings.Parse(s.Name, s.Data)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = l
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				for i, s := range samples {
					l, err := learnings.Parse(s.Name, s.Data)
					if err != nil || l.Title != want[i].Title || l.Body != want[i].Body || !reflect.DeepEqual(l.Tags, want[i].Tags) {
						t.Errorf("%s parsed concurrently: %v %+v", s.Name, err, l)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
