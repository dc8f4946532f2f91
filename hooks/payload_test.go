package hooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Payload
		wantErr bool
	}{
		{name: "claude prompt", in: `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"hi","prompt_id":"x","effort":{"level":"high"}}`,
			want: Payload{Event: "UserPromptSubmit", SessionID: "s", TranscriptPath: "/t.jsonl", CWD: "/p", Prompt: "hi"}},
		{name: "codex null transcript", in: `{"session_id":"019e","turn_id":"t","transcript_path":null,"cwd":"/r","hook_event_name":"Stop","model":"gpt-5.5","permission_mode":"default","stop_hook_active":true,"last_assistant_message":null}`,
			want: Payload{Event: "Stop", SessionID: "019e", CWD: "/r", TurnID: "t", Model: "gpt-5.5", StopHookActive: true}},
		{name: "wrong types are absent", in: `{"hook_event_name":"Stop","session_id":7,"cwd":["x"],"prompt":{"a":1},"stop_hook_active":"yes"}`,
			want: Payload{Event: "Stop"}},
		{name: "invalid utf-8 is replaced", in: "{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"a\xffb\"}",
			want: Payload{Event: "UserPromptSubmit", Prompt: "a\uFFFDb"}},
		{name: "no event", in: `{"session_id":"s"}`, wantErr: true},
		{name: "event of the wrong type", in: `{"hook_event_name":5}`, wantErr: true},
		{name: "not an object", in: `[1,2]`, wantErr: true},
		{name: "null", in: `null`, wantErr: true},
		{name: "truncated", in: `{"hook_event_name":"Sto`, wantErr: true},
		{name: "empty", in: ``, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			got.ToolInput, got.ToolResponse = nil, nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestToolFailed(t *testing.T) {
	tests := []struct {
		resp string
		want bool
	}{
		{`{"stdout":"ok","stderr":"","interrupted":false}`, false},
		{`{"filePath":"/a","success":true}`, false},
		{`{"success":false,"error":"denied"}`, true},
		{`{"output":"npm ERR!","exit_code":1}`, true},
		{`{"output":"fine","exit_code":0}`, false},
		{`{"exitCode":2}`, true},
		{`{"is_error":true,"content":"boom"}`, true},
		{`"Exit code 1\nboom"`, true},
		{`"Exit code 0"`, false},
		{`{"output":"Exit code: 127\ncommand not found"}`, true},
		{`"all good"`, false},
		{`null`, false},
		{`42`, false},
		{``, false},
		{`{"error":""}`, false},
	}
	for _, tt := range tests {
		if got, _ := toolFailed(json.RawMessage(tt.resp)); got != tt.want {
			t.Errorf("toolFailed(%s) = %v, want %v", tt.resp, got, tt.want)
		}
	}
}

func TestInputText(t *testing.T) {
	for in, want := range map[string]string{
		`{"command":"npm test","description":"x"}`: "npm test",
		`{"file_path":"/a/b.go","content":"…"}`:    "/a/b.go",
		`"apply_patch *** Begin Patch"`:            "apply_patch *** Begin Patch",
		`{"other":1}`:                              `{"other":1}`,
	} {
		if got := inputText(json.RawMessage(in)); got != want {
			t.Errorf("inputText(%s) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"hook_event_name":"Stop","session_id":"s"}`, `{"hook_event_name":"PostToolUse","tool_response":{"exit_code":1}}`,
		`null`, `{`, "{\"prompt\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err == nil && p.Event == "" {
			t.Fatal("decoded a payload without an event")
		}
		toolFailed(p.ToolResponse)
		inputText(p.ToolInput)
	})
}
