package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seed adds the fixtures (and the samples, where they exist), whole and line by line.
func seed(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			f.Add(data)
			for _, line := range bytes.SplitAfter(data, []byte("\n")) {
				if len(line) > 0 && len(line) < 64<<10 {
					f.Add(line)
				}
			}
		}
	}
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}],"is_error":"yes"}]}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":[{"type":"input_text","text":"x"}],"success":false}}}`))
}

// fuzzRead checks what must hold for any input: no panic, no error from a bytes.Reader,
// the session invariants, and that nothing is left after End but a torn line.
func fuzzRead(t *testing.T, h Harness, data []byte) {
	s, err := Read(bytes.NewReader(data), h)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, s, int64(len(data)))
	rest, err := Read(bytes.NewReader(data[s.End:]), h)
	if err != nil {
		t.Fatal(err)
	}
	if rest.Lines != 0 || len(rest.Messages) != 0 || rest.Torn != s.Torn {
		t.Fatalf("after End %d: %d lines, %d messages, torn %v (was %v)", s.End, rest.Lines, len(rest.Messages), rest.Torn, s.Torn)
	}
	Detect(data)
}

func FuzzReadClaude(f *testing.F) {
	seed(f, fixtureDir+"/claude-session.jsonl", fixtureDir+"/claude-session/subagents/*.jsonl", samplesDir+"/claude/*.jsonl", samplesDir+"/claude/*/*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessClaude, data) })
}

func FuzzReadCodex(f *testing.F) {
	seed(f, fixtureDir+"/codex-*.jsonl", samplesDir+"/codex/*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, HarnessCodex, data) })
}

// FuzzScanner holds the scanner to encoding/json: the same lines are valid, and a valid
// string literal decodes to the same text.
func FuzzScanner(f *testing.F) {
	seed(f, fixtureDir+"/*.jsonl")
	for _, s := range []string{`"a\u00e9\ud83d\ude00\ud800x\\\/\b\f\n\r\t"`, "\"\xff\xfeok\"", `-0.5e+10`, `[1,{"a":[true,false,null]}]`,
		`{"a":1,}`, `[,]`, `01`, `1.`, `"\u12"`, "\"\x01\"", `{"a" 1}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		if !json.Valid(data) {
			return
		}
		s := scanner{b: data}
		if s.peek() != '"' {
			return
		}
		got, ok := s.str()
		var want string
		if err := json.Unmarshal(data, &want); err != nil || !ok || got != want {
			t.Fatalf("str(%q) = %q %v, encoding/json: %q %v", data, got, ok, want, err)
		}
	})
}
