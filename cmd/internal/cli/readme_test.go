package cli

import (
	"os"
	"regexp"
	"testing"

	"github.com/reflect-memory/reflect/learnings"
)

// The README's examples of project keys are what reflect computes: each "`git clone URL
// DIR` gives `KEY`" names the key of a clone of URL.
func TestReadmeProjectKeys(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile("`git clone (\\S+) \\S+` gives `([^`]+)`").FindAllSubmatch(readme, -1)
	if len(examples) == 0 {
		t.Fatal("the README gives no example of the key of a clone (`git clone URL DIR` gives `KEY`)")
	}
	for _, ex := range examples {
		if got, err := learnings.NormalizeRemote(string(ex[1])); err != nil || got != string(ex[2]) {
			t.Errorf("README: a clone of %s gives %s; reflect says %q (%v)", ex[1], ex[2], got, err)
		}
	}
}
