package shellquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/home/ann/.reflect", "/home/ann/.reflect"},
		{"", "''"},
		{"/Users/Ann Lee/.reflect", "'/Users/Ann Lee/.reflect'"},
		{"it's", `'it'\''s'`},
		{"a;rm -rf ~", "'a;rm -rf ~'"},
		{"$HOME", "'$HOME'"},
		{"key=v,1%", "key=v,1%"},
		{"naïve", "'naïve'"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestQuoteRoundTrip: what sh reads back from a quoted word is the word.
func TestQuoteRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"plain", "", "two words", "it's", `back\slash`, "$(date)", "`id`", "new\nline", "!bang", "*?[x]"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %q back as %q (%v)", s, out, err)
		}
	}
}
