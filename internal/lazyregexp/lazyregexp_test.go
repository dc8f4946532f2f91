package lazyregexp

import (
	"regexp"
	"slices"
	"sync"
	"testing"
)

// TestSameAsRegexp: every method answers as the compiled expression does.
func TestSameAsRegexp(t *testing.T) {
	const pat = `(?i)(\w+)@(\w+)\.org`
	l, re := &Regexp{str: pat}, regexp.MustCompile(pat) // not compiled yet: the first call does
	s := "Mail ann@example.org or BOB@test.org, not carl@x.com"
	if l.rx != nil {
		t.Fatal("compiled before its first use")
	}
	if l.MatchString(s) != re.MatchString(s) || l.FindString(s) != re.FindString(s) ||
		!slices.Equal(l.FindStringIndex(s), re.FindStringIndex(s)) ||
		!slices.Equal(l.FindStringSubmatch(s), re.FindStringSubmatch(s)) ||
		!slices.Equal(l.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s)) ||
		!slices.Equal(l.FindAllString(s, -1), re.FindAllString(s, -1)) ||
		len(l.FindAllStringIndex(s, -1)) != 2 || len(l.FindAllStringSubmatch(s, -1)) != 2 ||
		len(l.FindAllStringSubmatchIndex(s, -1)) != 2 ||
		l.ReplaceAllString(s, "<$2>") != re.ReplaceAllString(s, "<$2>") ||
		l.ReplaceAllLiteralString(s, "$1") != re.ReplaceAllLiteralString(s, "$1") ||
		l.ReplaceAllStringFunc(s, func(string) string { return "x" }) != re.ReplaceAllStringFunc(s, func(string) string { return "x" }) ||
		!slices.Equal(l.Split(s, -1), re.Split(s, -1)) || !slices.Equal(l.SubexpNames(), re.SubexpNames()) ||
		l.SubexpIndex("x") != -1 || l.String() != pat || l.Regexp().String() != pat {
		t.Error("a method answers differently from regexp")
	}
}

// TestConcurrentFirstUse: goroutines racing to the first use compile it once (go test -race).
func TestConcurrentFirstUse(t *testing.T) {
	l := &Regexp{str: `a+b`}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if !l.MatchString("caaab") {
				t.Error("no match")
			}
		})
	}
	wg.Wait()
}

// TestBadPatternFailsInTests: in a test binary New compiles at once, so a bad pattern in a
// package's declarations fails that package's tests.
func TestBadPatternFailsInTests(t *testing.T) {
	if !inTest {
		t.Fatal("a test binary is not recognised as one")
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at New in a test binary")
		}
	}()
	New(`(unclosed`)
}

// BenchmarkDeclare: what a package-level declaration costs at init, lazy and compiled.
func BenchmarkDeclare(b *testing.B) {
	const pat = `(?i)\b(?:errors?|err|fail(?:s|ed|ure|ing)?|fatal|panic(?:ked)?|cannot|can't|couldn't|unable|denied|not found)\b`
	b.Run("lazy", func(b *testing.B) {
		for b.Loop() {
			_ = &Regexp{str: pat}
		}
	})
	b.Run("compiled", func(b *testing.B) {
		for b.Loop() {
			_ = regexp.MustCompile(pat)
		}
	})
}
