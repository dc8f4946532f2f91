package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// openAI asks a model served over HTTP with OpenAI's chat-completions API: Ollama,
// llama.cpp's server, LM Studio and vLLM on this machine, or a hosted endpoint. The URL is
// the API's base (…/v1); the model is drain.model; the key, when the endpoint needs one, is
// read from the environment variable drain.key_env names — never from a file.
type openAI struct {
	name, endpoint string
	opts           LLMOptions
	client         *http.Client
}

// OpenAI is the extractor drain.extractor = "openai:URL" names.
func OpenAI(base string, o LLMOptions) Extractor {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultLLMTimeout
	}
	return &openAI{name: "openai:" + base, endpoint: strings.TrimRight(base, "/") + "/chat/completions", opts: o,
		client: &http.Client{Timeout: timeout}}
}

func (x *openAI) Name() string { return x.name }
func (x *openAI) LLM() bool    { return true }

type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	Stream      bool          `json:"stream"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

func (x *openAI) Extract(ctx context.Context, in Input) ([]Proposal, Usage, error) {
	r, u, err := x.Reply(ctx, in)
	return r.Learnings, u, err
}

// Reply is the whole answer: the learnings and the rewritten handoff summary when asked.
func (x *openAI) Reply(ctx context.Context, in Input) (Reply, Usage, error) {
	prompt := BuildPrompt(in)
	usage := Usage{InputTokens: len(prompt) / 4}
	body, err := json.Marshal(chatRequest{Model: x.opts.Model, Temperature: 0,
		Messages: []chatMessage{{Role: "user", Content: prompt}}})
	if err != nil {
		return Reply{}, usage, fmt.Errorf("%s: encoding the request: %w", x.name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.endpoint, bytes.NewReader(body))
	if err != nil {
		return Reply{}, usage, fmt.Errorf("%s: %w: %v", x.name, ErrPause, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if name := x.opts.KeyEnv; name != "" {
		key := os.Getenv(name)
		if key == "" {
			return Reply{}, usage, fmt.Errorf("%s: %w: $%s (drain.key_env) is empty; export the API key in it", x.name, ErrPause, name)
		}
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := x.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, usage, fmt.Errorf("%s: %w", x.name, ctx.Err())
		}
		return Reply{}, usage, fmt.Errorf("%s: %w: %s after %s", x.name, ErrTransient, redactKey(err.Error(), x.opts.KeyEnv), time.Since(start).Round(time.Millisecond))
	}
	defer resp.Body.Close()
	usage.Calls = 1
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxStdout+1))
	if err != nil {
		return Reply{}, usage, fmt.Errorf("%s: %w: reading the answer: %v", x.name, ErrTransient, err)
	}
	if len(data) > maxStdout {
		return Reply{}, usage, fmt.Errorf("%s: %w: the answer is longer than %d bytes", x.name, ErrBadAnswer, maxStdout)
	}
	var cr chatResponse
	jerr := json.Unmarshal(data, &cr)
	if resp.StatusCode != http.StatusOK {
		usage.InputTokens = 0 // a refused request read nothing: a call, no tokens
		return Reply{}, usage, x.httpFailure(resp.StatusCode, cr, data)
	}
	if jerr != nil {
		return Reply{}, usage, fmt.Errorf("%s: %w: the response is not chat-completions JSON: %s", x.name, ErrBadAnswer, quoteAnswerHead(string(data)))
	}
	if cr.Usage != nil && cr.Usage.PromptTokens > 0 {
		usage.InputTokens = cr.Usage.PromptTokens // what the endpoint counted, not our estimate
	}
	if len(cr.Choices) == 0 {
		return Reply{}, usage, fmt.Errorf("%s: %w: the response has no choices", x.name, ErrBadAnswer)
	}
	reply, err := ParseReply(cr.Choices[0].Message.Content)
	if err != nil {
		return Reply{}, usage, fmt.Errorf("%s: %w", x.name, err)
	}
	return reply, usage, nil
}

// httpFailure classifies an answer that is not 200: the key or the account needs a person
// (401, 402, 403, a 429 about quota or billing, a model the endpoint does not have) — LLM
// draining pauses; a rate limit, an overloaded or failing server is tried again.
func (x *openAI) httpFailure(status int, cr chatResponse, data []byte) error {
	said := strings.TrimSpace(string(data))
	if cr.Error != nil {
		said = strings.TrimSpace(cr.Error.Type + " " + fmt.Sprint(cr.Error.Code) + " " + cr.Error.Message)
	}
	low := strings.ToLower(said)
	class := ErrTransient
	switch {
	case status == http.StatusUnauthorized, status == http.StatusPaymentRequired, status == http.StatusForbidden:
		class = ErrPause
	case status == http.StatusTooManyRequests && (strings.Contains(low, "quota") || strings.Contains(low, "billing") || strings.Contains(low, "credit")):
		class = ErrPause
	case status == http.StatusNotFound:
		class = ErrPause // no such endpoint or model: drain.extractor or drain.model is wrong
	case status == http.StatusBadRequest:
		class = ErrBadAnswer // the endpoint refused the request (context too long, a bad field)
	}
	return fmt.Errorf("%s: %w: HTTP %d%s", x.name, class, status, failDetail(redactKey(said, x.opts.KeyEnv)))
}

// redactKey keeps the key out of an error that quotes what the endpoint said.
func redactKey(s, env string) string {
	if env == "" {
		return s
	}
	if key := os.Getenv(env); len(key) >= 8 {
		return strings.ReplaceAll(s, key, "[REDACTED:api-key]")
	}
	return s
}
