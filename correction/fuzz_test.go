package correction

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzClassify(f *testing.F) {
	for _, tc := range classifyPositives {
		f.Add(tc.prompt)
	}
	for _, p := range classifyNegatives {
		f.Add(p)
	}
	for _, tc := range rememberPositives {
		f.Add(tc.prompt)
	}
	f.Add("no,\n`")
	f.Add("not ``, `")
	f.Add("İnstead of İ use ı, not \xff")
	f.Fuzz(func(t *testing.T, prompt string) {
		c, ok := Classify(prompt)
		if c.Score < 0 || c.Score > 1 || ok != (c.Score >= threshold) {
			t.Fatalf("score %v ok %v", c.Score, ok)
		}
		if !ok && (c.Instead != "" || c.Avoid != "") {
			t.Fatalf("extraction without a correction: %+v", c)
		}
		if utf8.ValidString(prompt) && (!utf8.ValidString(c.Instead) || !utf8.ValidString(c.Avoid)) {
			t.Fatalf("invalid UTF-8 out of valid input: %+v", c)
		}
		if n, ok := Remember(prompt); ok && (n == "" || utf8.RuneCountInString(n) > rememberNoteMax) {
			t.Fatalf("note %q", n)
		}
		title := Title(prompt)
		if utf8.RuneCountInString(title) > titleMax || strings.HasSuffix(title, ".") || strings.ContainsRune(title, '\n') {
			t.Fatalf("title %q", title)
		}
		if utf8.ValidString(prompt) && !utf8.ValidString(title) {
			t.Fatalf("title %q is not UTF-8", title)
		}
	})
}
