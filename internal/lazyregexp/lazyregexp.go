// Package lazyregexp is a regular expression compiled on its first use rather than at
// package init. Go runs every linked package's init in every process, so a package-level
// regexp.MustCompile costs every command, including the hooks that never use it: drain's
// fifty expressions took 0.8–0.9 ms of each start-up (GODEBUG=inittrace=1), about a tenth
// of `reflect version`. A test binary compiles each expression when it is declared, so a bad
// pattern still fails the package's tests at once instead of at its first use.
package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// Regexp is a *regexp.Regexp compiled the first time one of its methods is called; it is
// safe for concurrent use, as regexp.Regexp is.
type Regexp struct {
	str  string
	once sync.Once
	rx   *regexp.Regexp
}

// New returns the lazily compiled expression str; it panics on first use if str does not
// compile (in a test binary, at once).
func New(str string) *Regexp {
	r := &Regexp{str: str}
	if inTest {
		r.re()
	}
	return r
}

// inTest: the binary is a test (go test names it pkg.test), where a bad pattern should fail
// the package's tests whether or not a test reaches it.
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.str) })
	return r.rx
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

func (r *Regexp) String() string { return r.str }

func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

func (r *Regexp) FindString(s string) string { return r.re().FindString(s) }

func (r *Regexp) FindStringIndex(s string) []int { return r.re().FindStringIndex(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.re().FindStringSubmatchIndex(s) }

func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.re().FindAllStringIndex(s, n) }

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.re().ReplaceAllLiteralString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }

func (r *Regexp) SubexpNames() []string { return r.re().SubexpNames() }

func (r *Regexp) SubexpIndex(name string) int { return r.re().SubexpIndex(name) }
