package drain

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/handoff"
)

// chatServer answers like an OpenAI-compatible chat-completions endpoint: status and body
// as given, after an optional delay; it records the last request.
type chatServer struct {
	status int
	body   string
	delay  time.Duration
	last   struct {
		auth  string
		path  string
		model string
		text  string
	}
}

func (s *chatServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &req)
		s.last.auth, s.last.path, s.last.model = r.Header.Get("Authorization"), r.URL.Path, req.Model
		if len(req.Messages) > 0 {
			s.last.text = req.Messages[0].Content
		}
		if s.delay > 0 {
			select {
			case <-time.After(s.delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.status)
		io.WriteString(w, s.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func chatAnswer(content string, promptTokens int) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.1",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": promptTokens, "completion_tokens": 42, "total_tokens": promptTokens + 42},
	})
	return string(b)
}

func TestOpenAIExtractor(t *testing.T) {
	t.Setenv("TEST_LLM_KEY", "sk-test-0123456789abcdef")
	tests := []struct {
		name    string
		srv     chatServer
		keyEnv  string
		timeout time.Duration
		want    error // nil: proposals
		said    string
	}{
		{name: "an answer", srv: chatServer{status: 200, body: chatAnswer(llmGoodAnswer, 1234)}, keyEnv: "TEST_LLM_KEY"},
		{name: "an answer in a fence after prose", srv: chatServer{status: 200, body: chatAnswer("Here you go:\n```json\n"+llmGoodAnswer+"\n```", 0)}},
		{name: "a wrong key", srv: chatServer{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-test-0123456789abcdef","type":"invalid_request_error","code":"invalid_api_key"}}`},
			keyEnv: "TEST_LLM_KEY", want: ErrPause, said: "HTTP 401"},
		{name: "no quota left", srv: chatServer{status: 429, body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`},
			want: ErrPause, said: "HTTP 429"},
		{name: "a rate limit", srv: chatServer{status: 429, body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`},
			want: ErrTransient, said: "rate_limit_exceeded"},
		{name: "an overloaded server", srv: chatServer{status: 503, body: `upstream overloaded`}, want: ErrTransient, said: "HTTP 503"},
		{name: "no such model", srv: chatServer{status: 404, body: `{"error":{"message":"model \"llama9\" not found, try pulling it first"}}`}, want: ErrPause, said: "not found"},
		{name: "a prompt too long", srv: chatServer{status: 400, body: `{"error":{"message":"context length exceeded"}}`}, want: ErrBadAnswer},
		{name: "not JSON", srv: chatServer{status: 200, body: `<html>proxy error</html>`}, want: ErrBadAnswer, said: "not chat-completions JSON"},
		{name: "no choices", srv: chatServer{status: 200, body: `{"choices":[]}`}, want: ErrBadAnswer},
		{name: "an answer that is no learning", srv: chatServer{status: 200, body: chatAnswer("I could not find any lesson.", 10)}, want: ErrBadAnswer},
		{name: "a slow answer", srv: chatServer{status: 200, body: chatAnswer(llmGoodAnswer, 1), delay: 2 * time.Second}, timeout: 200 * time.Millisecond, want: ErrTransient},
		{name: "a key variable that is empty", srv: chatServer{status: 200, body: chatAnswer(llmGoodAnswer, 1)}, keyEnv: "TEST_LLM_NO_KEY", want: ErrPause, said: "$TEST_LLM_NO_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tt.srv
			url := srv.start(t)
			ext := OpenAI(url, LLMOptions{Model: "llama3.1", KeyEnv: tt.keyEnv, Timeout: tt.timeout})
			if !ext.LLM() || ext.Name() != "openai:"+url {
				t.Fatalf("name %q", ext.Name())
			}
			props, usage, err := ext.Extract(context.Background(), llmInput())
			if tt.want != nil {
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.said) {
					t.Fatalf("err = %v, want %v with %q", err, tt.want, tt.said)
				}
				if strings.Contains(err.Error(), "sk-test-0123456789abcdef") {
					t.Errorf("the key reached the error: %v", err)
				}
				return
			}
			if err != nil || len(props) != 1 || props[0].Title != "Decode the OAuth state before comparing" {
				t.Fatalf("props %+v, err %v", props, err)
			}
			if srv.last.path != "/v1/chat/completions" || srv.last.model != "llama3.1" || srv.last.text != BuildPrompt(llmInput()) {
				t.Errorf("request: %s model %q", srv.last.path, srv.last.model)
			}
			wantAuth := ""
			if tt.keyEnv != "" {
				wantAuth = "Bearer sk-test-0123456789abcdef"
			}
			if srv.last.auth != wantAuth {
				t.Errorf("Authorization %q, want %q", srv.last.auth, wantAuth)
			}
			wantTokens := len(BuildPrompt(llmInput())) / 4
			if strings.Contains(tt.srv.body, `"prompt_tokens":1234`) {
				wantTokens = 1234 // the endpoint's own count
			}
			if usage.Calls != 1 || usage.InputTokens != wantTokens {
				t.Errorf("usage %+v, want %d tokens", usage, wantTokens)
			}
		})
	}
}

// An OpenAI-compatible endpoint asked for the handoff's summary is asked in the one request
// and its answer's summary is read.
func TestOpenAIHandoffSummary(t *testing.T) {
	s := &chatServer{status: http.StatusOK, body: chatAnswer(`{"learnings":[],"handoff":{"task":"Fix the OAuth state mismatch"}}`, 900)}
	url := s.start(t)
	in := llmInput()
	in.Handoff = &handoff.Summary{Task: "the OAuth redirect fails with state mismatch"}
	r, u, err := OpenAI(url, llmOpts()).(replier).Reply(context.Background(), in)
	if err != nil || r.Handoff == nil || r.Handoff.Task != "Fix the OAuth state mismatch" || u.Calls != 1 {
		t.Fatalf("%+v %+v %v", r, u, err)
	}
	if !strings.Contains(s.last.text, "task: the OAuth redirect fails with state mismatch") {
		t.Errorf("the request does not show the summary to rewrite")
	}
}
