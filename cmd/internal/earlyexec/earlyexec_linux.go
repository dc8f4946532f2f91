package earlyexec

import (
	"os"
	"syscall"

	"github.com/reflect-memory/reflect/cmd/internal/engineline"
)

func init() {
	if path, ok := target(os.Executable, os.Args); ok {
		// returns only when the exec failed; Main then hands over as it would have
		syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	}
}

// engineFile is reflect-engine's file name on Linux (install.EngineName, which this package
// cannot import without initialising after it; TestEngineFile holds them equal).
const engineFile = "reflect-engine"

// target is the reflect-engine to run argv (os.Args) in: the file beside the lean reflect
// (executable: os.Executable, asked only for an engine command line, so that the lean
// reflect's own commands, every hook among them, do not pay its readlink, 0.7% of a hook in
// perf), when argv is a command line of the engine's and the executable is not itself named
// reflect-engine (a test binary answering to both names must not exec itself forever).
func target(executable func() (string, error), argv []string) (string, bool) {
	if len(argv) < 2 || !engineline.Runs(argv[1:]) {
		return "", false
	}
	self, err := executable()
	if err != nil {
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
