package drain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/handoff"
	"github.com/reflect-memory/reflect/learnings"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// ParseAnswer reads the learnings out of an extractor's answer, tolerantly: the answer may be
// bare JSON, JSON in a ``` fenced block (with or without a language), or JSON before, after or
// between prose. The JSON is an object {"learnings": [...]}, a bare array [...] of learnings,
// or a single learning object. The first candidate of that shape is used: the whole answer,
// then each fenced block, then each balanced top-level {…} or […] in the text, in order.
//
// An empty list is a valid answer: nothing was learned. Each proposal is normalised and
// checked (title required, one line, at most learnings.MaxTitleLen characters; kind and
// confidence among the allowed values, any case; confidence defaults to medium; unknown
// fields are ignored; ids that are not learning ids are dropped from duplicate_of and
// supersedes). Proposals that fail are dropped when at least one passes; when none passes,
// or when the answer holds no such JSON, the error wraps ErrBadAnswer.
func ParseAnswer(text string) ([]Proposal, error) {
	r, err := ParseReply(text)
	return r.Learnings, err
}

// ParseReply reads an answer as ParseAnswer does, and also the rewritten summary of the
// entry's handoff that the object holding the learnings may carry beside them:
// {"learnings": [...], "handoff": {"task": "…", "direction": "…", "concluded": "…"}}
// ("then" is taken for "direction"). A handoff that is absent, null, not of that shape or
// over its bounds (handoff.Summary.Check) is left out with the reason in HandoffNote: it
// never makes the learnings unusable. An object with a handoff and no learnings key has no
// learnings.
func ParseReply(text string) (Reply, error) {
	s := strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if s == "" {
		return Reply{}, fmt.Errorf("%w: the answer is empty", ErrBadAnswer)
	}
	var (
		items  []json.RawMessage
		found  bool
		sawAny bool   // some JSON value was found, but not of a learnings shape
		holder string // the JSON value the learnings were found in
	)
	try := func(raw string) bool {
		if !json.Valid([]byte(raw)) {
			return false
		}
		sawAny = true
		items, found = learningItems([]byte(raw))
		holder = raw
		return found
	}
	if !try(s) {
		for _, block := range fencedBlocks(s) {
			if try(strings.TrimSpace(block)) {
				break
			}
		}
	}
	if !found {
		scanTopJSON(s, func(raw string) bool { return !try(raw) })
	}
	if !found {
		if sawAny {
			return Reply{}, fmt.Errorf("%w: the JSON in the answer holds no learnings: %s", ErrBadAnswer, quoteAnswerHead(s))
		}
		return Reply{}, fmt.Errorf("%w: no JSON in the answer: %s", ErrBadAnswer, quoteAnswerHead(s))
	}
	var reply Reply
	reply.Handoff, reply.HandoffNote = answerSummary([]byte(holder))
	props := make([]Proposal, 0, len(items))
	var problems []string
	for i, raw := range items {
		p, err := checkProposal(raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("learning %d: %v", i+1, err))
			continue
		}
		props = append(props, p)
	}
	if len(props) == 0 && len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return Reply{}, fmt.Errorf("%w: no valid learning in the answer: %s", ErrBadAnswer, strings.Join(problems, "; "))
	}
	reply.Learnings = props
	return reply, nil
}

// answerSummary reads the "handoff" of the object that held the learnings: the summary,
// checked, or nil and why it was left out ("" when there is none).
func answerSummary(holder []byte) (*handoff.Summary, string) {
	var m map[string]json.RawMessage
	if json.Unmarshal(holder, &m) != nil {
		return nil, ""
	}
	var raw json.RawMessage
	for k, v := range m {
		if strings.EqualFold(k, "title") {
			return nil, "" // a single learning: its own fields, not the answer's
		}
		if strings.EqualFold(k, "handoff") {
			raw = v
		}
	}
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return nil, ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil, "the handoff in the answer is not an object"
	}
	var sum handoff.Summary
	for k, v := range fields {
		var dst *string
		switch strings.ToLower(k) {
		case "task":
			dst = &sum.Task
		case "direction", "then":
			dst = &sum.Direction
		case "concluded":
			dst = &sum.Concluded
		default:
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		if json.Unmarshal(v, dst) != nil {
			return nil, fmt.Sprintf("the handoff's %s in the answer is not a string", strings.ToLower(k))
		}
	}
	checked, err := sum.Check()
	if err != nil {
		return nil, err.Error()
	}
	return &checked, ""
}

// quoteAnswerHead quotes the first 200 characters of s for an error message, redacted before
// it is cut (half a token has no shape left to find).
func quoteAnswerHead(s string) string {
	const n = 200
	s = redact.String(s)
	if utf8.RuneCountInString(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(string([]rune(s)[:n])) + "…"
}

// learningItems returns the learning objects of a JSON value when it has one of the shapes
// an answer may take: {"learnings": [...]} (or "lessons", "proposals"), [{...}, ...], or one
// learning object {"title": ...}.
func learningItems(raw []byte) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '[':
		return objectList(raw)
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil, false
		}
		for _, key := range []string{"learnings", "lessons", "proposals"} {
			for k, v := range m {
				if strings.EqualFold(k, key) {
					return objectList(v)
				}
			}
		}
		for k := range m {
			if strings.EqualFold(k, "title") {
				return []json.RawMessage{raw}, true
			}
		}
		for k := range m {
			if strings.EqualFold(k, "handoff") {
				return nil, true // a handoff summary and no learning
			}
		}
	}
	return nil, false
}

// objectList decodes a JSON array whose items are all objects (or null: no learnings).
func objectList(raw []byte) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, true
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	for _, it := range list {
		if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '{' {
			return nil, false
		}
	}
	return list, true
}

// fencedBlocks returns the contents of the ``` fenced blocks of s, in order. The opening
// fence may name a language; an unclosed last block runs to the end.
func fencedBlocks(s string) []string {
	var blocks []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return blocks
		}
		s = s[i+3:]
		// the rest of the opening line is the info string (json, JSON, js, …)
		if nl := strings.IndexByte(s, '\n'); nl >= 0 && !strings.ContainsAny(s[:nl], "{[") {
			s = s[nl+1:]
		}
		end := strings.Index(s, "```")
		if end < 0 {
			return append(blocks, s)
		}
		blocks = append(blocks, s[:end])
		s = s[end+3:]
	}
}

// scanTopJSON calls yield with each balanced top-level {…} or […] of s that is valid JSON, in
// order, until yield returns false. A balanced span that is not JSON is skipped whole (what
// is nested in it is not tried); an opening bracket that is never closed is skipped alone.
// The work is bounded, so a pathological answer cannot make this quadratic without end.
func scanTopJSON(s string, yield func(raw string) bool) {
	budget := 8*len(s) + 1<<20
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], "{[")
		if j < 0 {
			return
		}
		start := i + j
		end, ok := balancedEnd(s, start, &budget)
		if budget < 0 {
			return
		}
		if !ok {
			i = start + 1
			continue
		}
		if raw := s[start:end]; json.Valid([]byte(raw)) && !yield(raw) {
			return
		}
		i = end
	}
}

// balancedEnd returns the end of the bracketed span that opens at s[start], honouring JSON
// strings and their escapes; ok is false when it is not closed properly.
func balancedEnd(s string, start int, budget *int) (end int, ok bool) {
	var stack []byte
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		*budget--
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// wireProposal is a proposal as a model may write it: lists may be a single string, global
// may be a string, ids may be null.
type wireProposal struct {
	Title       string    `json:"title"`
	Body        string    `json:"body"`
	Kind        string    `json:"kind"`
	Confidence  string    `json:"confidence"`
	Tags        looseList `json:"tags"`
	Entities    looseList `json:"entities"`
	Files       looseList `json:"files"`
	Triggers    looseList `json:"triggers"`
	Global      looseBool `json:"global"`
	DuplicateOf string    `json:"duplicate_of"`
	Supersedes  looseList `json:"supersedes"`
}

// checkProposal decodes and normalises one proposal, or says what is wrong with it.
func checkProposal(raw json.RawMessage) (Proposal, error) {
	var w wireProposal
	if err := json.Unmarshal(raw, &w); err != nil {
		return Proposal{}, fmt.Errorf("does not decode: %v", err)
	}
	p := Proposal{
		Title:    learnings.OneLine(w.Title),
		Body:     strings.TrimSpace(w.Body),
		Tags:     cleanItems(w.Tags),
		Entities: cleanItems(w.Entities),
		Files:    cleanItems(w.Files),
		Triggers: cleanItems(w.Triggers),
		Global:   bool(w.Global),
	}
	if p.Title == "" {
		return Proposal{}, fmt.Errorf("no title")
	}
	if n := utf8.RuneCountInString(p.Title); n > learnings.MaxTitleLen {
		return Proposal{}, fmt.Errorf("title is %d characters long, the limit is %d", n, learnings.MaxTitleLen)
	}
	kind, err := learnings.ParseKind(w.Kind)
	if err != nil {
		return Proposal{}, err
	}
	p.Kind = string(kind)
	p.Confidence = string(learnings.ConfidenceMedium)
	if strings.TrimSpace(w.Confidence) != "" {
		c, err := learnings.ParseConfidence(w.Confidence)
		if err != nil {
			return Proposal{}, err
		}
		p.Confidence = string(c)
	}
	p.DuplicateOf = canonicalLearningID(w.DuplicateOf)
	// An id may be both: the worker merges the proposal when it says nothing new and
	// supersedes the learning when it changes it.
	for _, id := range w.Supersedes {
		if id = canonicalLearningID(id); id != "" {
			p.Supersedes = appendUnique(p.Supersedes, id)
		}
	}
	return p, nil
}

// canonicalLearningID returns s as a learning id in its canonical form, or "" when it is not one
// (models write "none", "", "null" or invent ids).
func canonicalLearningID(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 4 && strings.EqualFold(s[:4], "lrn-") {
		s = "lrn-" + strings.ToUpper(s[4:])
	}
	if learnings.ValidID(s) {
		return s
	}
	return ""
}

// cleanItems trims the items, makes them single lines, and drops empty and repeated ones.
func cleanItems(in []string) []string {
	var out []string
	for _, s := range in {
		if s = learnings.OneLine(s); s != "" {
			out = appendUnique(out, s)
		}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}

// looseList is a JSON list of strings that also accepts null, a single string (split on
// commas) and numbers.
type looseList []string

func (l *looseList) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*l = nil
	switch v := v.(type) {
	case nil:
	case string:
		*l = strings.Split(v, ",")
	case []any:
		for _, it := range v {
			switch it := it.(type) {
			case string:
				*l = append(*l, it)
			case float64, bool:
				*l = append(*l, fmt.Sprint(it))
			}
		}
	default:
		return fmt.Errorf("want a list of strings, got %s", data)
	}
	return nil
}

// looseBool is a JSON boolean that also accepts null and the strings "true"/"false"/"yes"/"no".
type looseBool bool

func (b *looseBool) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*b = false
	case bool:
		*b = looseBool(v)
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "1":
			*b = true
		case "false", "no", "0", "":
			*b = false
		default:
			return fmt.Errorf("want true or false, got %q", v)
		}
	default:
		return fmt.Errorf("want true or false, got %s", data)
	}
	return nil
}
