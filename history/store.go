package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// record is one message in a store: line n of sessions/<stream>.jsonl is the message of
// seq n, so a window is read without an index of offsets. Every string has been redacted.
type record struct {
	Seq   int       `json:"seq"`
	Role  string    `json:"role"`
	Kind  string    `json:"kind"`
	Tool  string    `json:"tool,omitempty"`
	Input string    `json:"input,omitempty"`
	Text  string    `json:"text,omitempty"`
	Error bool      `json:"error,omitempty"`
	Exit  *int      `json:"exit,omitempty"`
	Time  time.Time `json:"ts,omitzero"`
	Side  bool      `json:"side,omitempty"`
	Call  string    `json:"call,omitempty"`
	// Proc is the Codex process of a command polled until it exited (transcript's
	// Message.Process): what joins the result of polls read by a later import to its call.
	Proc string `json:"proc,omitempty"`
}

// Message kinds and roles as a store and the output name them.
const (
	roleUser      = "user"
	roleAssistant = "assistant"
	roleTool      = "tool"
	kindText      = "text"
	kindCall      = "tool_call"
	kindResult    = "tool_result"
)

// class is what a hit on the record weighs, in one letter (it is part of the document id,
// so a search ranks without loading anything else): u a person's prompt, e a failed tool
// result, r a tool result, c a tool call, a the assistant (or a subagent's prompt).
func (r *record) class() byte {
	switch {
	case r.Role == roleUser && !r.Side:
		return 'u'
	case r.Kind == kindResult && r.Error:
		return 'e'
	case r.Kind == kindResult:
		return 'r'
	case r.Kind == kindCall:
		return 'c'
	}
	return 'a'
}

// searchable is the text a record is found by: the tool name, its input and its text.
func (r *record) searchable() string {
	switch {
	case r.Tool == "" && r.Input == "":
		return r.Text
	case r.Input == "":
		return r.Tool + "\n" + r.Text
	}
	return r.Tool + "\n" + r.Input + "\n" + r.Text
}

// maxStored bounds what a store keeps of one text: its first and last half. Tool outputs of
// several MB are normal; what a search shows of a message is a few hundred characters, and
// the index should not pay for a log nobody reads in full.
const maxStored = 64 << 10

// clip keeps the first and last max/2 bytes of s (on rune boundaries) with a marker between.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max/2, max/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	cut := utf8.RuneCountInString(s[head:from])
	return s[:head] + "\n[… " + strconv.Itoa(cut) + " chars not kept …]\n" + s[from:]
}

// appendStore cuts the store of stream back to size (an import that died may have left
// more) and appends recs; it returns the store's new size and where each record's line ends.
func (a *Archive) appendStore(stream string, size int64, recs []record) (int64, []int64, error) {
	p := a.storePath(stream)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return 0, nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	ends := make([]int64, len(recs))
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return 0, nil, err
		}
		ends[i] = size + int64(buf.Len())
	}
	if _, err := f.WriteAt(buf.Bytes(), size); err != nil {
		return 0, nil, err
	}
	return size + int64(buf.Len()), ends, nil
}

// removeStore deletes a stream's store and its sums.
func (a *Archive) removeStore(stream string) error {
	if err := a.removeSums(stream); err != nil {
		return err
	}
	err := os.Remove(a.storePath(stream))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// storeLines is a store read into memory, line by line (undecoded).
type storeLines [][]byte

// readStore reads the lines of a stream's store, at most n of them.
func (a *Archive) readStore(stream string, n int) (storeLines, error) {
	data, err := os.ReadFile(a.storePath(stream))
	if err != nil {
		return nil, err
	}
	return splitStore(data, n, nil), nil
}

// readStoreInto is readStore into buf and lines, reused from call to call (what it returns
// is valid until the next call): a search confirms hits in tens of stores, and a fresh buffer
// for each faulted in new pages for every byte read.
func (a *Archive) readStoreInto(stream string, n int, buf []byte, lines storeLines) ([]byte, storeLines, error) {
	f, err := os.Open(a.storePath(stream))
	if err != nil {
		return buf, lines, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return buf, lines, err
	}
	size := int(fi.Size())
	if cap(buf) < size {
		buf = make([]byte, size+size/4)
	}
	k, err := io.ReadFull(f, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return buf, lines, err
	}
	return buf, splitStore(buf[:k], n, lines[:0]), nil
}

// splitStore cuts data into at most n lines, appended to lines.
func splitStore(data []byte, n int, lines storeLines) storeLines {
	if lines == nil {
		lines = make(storeLines, 0, n)
	}
	for len(data) > 0 && len(lines) < n {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // a line an import was still writing
		}
		lines = append(lines, data[:i])
		data = data[i+1:]
	}
	return lines
}

// get decodes the record of seq; ok is false when the store does not have it.
func (l storeLines) get(seq int) (record, bool) {
	var r record
	if seq < 0 || seq >= len(l) || json.Unmarshal(l[seq], &r) != nil || r.Seq != seq {
		return record{}, false
	}
	return r, true
}

// findCall returns the tool name of the call with id callID in lines, searching backwards.
func (l storeLines) findCall(callID string) string {
	key := []byte(`"call":` + quote(callID))
	for i := len(l) - 1; i >= 0; i-- {
		if bytes.Contains(l[i], key) {
			if r, ok := l.get(i); ok && r.Kind == kindCall && r.Call == callID {
				return r.Tool
			}
		}
	}
	return ""
}

// findProc returns the call id of the latest result of Codex process proc in lines.
func (l storeLines) findProc(proc string) string {
	key := []byte(`"proc":` + quote(proc))
	for i := len(l) - 1; i >= 0; i-- {
		if bytes.Contains(l[i], key) {
			if r, ok := l.get(i); ok && r.Kind == kindResult && r.Proc == proc && r.Call != "" {
				return r.Call
			}
		}
	}
	return ""
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// oneLine collapses whitespace runs to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
