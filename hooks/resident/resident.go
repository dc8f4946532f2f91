// Package resident lets the lean reflect hand a hook that needs the engine (a recall, an
// opencode capture) to a reflect-engine that stayed after the last one, instead of starting
// reflect-engine for every prompt.
//
// A recall hook through a fresh reflect-engine pays two process start-ups, the engine's with
// bleve's package initialisation: 16.9 ms for a UserPromptSubmit at 10,000 learnings where
// `reflect version` takes 4.1 ms, while the hook's own work in process is 1.4 ms
// (BenchmarkRecallHook). So the engine that answers a memory's recall stays
// (`reflect-engine internal resident`, recall.resident after the last hook) and listens on a
// unix socket under the memory's state directory; the lean hook asks it (Ask) and prints what
// it answers, and starts a reflect-engine only when none listens.
//
// The engine answers as the process the hook would have started: in the hook's working
// directory, with its environment and umask (Serve applies them, one hook at a time), within
// the hook's deadline. The socket's name holds the engine executable's identity (device,
// inode, size, modification time), the user and TZ: a reinstalled reflect-engine is a new
// name, so an old engine is never asked again (it leaves at its next look when its file was
// replaced, after recall.resident when an old version's file stays). The socket's directory
// is the user's alone (0700); on Linux, macOS and FreeBSD the engine also refuses a peer of
// another user.
//
// Nothing is lost or done twice between the two: the engine acknowledges a hook with one byte
// once it has read all of it and before it begins; a hook that gets no acknowledgement (the
// engine left, or was killed, before it read it) was not run and is handed to a new process
// (ErrAbsent); one that was acknowledged is never run again, whatever happens next.
package resident

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/reflect-memory/reflect/internal/leave"
)

// Every is how often a resident engine with nothing to answer looks whether it should leave:
// four stats (the engine's file, the state directory, the socket, the leave file).
const Every = 100 * time.Millisecond

// maxSocketPath bounds a socket's path: sun_path holds 108 bytes on Linux and 104 on macOS
// and the BSDs. A memory deeper than that has no resident engine.
const maxSocketPath = 100

// maxHeader bounds a request's header (a hook's environment is most of it).
const maxHeader = 1 << 20

// MaxOutput bounds what a hook handed to reflect-engine prints (one small JSON object), whether
// a resident engine or a child answers it; more is an error.
const MaxOutput = 1 << 20

// maxPayload bounds the payload a request carries (hooks bound theirs at 4 MB).
const maxPayload = 8 << 20

// ErrAbsent is a hook no resident engine took: none listens, or the one listening left or
// died before it read the hook. The hook was not run; the caller runs it another way.
var ErrAbsent = errors.New("no resident reflect-engine")

// ErrBusy is a hook the resident engine handed back unrun, busy with another past busyWait:
// the caller runs it another way and starts no engine (one listens). It is ErrAbsent.
var ErrBusy = fmt.Errorf("%w took it: busy with another hook", ErrAbsent)

// Request is one hook handed to a resident engine: what the process it stands for would have
// had, besides its standard input (the payload, which follows the header).
type Request struct {
	Harness string `json:"harness"`
	Event   string `json:"event,omitempty"`
	// Cwd, Env and Umask are the hook's, applied while the engine answers it.
	Cwd   string   `json:"cwd"`
	Env   []string `json:"env"`
	Umask int      `json:"umask"`
	// Began is when the hook began, in Unix nanoseconds: its deadline counts from there, not
	// from the hand-off. (A time.Time would be encoded in the local zone, and loading the
	// zone's file was 0.3 ms of the hook.)
	Began int64 `json:"began"`
	// Deadline is when the hook gives up waiting for the answer, in Unix nanoseconds.
	Deadline int64 `json:"deadline"`
	// Size is the payload's length in bytes.
	Size int `json:"size"`
}

// Handler runs one hook: payload is its standard input, what it writes to out its output.
// ctx ends at the hook's deadline. What it returns, when not nil, runs once the answer is
// written (the background work the hook starts: starting a process took ~0.5 ms the hook's
// process waited for).
type Handler func(ctx context.Context, req Request, payload []byte, out io.Writer) (then func())

// Dir is where the sockets and locks of a memory's resident engines are, under its state
// directory (.git/reflect).
func Dir(stateDir string) string { return filepath.Join(stateDir, "resident") }

// Socket is the socket a resident run of the executable at engine listens on for the memory
// at stateDir, and the lock it holds while it does; ok is false when there can be none (the
// executable cannot be read, or the path would be too long for a socket).
func Socket(stateDir, engine string) (sock, lock string, ok bool) {
	id, err := identity(engine)
	if err != nil {
		return "", "", false
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00uid=%d\x00TZ=%s", id, os.Getuid(), os.Getenv("TZ"))))
	base := filepath.Join(Dir(stateDir), hex.EncodeToString(sum[:8]))
	if len(base)+len(".sock") > maxSocketPath {
		return "", "", false
	}
	return base + ".sock", base + ".lock", true
}

// Leave asks the resident engines of the memory to leave, at their next look (every Every),
// after the hook under way; while it stands, an engine started to stay leaves at once (package
// leave). The returned function lets engines stay again.
func Leave(stateDir string) (stay func(), err error) { return leave.Ask(Dir(stateDir)) }

// asked says whether Leave asks the memory's engines to leave.
func asked(stateDir string) bool { return leave.Asked(Dir(stateDir)) }

// State is what reflect status and reflect doctor say of the engine that stays for a memory.
type State struct {
	// Is: listening (an engine stays and answers), none (none stays now; the next recall
	// hook starts one), off (recall.resident 0) or unavailable (this platform has none).
	Is    string        `json:"state"`
	Stays time.Duration `json:"stays_ns"` // how long one stays after the last hook (recall.resident)
}

// Look reports the State of the resident engine for the memory whose state directory is
// stateDir, which stays idle (recall.resident) after its last hook.
func Look(stateDir string, idle time.Duration) State {
	st := State{Is: "none", Stays: idle}
	switch {
	case !supported:
		st.Is = "unavailable"
	case idle <= 0:
		st.Is = "off"
	case Listening(stateDir):
		st.Is = "listening"
	}
	return st
}

// String says st in a sentence.
func (st State) String() string {
	switch st.Is {
	case "unavailable":
		return "this platform has none: every recall hook starts reflect-engine"
	case "off":
		return "off (recall.resident 0): every recall hook starts reflect-engine"
	case "listening":
		return fmt.Sprintf("a reflect-engine stays to answer recall hooks; it leaves %v after the last (recall.resident)", st.Stays)
	}
	return fmt.Sprintf("none stays now: the next recall hook starts a reflect-engine, which stays %v after the last (recall.resident)", st.Stays)
}
