package e2e

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestEarlyHandOff: on Linux the lean reflect hands an engine command to reflect-engine while
// its packages initialise (package earlyexec), not from Main after all of them: 2.9 ms of a
// 21 ms history search. Go's init trace shows it: two processes trace the runtime's init, and
// only the second, reflect-engine, gets as far as package cli (earlyexec's own line never
// prints: its init does not return). Handed over from Main, cli would be traced by both. A
// command of the lean reflect's own runs there in full.
func TestEarlyHandOff(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the early hand-off is Linux's")
	}
	bin := reflectBin(t)
	environ := env(t)
	home := initRepo(t, environ)
	trace := func(args ...string) string {
		c := exec.Command(bin, args...)
		c.Env = append(environ, "GODEBUG=inittrace=1")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("reflect %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	const rt, cli = "init runtime ", "init github.com/reflect-memory/reflect/cmd/internal/cli "
	out := trace("--home", home, "search", "--global", "anything")
	if p, n := strings.Count(out, rt), strings.Count(out, cli); p != 2 || n != 1 {
		t.Errorf("reflect search: %d processes, package cli initialised in %d; want 2 and 1 (reflect-engine)\n%s", p, n, out)
	}
	if !strings.Contains(out, "no learnings match") {
		t.Errorf("reflect search did not run:\n%s", out)
	}
	out = trace("--home", home, "version")
	if p, n := strings.Count(out, rt), strings.Count(out, cli); p != 1 || n != 1 {
		t.Errorf("reflect version: %d processes, package cli initialised in %d; want 1 and 1\n%s", p, n, out)
	}
}
