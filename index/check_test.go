package index

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct{ query, err string }{
		{"oauth redirect", ""},
		{`"a phrase" +must -not title:word tags:x a|b|c word^2 fuzzy~`, ""},
		{`tags:/go.*/`, ""},
		{`"unclosed`, "unterminated quote"},
		{`title:"unclosed`, "unterminated quote"},
		{`tags:/[/`, "missing closing ]"},
		{`ok|"bad`, "unterminated quote"},
	} {
		err := Check(tc.query)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.query, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Check(%q) = %v, want %q", tc.query, err, tc.err)
		}
	}
}
