package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/queue"
)

// Status is what the status line shows: what the last hook of this session did and how
// much waits in the queue.
type Status struct {
	Recalled int    `json:"recalled"` // by the last recall of this session
	Learned  string `json:"learned,omitempty"`
	Queued   int    `json:"queued"` // pending captures
	Failed   int    `json:"failed"` // captures the drain gave up on
	Error    string `json:"error,omitempty"`
	// LLMCalls and LLMCap are today's calls of a model by the drain and their daily cap
	// (0: none), shown once the drain has called one today.
	LLMCalls int `json:"llm_calls"`
	LLMCap   int `json:"llm_cap,omitempty"`
}

// ReadStatus reads last-event.json (when it is about session, or session is unknown) and
// counts the queue from HEAD's tree without reading any entry.
func ReadStatus(r *gitstore.Repo, session string) Status {
	var st Status
	if data, err := r.ReadState("last-event.json"); err == nil && data != nil {
		var rep report
		if json.Unmarshal(data, &rep) == nil && (session == "" || rep.Session == session) {
			st.Recalled, st.Learned, st.Error = rep.Recalled, rep.Learned, rep.Error
		}
	}
	st.Queued, st.Failed, _ = queue.Count(r)
	return st
}

// Line renders the status as one short fragment, e.g. "🧠 3 recalled · 1 queued".
func (s Status) Line() string {
	parts := []string{fmt.Sprintf("%d recalled", s.Recalled), fmt.Sprintf("%d queued", s.Queued)}
	if s.Learned != "" {
		parts = append(parts, "learned 1")
	}
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	}
	if s.Error != "" {
		parts = append(parts, "hook error")
	}
	if s.LLMCalls > 0 {
		if s.LLMCap > 0 {
			parts = append(parts, fmt.Sprintf("LLM %d/%d", s.LLMCalls, s.LLMCap))
		} else {
			parts = append(parts, fmt.Sprintf("LLM %d", s.LLMCalls))
		}
	}
	return "🧠 " + strings.Join(parts, " · ")
}
