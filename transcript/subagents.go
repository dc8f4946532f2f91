package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Subagent is a Claude Code subagent's transcript file.
type Subagent struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// maxSiblings bounds the old-style agent files Subagents opens to read their session id.
// Claude Code 2.0 wrote one or two "Warmup" agent files beside every session's file, so a
// project folder of a long-used machine holds thousands; only those written since the
// capture's start are candidates, and of those the newest maxSiblings are opened.
const maxSiblings = 256

// Subagents lists the transcripts of the subagents of the Claude Code session whose file is
// path, modified at or after since (the zero time: all), newest first. Claude Code 2.1
// keeps them in <dir>/<session>/subagents/agent-<agentId>.jsonl (workflows one folder
// deeper, subagents/workflows/<wf>/); 2.0 wrote <dir>/agent-<agentId>.jsonl beside the
// session file, each naming its parent in sessionId, which is read from its first line.
// A folder that does not exist is no error.
func Subagents(path string, since time.Time) ([]Subagent, error) {
	dir := filepath.Dir(path)
	session := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	var out []Subagent
	add := func(p string, fi fs.FileInfo) {
		if fi.Mode().IsRegular() && !fi.ModTime().Before(since) {
			out = append(out, Subagent{Path: p, Size: fi.Size(), ModTime: fi.ModTime()})
		}
	}
	sub := filepath.Join(dir, session, "subagents")
	for _, pattern := range []string{filepath.Join(sub, "agent-*.jsonl"), filepath.Join(sub, "workflows", "*", "agent-*.jsonl")} {
		matches, _ := filepath.Glob(pattern) // the only error is a bad pattern
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil {
				add(m, fi)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var siblings []Subagent
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			continue
		}
		siblings = append(siblings, Subagent{Path: filepath.Join(dir, name), Size: fi.Size(), ModTime: fi.ModTime()})
	}
	newestFirst(siblings)
	if len(siblings) > maxSiblings {
		siblings = siblings[:maxSiblings]
	}
	for _, sb := range siblings {
		if firstSessionID(sb.Path) == session {
			out = append(out, sb)
		}
	}
	newestFirst(out)
	return out, nil
}

func newestFirst(s []Subagent) {
	sort.SliceStable(s, func(i, j int) bool {
		if !s[i].ModTime.Equal(s[j].ModTime) {
			return s[i].ModTime.After(s[j].ModTime)
		}
		return s[i].Path < s[j].Path
	})
}

// firstSessionID is the sessionId of the first line of a Claude Code transcript, or "".
func firstSessionID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return ""
	}
	s := scanner{b: trimBOM(bytes.TrimSpace(line))}
	if s.peek() != '{' {
		return ""
	}
	it := s.object()
	for k, more := it.next(); more; k, more = it.next() {
		if string(k) == "sessionId" {
			id, _ := s.str()
			return id
		}
		s.skip()
	}
	return ""
}
