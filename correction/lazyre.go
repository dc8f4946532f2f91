package correction

import (
	"regexp"
	"sync"
)

// lazyRe compiles its pattern the first time it is used. Compiling the classifier's patterns
// took 2.2 ms, which every reflect command paid at start-up although only UserPromptSubmit
// hooks classify prompts.
type lazyRe struct {
	pat  string
	once sync.Once
	re   *regexp.Regexp
}

func newLazyRe(pat string) *lazyRe { return &lazyRe{pat: pat} }

func (l *lazyRe) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pat) })
	return l.re
}

func (l *lazyRe) MatchString(s string) bool      { return l.get().MatchString(s) }
func (l *lazyRe) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }
func (l *lazyRe) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}
func (l *lazyRe) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}
