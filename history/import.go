package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reflect-memory/reflect/opencode"
	"github.com/reflect-memory/reflect/transcript"
	"github.com/reflect-memory/reflect/transcript/redact"
)

// ImportOptions say which transcripts an import reads.
type ImportOptions struct {
	// ClaudeDir is Claude Code's projects folder (~/.claude/projects), CodexDir Codex's
	// sessions folder (~/.codex/sessions); "" skips one. Both are walked for *.jsonl.
	ClaudeDir, CodexDir string
	// GeminiDir is Gemini CLI's ~/.gemini/tmp (its chats/ folders are read), CopilotDir
	// Copilot CLI's ~/.copilot/session-state, CursorDir Cursor's ~/.cursor/projects (its
	// agent-transcripts/ folders are read); "" skips one.
	GeminiDir, CopilotDir, CursorDir string
	// OpencodeMirrors is where opencode's sessions are mirrored as JSON lines (package
	// opencode), from its database OpencodeDB and its older storage OpencodeStorage; the
	// sessions changed since Since are mirrored first, then the mirrors are read as
	// transcripts. "" skips opencode.
	OpencodeMirrors, OpencodeDB, OpencodeStorage string
	// Files, when set, are the only transcripts read (the Stop hook's one transcript);
	// the folders are not walked and Since does not apply.
	Files []string
	// Since: files last changed before it are left alone. Zero: every file.
	Since time.Time
	// LimitFiles > 0 reads at most that many new or changed files, the most recently
	// changed first; the others wait for the next import.
	LimitFiles int
	// LockTimeout bounds the wait for another import (and for a search holding the index).
	LockTimeout time.Duration
	// Progress, when set, is told how many of the files to read have been read.
	Progress func(done, total int)
	// Log gets a warning for every file with a line over transcript.MaxLine (skipped, the
	// rest of the file imported); nil logs nothing.
	Log *slog.Logger
}

// Report says what an import did.
type Report struct {
	// Folders are the hosts' folders walked for transcripts (none with explicit files).
	Folders   []Folder `json:"folders"`
	Found     int      `json:"found"`     // transcript files found
	Older     int      `json:"older"`     // found, but last changed before --since-days
	Unchanged int      `json:"unchanged"` // nothing new since the last import
	Read      int      `json:"read"`      // files read: new, grown or rewritten
	New       int      `json:"new"`
	Grown     int      `json:"grown"`
	Rewritten int      `json:"rewritten"` // changed before the point the last import stopped: read again whole
	Replaced  int      `json:"replaced"`  // messages removed because their file changed them (a Gemini message written again, a rewind)
	Deferred  int      `json:"deferred"`  // changed, left for a later import by --limit-files
	Sessions  int      `json:"sessions"`  // sessions that got new messages
	Messages  int      `json:"messages"`  // messages added
	Bytes     int64    `json:"bytes"`     // transcript bytes read
	// SkippedFiles were not imported, each with the reason.
	SkippedFiles []SkippedFile `json:"skipped_files"`
	// SkippedLines counts, by reason, the lines of imported files that could not be used.
	SkippedLines map[string]int `json:"skipped_lines"`
	// FirstSkippedLine is where the first of them is (the first file read that had one),
	// so that the user can look; nil when none was skipped.
	FirstSkippedLine *LineRef `json:"first_skipped_line,omitempty"`
	// SkippedLineFiles counts the imported files that had a line skipped.
	SkippedLineFiles int `json:"skipped_line_files,omitempty"`
	// Torn are files whose last line was still being written: read up to the line before,
	// the rest is read by the next import.
	Torn []string `json:"torn"`
	// Reindexed counts messages indexed again from the stores (the index was missing).
	Reindexed int `json:"reindexed,omitempty"`
	// The archive after the import.
	TotalSessions int     `json:"total_sessions"`
	TotalMessages int     `json:"total_messages"`
	Seconds       float64 `json:"seconds"`
}

// Folder is a folder an import looked in for transcripts: how many it found there, or that
// the folder is not there.
type Folder struct {
	Path    string `json:"path"`
	Files   int    `json:"files"`
	Missing bool   `json:"missing,omitempty"`
}

// LineRef is a line of a file, numbered from 1 among its non-blank lines.
type LineRef struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

// SkippedFile is a transcript an import could not use.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// headBytes is how much of a file's start is hashed to tell an appended file from a
// rewritten one.
const headBytes = 4096

// job is one file an import reads.
type job struct {
	path string
	info fs.FileInfo
	prev *fileState // nil: never read
	from int64      // offset to read from
	// rewrite: the file changed before where the last import stopped; what was read of
	// it is dropped and it is read again whole
	rewrite bool
	// diff: a Gemini CLI session read again whole, whose stored messages are kept up to
	// the first that changed (sums.go); sums are theirs
	diff bool
	sums []sum
}

// Import reads what is new in the transcripts into the archive, under the import lock: a
// file already read is read from where the last import stopped, a rewritten one again
// whole, and a file that cannot be read is reported and left out. The messages are
// redacted before they are written anywhere.
func (a *Archive) Import(ctx context.Context, o ImportOptions) (*Report, error) {
	start := time.Now()
	unlock, err := a.takeLock(ctx, o.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := a.loadState()
	if err != nil {
		return nil, err
	}
	rep := &Report{Folders: []Folder{}, SkippedFiles: []SkippedFile{}, SkippedLines: map[string]int{}, Torn: []string{}}
	if o.OpencodeMirrors != "" && len(o.Files) == 0 {
		if _, err := opencode.MirrorAll(ctx, o.OpencodeDB, o.OpencodeStorage, o.OpencodeMirrors, o.Since); err != nil {
			// a database opencode is migrating, or one of another version: the rest is imported
			rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{o.OpencodeDB, "cannot read opencode's sessions: " + err.Error()})
		}
	}
	jobs, err := a.plan(st, o, rep)
	if err != nil {
		return nil, err
	}
	changed := false
	// rewritten files first lose what was read of them, in the stores and in the index
	var drop []string
	for _, j := range jobs {
		if j.rewrite && j.prev.Stream != "" {
			drop = append(drop, j.prev.Stream)
		}
	}
	// a build of the index leaves out those and the streams a diff reads (it indexes what
	// they keep: replaceFrom)
	unbuilt := slices.Clone(drop)
	for _, j := range jobs {
		if j.diff {
			unbuilt = append(unbuilt, j.prev.Stream)
		}
	}
	w, err := a.openWriter(st, unbuilt, o.LockTimeout, rep)
	if err != nil {
		return nil, err
	}
	for _, name := range drop {
		if err := a.dropStream(st, name, w); err != nil {
			w.abort()
			return nil, err
		}
		changed = true
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	touched := map[string]bool{}
	var runErr error
	var storePath func(stream string) string
	if len(jobs) > 0 && os.MkdirAll(a.storesDir(), 0o755) == nil {
		storePath = a.storePath // (when it fails, appendStore reports it)
	}
	next, stop := readAhead(jobs, storePath)
	defer stop()
	for i, j := range jobs {
		if err := ctx.Err(); err != nil {
			runErr = err
			break
		}
		n, err := a.importFile(st, j, next(i), w, rep, touched, o.Log)
		if err != nil {
			runErr = err
			break
		}
		changed = changed || n
		if o.Progress != nil {
			o.Progress(i+1, len(jobs))
		}
	}
	rep.Sessions = len(touched)
	if runErr != nil {
		// keep what was read: the state names only what reached the stores, and a build
		// left unfinished is made again from the stores by the next import
		w.abort()
		if changed {
			st.Generation++
			a.save(st)
		}
		return rep, runErr
	}
	if err := w.close(ctx); err != nil {
		return rep, err
	}
	if _, cerr := os.Stat(a.catalogPath()); changed || w.built || cerr != nil {
		st.Generation++
		if err := a.save(st); err != nil {
			return rep, err
		}
	}
	for _, s := range st.Sessions {
		rep.TotalSessions++
		rep.TotalMessages += s.Messages
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// plan finds the transcripts and decides, for each, whether and from where to read it.
func (a *Archive) plan(st *state, o ImportOptions, rep *Report) ([]job, error) {
	var paths []string
	explicit := len(o.Files) > 0
	if explicit {
		for _, p := range o.Files {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			paths = append(paths, abs)
			// a Claude Code session's subagents write beside it, in <session>/subagents/
			agents, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(abs, ".jsonl"), "subagents", "*.jsonl"))
			paths = append(paths, agents...)
		}
	} else {
		for _, f := range []struct {
			root string
			keep func(path string) bool
		}{{o.ClaudeDir, jsonlFile}, {o.CodexDir, jsonlFile}, {o.GeminiDir, geminiFile}, {o.CopilotDir, copilotFile},
			{o.CursorDir, cursorFile}, {o.OpencodeMirrors, jsonlFile}} {
			root := f.root
			if root == "" {
				continue
			}
			found, err := walkTranscripts(root, f.keep)
			if err != nil {
				return nil, err
			}
			paths = append(paths, found...)
			abs, _ := filepath.Abs(root)
			_, err = os.Stat(abs)
			rep.Folders = append(rep.Folders, Folder{Path: abs, Files: len(found), Missing: errors.Is(err, fs.ErrNotExist)})
		}
	}
	var jobs []job
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			reason := "not a regular file"
			if err != nil {
				reason = "cannot read it: " + unwrapPath(err)
			}
			rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{p, reason})
			continue
		}
		rep.Found++
		prev := st.Files[p]
		if !explicit && !o.Since.IsZero() && info.ModTime().Before(o.Since) {
			rep.Older++
			continue
		}
		j := job{path: p, info: info, prev: prev}
		if prev != nil {
			if info.Size() == prev.Size && info.ModTime().Equal(prev.ModTime) {
				rep.Unchanged++
				continue
			}
			if j.rewrite = rewritten(p, info.Size(), prev); !j.rewrite {
				j.from = prev.Offset
			}
			if prev.Harness == string(transcript.HarnessGemini) && prev.Stream != "" {
				// Gemini CLI writes a message again when it changes, rewinds and replaces
				// the list: what was read of it may be wrong now, so it is read again whole,
				// and what changed is stored again (sums.go); without sums that match the
				// store, it is dropped and stored again whole
				j.from, j.rewrite = 0, true
				if strm := st.Streams[prev.Stream]; strm != nil {
					if sums, ok := a.readSums(prev.Stream, strm.Messages, strm.Bytes); ok {
						j.diff, j.sums, j.rewrite = true, sums, false
					}
				}
			}
		}
		jobs = append(jobs, j)
	}
	if o.LimitFiles > 0 && len(jobs) > o.LimitFiles {
		sort.SliceStable(jobs, func(i, k int) bool { return jobs[i].info.ModTime().After(jobs[k].info.ModTime()) })
		rep.Deferred = len(jobs) - o.LimitFiles
		jobs = jobs[:o.LimitFiles]
	}
	sort.Slice(jobs, func(i, k int) bool { return jobs[i].path < jobs[k].path })
	return jobs, nil
}

// walkTranscripts lists the files under root that keep keeps (none when root does not exist).
func walkTranscripts(root string, keep func(path string) bool) ([]string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == abs && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			if d != nil && d.IsDir() && p != abs {
				return filepath.SkipDir // unreadable folder: the rest is still imported
			}
			return nil
		}
		if d.Type().IsRegular() && keep(p) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// rewritten reports whether a file changed before the point the last import read up to:
// it is shorter than that, or its first bytes differ.
func rewritten(path string, size int64, prev *fileState) bool {
	if size < prev.Offset || size < prev.HeadLen {
		return true
	}
	h, _, err := headHash(path, prev.HeadLen)
	return err != nil || h != prev.Head
}

// headHash hashes the first n bytes of a file (fewer if it is shorter).
func headHash(path string, n int64) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	got, err := io.Copy(h, io.LimitReader(f, n))
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), got, nil
}

// dropStream removes what was read of a rewritten file: its documents, its store, its
// share of its session.
func (a *Archive) dropStream(st *state, name string, w *writer) error {
	strm := st.Streams[name]
	if strm == nil {
		return nil
	}
	if !w.building() {
		lines, err := a.readStore(name, strm.Messages)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for seq := range lines {
			if r, ok := lines.get(seq); ok {
				if err := w.delete(docID(name, seq, r.class())); err != nil {
					return err
				}
			}
		}
	}
	if err := a.removeStore(name); err != nil {
		return err
	}
	if s := st.Sessions[strm.Session]; s != nil {
		s.Messages -= strm.Messages
		s.Streams = without(s.Streams, name)
		if len(s.Streams) == 0 {
			delete(st.Sessions, strm.Session)
		}
	}
	delete(st.Streams, name)
	for _, f := range st.Files {
		if f.Stream == name {
			f.Stream = ""
		}
	}
	return nil
}

// errStoreDamaged: a store shorter than its sums say.
var errStoreDamaged = errors.New("the archive's store of this session cannot be read as its sums say")

// importDiff stores again the records of a stream that its file changed (rd.at), removes
// those it no longer holds, and adds the new ones: their documents, their lines in the
// store (from the first change on, the lines that did not change copied as they are) and
// their sums. When the index is being built, the records kept are indexed from the store
// (openWriter left the stream out).
func (a *Archive) importDiff(strm *Stream, sess *Session, old []sum, rd *fileRead, w *writer, rep *Report, touched map[string]bool) (bool, error) {
	n, total := strm.Messages, rd.total
	first := total // the first record that changes
	if len(rd.at) > 0 {
		first = rd.at[0]
	}
	if total < n && total < first {
		first = total
	}
	if w.building() && first > 0 {
		lines, err := a.readStore(strm.Name, first)
		if err != nil {
			return false, fmt.Errorf("read the store of %s: %w", strm.Name, err)
		}
		for seq := range lines {
			if r, ok := lines.get(seq); ok {
				if err := w.index(strm.Name, &r, sess.Project); err != nil {
					return false, err
				}
				rep.Reindexed++
			}
		}
	}
	if first >= n && first >= total {
		return true, nil // nothing the store keeps changed (a $set, a line Gemini did not keep): the file's state did
	}
	startAt := int64(0)
	if first > 0 {
		startAt = old[first-1].end
	}
	// the old lines from first on, to copy those that did not change
	var tail []byte
	if first < n {
		f, err := os.Open(a.storePath(strm.Name))
		if err != nil {
			return false, fmt.Errorf("%w: %s: %v", errStoreDamaged, strm.Name, err)
		}
		tail = make([]byte, strm.Bytes-startAt)
		_, err = f.ReadAt(tail, startAt)
		f.Close()
		if err != nil {
			return false, fmt.Errorf("%w: %s: %v", errStoreDamaged, strm.Name, err)
		}
	}
	changed := make(map[int]int, len(rd.at)) // position → index in rd.recs
	for k, i := range rd.at {
		changed[i] = k
	}
	replaced := 0
	for seq := first; seq < n; seq++ {
		if _, ok := changed[seq]; ok || seq >= total {
			replaced++
			if !w.building() {
				if err := w.delete(docID(strm.Name, seq, old[seq].class)); err != nil {
					return false, err
				}
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	sums := make([]sum, 0, total-first)
	for seq := first; seq < total; seq++ {
		k, ok := changed[seq]
		if !ok { // as it was: its line copied, its document left
			from := int64(0)
			if seq > 0 {
				from = old[seq-1].end
			}
			buf.Write(tail[from-startAt : old[seq].end-startAt])
			sums = append(sums, sum{hash: old[seq].hash, end: startAt + int64(buf.Len()), class: old[seq].class})
			continue
		}
		r := &rd.recs[k]
		r.Seq = seq
		if err := enc.Encode(r); err != nil {
			return false, err
		}
		sums = append(sums, sum{hash: rd.sums[k], end: startAt + int64(buf.Len()), class: r.class()})
	}
	f, err := os.OpenFile(a.storePath(strm.Name), os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		if err = f.Truncate(startAt); err == nil {
			_, err = f.WriteAt(buf.Bytes(), startAt)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return false, fmt.Errorf("write the store of %s: %w", strm.Name, err)
	}
	if err := a.writeSums(strm.Name, first, sums); err != nil {
		return false, fmt.Errorf("write the sums of %s: %w", strm.Name, err)
	}
	if _, ok := changed[rd.prompt]; ok || rd.prompt < 0 {
		sess.Prompt = ""
		if ok {
			sess.Prompt = clipRunes(oneLine(rd.recs[changed[rd.prompt]].Text), 200)
		}
	}
	for k := range rd.recs {
		if err := w.indexRead(strm.Name, &rd.recs[k], rd.bodies[k], sess.Project); err != nil {
			return false, err
		}
	}
	strm.Messages, strm.Bytes = total, startAt+int64(buf.Len())
	sess.Messages += total - n
	rep.Messages += len(rd.recs)
	rep.Replaced += replaced
	touched[sess.Key] = true
	return true, nil
}

func without(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// importFile reads one transcript from j.from on and adds its new messages. It reports
// whether the archive changed; a file that cannot be used is reported, not an error.
func (a *Archive) importFile(st *state, j job, rd *fileRead, w *writer, rep *Report, touched map[string]bool, log *slog.Logger) (bool, error) {
	s, err := rd.s, rd.err
	if err != nil {
		reason := "cannot read it: " + unwrapPath(err)
		if errors.Is(err, transcript.ErrUnknownHarness) {
			reason = "not a transcript of a host reflect reads"
			// remembered, so that it is not reported again until it changes
			st.Files[j.path] = &fileState{Size: j.info.Size(), ModTime: j.info.ModTime()}
		}
		rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{j.path, reason})
		return true, nil
	}
	if j.diff && rd.total == 0 && len(j.sums) > 0 && (s.Torn || s.Skipped > 0) {
		// a session that no longer reads as one (overwritten, half written, not JSON):
		// the archive keeps what it holds of it, and the file is read again next time
		reason := "no usable line (" + reasons(s.SkipReasons) + "), first at line " + strconv.Itoa(s.FirstSkip)
		if s.Skipped == 0 {
			reason = "not valid JSON at its end: it is being written"
		}
		rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{j.path, reason + "; the archive keeps the " +
			strconv.Itoa(len(j.sums)) + " messages read of it before"})
		return false, nil
	}
	rep.Read++
	switch {
	case j.prev == nil:
		rep.New++
	case j.rewrite, j.diff && rd.replaces(len(j.sums)):
		rep.Rewritten++
	default:
		rep.Grown++
	}
	rep.Bytes += s.End - j.from
	if n := s.SkipReasons[transcript.SkipLongLine]; n > 0 {
		log.Warn("transcript lines over the bound skipped; the rest of the file is imported",
			"path", j.path, "lines", n, "bound_bytes", transcript.MaxLine)
	}
	if s.Torn {
		rep.Torn = append(rep.Torn, j.path)
	}
	fst := &fileState{Harness: string(s.Harness), Size: j.info.Size(), ModTime: j.info.ModTime(), Offset: s.End}
	if j.prev != nil && !j.rewrite {
		fst.Stream = j.prev.Stream
		if !j.diff { // (a diff read the file whole)
			fst.Lines, fst.Skipped = j.prev.Lines, j.prev.Skipped
		}
	}
	readBefore := fst.Lines // the lines of the file before where this read started
	fst.Lines += s.Lines
	fst.Skipped += s.Skipped
	if rd.headErr != nil {
		return false, rd.headErr
	}
	fst.Head, fst.HeadLen = rd.head, rd.headLen
	defer func() { st.Files[j.path] = fst }()
	if s.Lines > 0 && s.Skipped == s.Lines && fst.Stream == "" {
		rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{j.path, "no usable line (" + reasons(s.SkipReasons) + ")"})
		return true, nil
	}
	for k, n := range s.SkipReasons {
		rep.SkippedLines[k] += n
	}
	if s.FirstSkip > 0 {
		rep.SkippedLineFiles++
		if rep.FirstSkippedLine == nil {
			rep.FirstSkippedLine = &LineRef{j.path, readBefore + s.FirstSkip}
		}
	}
	recs := rd.recs
	if len(recs) == 0 && fst.Stream == "" {
		return true, nil
	}
	if fst.Stream == "" {
		fst.Stream = a.newStream(st, s, j.path)
	}
	strm := st.Streams[fst.Stream]
	sess := st.Sessions[strm.Session]
	a.updateSession(sess, s, j)
	if j.diff {
		ok, err := a.importDiff(strm, sess, j.sums, rd, w, rep, touched)
		if errors.Is(err, errStoreDamaged) {
			// the store is not what its sums say (removed, cut short by hand): nothing is
			// changed now, and the next import reads the file again whole
			rep.SkippedFiles = append(rep.SkippedFiles, SkippedFile{j.path, err.Error() + "; it is read again whole by the next import"})
			fst.Size = -1
			return true, a.removeSums(strm.Name)
		}
		return ok, err
	}
	if len(recs) == 0 {
		return true, nil
	}
	var lines storeLines // read once, when a result's call lies in an earlier import
	calls := map[string]string{}
	for i := range recs {
		r := &recs[i]
		r.Seq = strm.Messages + i
		switch {
		case r.Kind == kindCall && r.Call != "":
			calls[r.Call] = r.Tool
		case r.Kind == kindResult && r.Call == "" && r.Proc != "":
			// the polls of a command an earlier import stored (transcript folds them into
			// one result when it reads both): joined to that command's call
			if lines == nil {
				lines, _ = a.readStore(strm.Name, strm.Messages)
				if lines == nil {
					lines = storeLines{}
				}
			}
			r.Call = lines.findProc(r.Proc)
		case r.Kind == kindResult && r.Tool == "" && r.Call != "":
			if t, ok := calls[r.Call]; ok {
				r.Tool = t
				break
			}
			if lines == nil {
				lines, _ = a.readStore(strm.Name, strm.Messages)
				if lines == nil {
					lines = storeLines{}
				}
			}
			r.Tool = lines.findCall(r.Call)
		}
		if sess.Prompt == "" && r.Role == roleUser && r.Kind == kindText && !r.Side {
			sess.Prompt = clipRunes(oneLine(r.Text), 200)
		}
	}
	size, ends, err := a.appendStore(strm.Name, strm.Bytes, recs)
	if err != nil {
		return false, fmt.Errorf("write the store of %s: %w", strm.Name, err)
	}
	if rd.sums != nil {
		add := make([]sum, len(recs))
		for i := range recs {
			add[i] = sum{hash: rd.sums[i], end: ends[i], class: recs[i].class()}
		}
		if err := a.writeSums(strm.Name, strm.Messages, add); err != nil {
			return false, fmt.Errorf("write the sums of %s: %w", strm.Name, err)
		}
	}
	for i := range recs {
		if err := w.indexRead(strm.Name, &recs[i], rd.bodies[i], sess.Project); err != nil {
			return false, err
		}
	}
	strm.Messages += len(recs)
	strm.Bytes = size
	sess.Messages += len(recs)
	rep.Messages += len(recs)
	touched[sess.Key] = true
	return true, nil
}

// keep turns a read into the records a store keeps: no system lines, no thinking, no empty
// messages; every string redacted, then clipped. With sums (a harness whose streams keep
// them), each record is also summed before redaction (hashRecord), and a record whose sum is
// old's at its place is not returned, nor redacted: the store keeps it as it is. at then
// says where in the stream each record returned goes, total how many the file holds now,
// and prompt where the first of a person's prompts is (-1: none).
func keep(s *transcript.Session, withSums bool, old []sum) (recs []record, sums []uint64, at []int, total, prompt int) {
	prompt = -1
	for _, m := range s.Messages {
		if m.Role == transcript.RoleSystem || m.Kind == transcript.KindThinking {
			continue
		}
		if strings.TrimSpace(m.Text) == "" && strings.TrimSpace(m.ToolInput) == "" && m.Kind != transcript.KindToolCall {
			continue
		}
		r := record{
			Role: string(m.Role), Kind: string(m.Kind), Tool: m.ToolName, Input: m.ToolInput, Text: m.Text,
			Error: m.IsError, Exit: m.ExitCode, Side: m.Sidechain, Call: m.CallID, Proc: m.Process,
		}
		if !m.Timestamp.IsZero() {
			r.Time = m.Timestamp.UTC()
		}
		if prompt < 0 && r.Role == roleUser && r.Kind == kindText && !r.Side {
			prompt = len(recs)
		}
		recs = append(recs, r)
	}
	total = len(recs)
	if withSums {
		sums = make([]uint64, len(recs))
		var buf []byte
		for i := range recs {
			sums[i], buf = hashRecord(&recs[i], buf)
		}
		if old != nil {
			n := 0
			at = make([]int, 0, 8)
			for i := range recs {
				if i < len(old) && old[i].hash == sums[i] {
					continue
				}
				recs[n], sums[n] = recs[i], sums[i]
				at = append(at, i)
				n++
			}
			recs, sums = recs[:n], sums[:n]
		}
	}
	for i := range recs {
		r := &recs[i]
		r.Input, r.Text = clip(redact.String(r.Input), maxStored), clip(redact.String(r.Text), maxStored)
	}
	return recs, sums, at, total, prompt
}

// newStream names the store of a file read for the first time and files it under its
// session: <harness>-<session id>, plus the subagent's name for a Claude subagent file,
// plus a hash of the path when another file already has that name (a copy, a fork).
func (a *Archive) newStream(st *state, s *transcript.Session, path string) string {
	id, key, agent, name := streamName(s, path)
	if other := st.Streams[name]; other != nil && other.Path != path {
		sum := sha256.Sum256([]byte(path))
		name += "-" + hex.EncodeToString(sum[:4])
	}
	st.Streams[name] = &Stream{Name: name, Session: key, Agent: agent, Path: path}
	sess := st.Sessions[key]
	if sess == nil {
		sess = &Session{Key: key, Harness: string(s.Harness), ID: id}
		st.Sessions[key] = sess
	}
	sess.Streams = append(sess.Streams, name)
	sort.Strings(sess.Streams)
	return name
}

// streamName is the session id, session key, subagent and store name of a file read for the
// first time, before newStream looks for another file of that name.
func streamName(s *transcript.Session, path string) (id, key, agent, name string) {
	id = s.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	key = string(s.Harness) + "-" + id
	base := filepath.Base(path)
	if strings.HasPrefix(base, "agent-") || strings.Contains(filepath.ToSlash(path), "/subagents/") {
		agent = strings.TrimSuffix(base, ".jsonl")
	}
	name = safeName(key)
	if agent != "" {
		name += "-" + safeName(agent)
	}
	return id, key, agent, name
}

// updateSession takes what a read says of its session: directory, project, branch, times.
func (a *Archive) updateSession(sess *Session, s *transcript.Session, j job) {
	if s.CWD != "" && (sess.CWD == "" || sess.Project == "") {
		sess.CWD = s.CWD
		sess.Project = ProjectOf(s.CWD, s.Remote)
	}
	if sess.Project == "" {
		sess.Project = ProjectOf("", s.Remote)
	}
	if s.Branch != "" {
		sess.Branch = s.Branch
	}
	started, updated := s.Started, s.Updated
	if updated.IsZero() {
		started, updated = j.info.ModTime(), j.info.ModTime() // no timestamps (old Codex): the file's
	}
	if sess.Started.IsZero() || started.Before(sess.Started) {
		sess.Started = started.UTC()
	}
	if updated.After(sess.Updated) {
		sess.Updated = updated.UTC()
	}
}

// safeName keeps [A-Za-z0-9._-] and turns anything else into '-'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
}

// clipRunes keeps the first n characters of s, with "…" when it cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// reasons renders skip reasons: "malformed json ×3, no record type ×1".
func reasons(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// unwrapPath drops the path a *PathError repeats: the report names the file already.
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
