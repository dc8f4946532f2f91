package earlyexec

import (
	"os"
	"syscall"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
)

func init() {
	if len(os.Args) < 2 || !engineline.Runs(os.Args[1:]) {
		return // the lean reflect's own command: not even os.Executable's readlink (0.7% of a hook in perf)
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	if path, ok := target(self, os.Args); ok {
		// returns only when the exec failed; Main then hands over as it would have
		syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	}
}

// engineFile is reflect-engine's file name on Linux (install.EngineName, which this package
// cannot import without initialising after it; TestEngineFile holds them equal).
const engineFile = "reflect-engine"

// target is the reflect-engine to run argv (os.Args) in, for the lean reflect at self: the
// file beside self, when argv is a command line of the engine's and self is not itself
// named reflect-engine (a test binary answering to both names must not exec itself forever).
func target(self string, argv []string) (string, bool) {
	if len(argv) < 2 || !engineline.Runs(argv[1:]) {
		return "", false
	}
	dir := len(self)
	for dir > 0 && self[dir-1] != '/' {
		dir--
	}
	if dir == 0 || self[dir:] == engineFile {
		return "", false
	}
	return self[:dir] + engineFile, true
}
