package history

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/reflect-memory/reflect/transcript"
)

// A Gemini CLI session file is not read from an offset: Gemini writes a message again, whole,
// each time it changes, rewinds, replaces the list, and before v0.39 rewrote the one JSON
// file whole (transcript/gemini.go). It is read again from the start, but only what changed
// is stored and indexed again: each message a store keeps has a sum beside it, in
// sessions/<stream>.sums, and the records a new read makes are compared with them in order.
// The records up to the first that differs stay as they are (their store lines, their
// documents); from there on the old ones are removed and the new ones added. A turn appended
// to a session of 2,000 messages so replaces the one or two messages Gemini wrote again, where
// dropping and adding the whole session took 140–190 ms in BenchmarkImportGeminiTurn.
//
// The sum is of the message as the transcript holds it, before redaction, so that the
// messages that did not change are not redacted again: it is 8 bytes of a SHA-256, in a
// file that stays on this machine beside the transcript it is a sum of, which holds the
// text itself, unredacted.

// sum is one kept message of a stream: the sum of what it was made of, where its line ends
// in the store, the class its document id carries.
type sum struct {
	hash  uint64
	end   int64
	class byte
}

const sumSize = 17

func (a *Archive) sumsPath(stream string) string {
	return filepath.Join(a.storesDir(), stream+".sums")
}

// readSums reads the sums of a stream of n messages whose store is size bytes; ok is false
// when the file does not match them (missing, from an import that died, from before sums
// were kept), and the stream is then read again whole.
func (a *Archive) readSums(stream string, n int, size int64) ([]sum, bool) {
	if n == 0 && size == 0 {
		return nil, true // nothing stored yet (a session without a message kept)
	}
	data, err := os.ReadFile(a.sumsPath(stream))
	if err != nil || len(data) != n*sumSize {
		return nil, false // (exactly: an import that died between the sums and the state leaves more or fewer)
	}
	out := make([]sum, n)
	prev := int64(0)
	for i := range out {
		b := data[i*sumSize:]
		out[i] = sum{hash: binary.LittleEndian.Uint64(b), end: int64(binary.LittleEndian.Uint64(b[8:])), class: b[16]}
		if out[i].end <= prev {
			return nil, false
		}
		prev = out[i].end
	}
	if n > 0 && out[n-1].end != size || n == 0 && size != 0 {
		return nil, false
	}
	return out, true
}

// writeSums keeps the first keep sums of a stream and appends add.
func (a *Archive) writeSums(stream string, keep int, add []sum) error {
	f, err := os.OpenFile(a.sumsPath(stream), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(int64(keep * sumSize)); err != nil {
		return err
	}
	buf := make([]byte, 0, len(add)*sumSize)
	for _, s := range add {
		buf = binary.LittleEndian.AppendUint64(buf, s.hash)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(s.end))
		buf = append(buf, s.class)
	}
	_, err = f.WriteAt(buf, int64(keep*sumSize))
	return err
}

func (a *Archive) removeSums(stream string) error {
	err := os.Remove(a.sumsPath(stream))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// sumsKept reports whether the streams of a harness keep sums.
func sumsKept(h transcript.Harness) bool { return h == transcript.HarnessGemini }

// hashRecord sums a record before redaction: every field a store keeps of it. buf is
// scratch space, returned for the next call.
func hashRecord(r *record, buf []byte) (uint64, []byte) {
	b := buf[:0]
	for _, s := range []string{r.Role, r.Kind, r.Tool, r.Input, r.Text, r.Call, r.Proc} {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = strconv.AppendBool(b, r.Error)
	b = strconv.AppendBool(b, r.Side)
	if r.Exit != nil {
		b = strconv.AppendInt(append(b, 'x'), int64(*r.Exit), 10)
	}
	h := sha256.Sum256(b)
	return binary.LittleEndian.Uint64(h[:]), b
}
