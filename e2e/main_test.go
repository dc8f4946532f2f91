package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// measureEnv, when set, makes the test binary a launcher (see measured): it runs the
// command the variable holds (a JSON argv), with this process's streams, and writes the
// command's peak RSS to the file named by measureOut.
const (
	measureEnv = "REFLECT_E2E_MEASURE"
	measureOut = "REFLECT_E2E_MEASURE_OUT"
)

func TestMain(m *testing.M) {
	if argv := os.Getenv(measureEnv); argv != "" {
		os.Exit(launch(argv, os.Getenv(measureOut)))
	}
	os.Exit(m.Run())
}

func launch(argv, out string) int {
	var args []string
	if err := json.Unmarshal([]byte(argv), &args); err != nil || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "launch: bad argv:", argv)
		return 125
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, measureEnv) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 125
	}
	os.WriteFile(out, []byte(strconv.FormatInt(maxRSS(cmd.ProcessState), 10)), 0o644)
	return cmd.ProcessState.ExitCode()
}

// measured runs cmd through this test binary started afresh and returns cmd's peak RSS in
// bytes (0 where the system does not say). Measured from the test process itself, a child's
// ru_maxrss starts at the test's own peak: Go starts children with vfork, and Linux carries
// the high-water mark of the memory the child shared over its exec. A 90 MB import read as
// 211 MB after TestHookStdinIsBounded had grown the test process.
func measured(t *testing.T, cmd *exec.Cmd) (int64, error) {
	t.Helper()
	argv, _ := json.Marshal(cmd.Args)
	out := filepath.Join(t.TempDir(), "rss")
	environ := cmd.Env
	if environ == nil {
		environ = os.Environ()
	}
	launcher := exec.Command(os.Args[0], "-test.run=^$")
	launcher.Env = append(append([]string{}, environ...), measureEnv+"="+string(argv), measureOut+"="+out)
	launcher.Dir, launcher.Stdin, launcher.Stdout, launcher.Stderr = cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr
	err := launcher.Run()
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("the launcher reported no RSS: %v (%v)", rerr, err)
	}
	rss, _ := strconv.ParseInt(string(data), 10, 64)
	return rss, err
}
