package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestEmptyLists(t *testing.T) {
	type inner struct {
		Tags []string `json:"tags"`
		Opt  []int    `json:"opt,omitempty"`
	}
	type outer struct {
		Name    string            `json:"name"`
		List    []inner           `json:"list"`
		Ptr     *inner            `json:"ptr"`
		Nil     *inner            `json:"nil"`
		Map     map[string][]int  `json:"map"`
		NilMap  map[string]string `json:"nil_map"`
		When    time.Time         `json:"when"`
		Raw     []byte            `json:"raw"`
		Any     any               `json:"any"`
		private []string
	}
	v := outer{Name: "x", List: []inner{{}}, Ptr: &inner{}, Map: map[string][]int{"a": nil}, Any: []string(nil), private: []string{"kept"}}
	b, err := json.Marshal(emptyLists(v))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"x","list":[{"tags":[]}],"ptr":{"tags":[]},"nil":null,"map":{"a":[]},"nil_map":null,"when":"0001-01-01T00:00:00Z","raw":null,"any":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if got, _ := json.Marshal(emptyLists([]string(nil))); string(got) != "[]" {
		t.Errorf("a nil list on its own: %s", got)
	}
	if v.Ptr.Tags != nil || !strings.Contains(string(b), "tags") {
		t.Error("emptyLists changed its argument")
	}
}
