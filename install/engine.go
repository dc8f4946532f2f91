package install

import (
	"path/filepath"
	"runtime"
)

// EngineName is the file name of reflect-engine, which goes beside reflect: the lean reflect
// hands it the commands and hook events that need the search engine.
var EngineName = exeName("reflect-engine")

// LeanName is the file name of the lean reflect on this system, the program the hooks run.
var LeanName = exeName("reflect")

// exeName is the file name of the program name on this system.
func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// EngineBeside is where the reflect at path finds its reflect-engine: in the directory of path
// with symbolic links resolved (a link to reflect finds the engine beside the real file), never
// on PATH, where a different version could answer.
func EngineBeside(path string) string { return beside(path, EngineName) }

// LeanBeside is the lean reflect in the directory of the executable at path (an engine's),
// symbolic links resolved.
func LeanBeside(path string) string { return beside(path, LeanName) }

// beside is the file name in the directory of path, symbolic links resolved.
func beside(path, name string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	return filepath.Join(filepath.Dir(path), name)
}
