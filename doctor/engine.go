package doctor

import (
	"cmp"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/reflect-memory/reflect/install"
)

// installBoth is how a user installs reflect and reflect-engine together.
const installBoth = "CGO_ENABLED=0 go install github.com/reflect-memory/reflect/cmd/...@latest (installs both), or unpack both from the release archive into one directory"

// engine checks that the reflect at path (one the hooks run, or the one beside this
// reflect-engine) has reflect-engine beside it, of the same build: without it every recall
// event recalls nothing and search, drain and doctor fail; with another build, the two
// disagree on formats.
func (d *doctor) engine(path, who string) {
	eng := install.EngineBeside(path)
	fi, err := os.Stat(eng)
	if err != nil || !fi.Mode().IsRegular() {
		d.add(Finding{Check: "engine", Severity: Error, Fix: installBoth,
			Message: fmt.Sprintf("%s %s, which has no %s beside it (%s): nothing is recalled, and search, drain and doctor fail", who, path, install.EngineName, eng)})
		return
	}
	a, errA := buildinfo.ReadFile(path)
	b, errB := buildinfo.ReadFile(eng)
	switch {
	case errA != nil || errB != nil:
		// a wrapper script a user put there: present, not compared
		d.add(Finding{Check: "engine", Severity: OK,
			Message: fmt.Sprintf("%s beside %s (builds not compared: %v)", install.EngineName, path, cmp.Or(errA, errB))})
	case build(a) != build(b):
		d.add(Finding{Check: "engine", Severity: Error, Fix: installBoth,
			Message: fmt.Sprintf("%s is %s but %s beside it is %s: the two must be one build", path, build(a), eng, build(b))})
	default:
		msg := fmt.Sprintf("%s beside %s, the same build (%s)", install.EngineName, path, build(a))
		if usesCgo(a) {
			msg += "; built with cgo, so every process first loads the C library: built with CGO_ENABLED=0, as the release archives are, reflect starts 0.7 ms sooner and reflect-engine 1.0 ms"
		}
		d.add(Finding{Check: "engine", Severity: OK, Message: msg})
	}
}

// usesCgo says whether a build linked cgo (CGO_ENABLED=1 when it was built): then the
// program is dynamically linked and starts through the C library's loader.
func usesCgo(bi *debug.BuildInfo) bool {
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1"
		}
	}
	return false
}

// build names a Go build: module version, VCS state, toolchain and the flags that stamp a
// release's version.
func build(bi *debug.BuildInfo) string {
	parts := []string{bi.Main.Version}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "-ldflags", "GOOS", "GOARCH":
			parts = append(parts, s.Value)
		case "vcs.modified":
			if s.Value == "true" {
				parts = append(parts, "modified")
			}
		}
	}
	return strings.Join(append(parts, bi.GoVersion), " ")
}

// runningEngine is the path of the reflect beside this process when this process is
// reflect-engine installed beside one ("" otherwise: a test, or an engine a source checkout
// built into the user's cache).
func runningEngine() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	if filepath.Base(self) != install.EngineName {
		return ""
	}
	lean := install.LeanBeside(self)
	if _, err := os.Stat(lean); err != nil {
		return ""
	}
	return lean
}
