package transcript

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGeminiExitCode: the scan finds the exit code the regular expression it replaced found.
func TestGeminiExitCode(t *testing.T) {
	re := regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)
	for _, text := range []string{
		"", "Exit Code: 0", "Exit Code: 1\n", "out\nExit Code: 127  \r\n", "out\nExit Code: -1\nmore",
		"Exit Code: 12x\nExit Code: 3", "xExit Code: 2\nExit Code: 4", "Exit Code: \nExit Code: 5",
		"Exit Code: 1 2\nExit Code: 6", "Exit Code: --1", "Exit Code: 7\t\f\n", "Output: ok\nExit Code: 0\n\nSignal: none",
		"Exit Code: 99999999999999999999999", "Exit Code:3", "Exit Code: 8 \n\n", "\nExit Code: 9",
	} {
		want, wantOK := 0, false
		if sm := re.FindStringSubmatch(text); sm != nil {
			if n, err := strconv.Atoi(sm[1]); err == nil {
				want, wantOK = n, true
			}
		}
		got, ok := geminiExitCode(text)
		if got != want || ok != wantOK {
			t.Errorf("%q: %d %v, want %d %v", text, got, ok, want, wantOK)
		}
	}
}

// TestGeminiFirstSeenOrder: a message written again keeps its place, with its latest text
// and the offset of its latest line; a rewind drops it and what was first written after it.
func TestGeminiFirstSeenOrder(t *testing.T) {
	head := `{"sessionId":"s1","startTime":"2026-08-21T10:00:00.000Z"}` + "\n"
	a1 := `{"id":"a","timestamp":"2026-08-21T10:00:01.000Z","type":"gemini","content":"first draft"}` + "\n"
	b := `{"id":"b","timestamp":"2026-08-21T10:00:02.000Z","type":"user","content":"next prompt"}` + "\n"
	a2 := `{"id":"a","timestamp":"2026-08-21T10:00:01.000Z","type":"gemini","content":"second draft"}` + "\n"
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"written again", head + a1 + b + a2, []string{"second draft", "next prompt"}},
		{"rewound to it", head + a1 + b + a2 + `{"$rewindTo":"a"}` + "\n", nil},
		{"rewound to the next", head + a1 + b + a2 + `{"$rewindTo":"b"}` + "\n", []string{"second draft"}},
	} {
		s, err := Read(strings.NewReader(tt.text), HarnessGemini)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range s.Messages {
			got = append(got, m.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if tt.name == "written again" && s.Messages[0].Offset != int64(len(head+a1+b)) {
			t.Errorf("offset %d, want the latest line's %d", s.Messages[0].Offset, len(head+a1+b))
		}
	}
}
