package hooks

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/reflect-memory/reflect/gitstore"
)

// The log of what hooks did and what went wrong: JSON lines under .git/reflect/log, rotated
// at logMax bytes with logKeep old files, so it never grows without bound.
const (
	logMax  = 1 << 20
	logKeep = 3
)

// OpenLog returns the logger of the repository's log: hooks, and the work they start
// detached with no stream to report on, write to it.
func OpenLog(r *gitstore.Repo) *slog.Logger {
	return openLogAt(filepath.Join(r.StateDir(), "log"))
}

// userLogDir is where hooks log when there is no repository to log into.
func userLogDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "reflect")
}

func openLogAt(dir string) *slog.Logger {
	path := filepath.Join(dir, "reflect.log")
	var w io.Writer = io.Discard
	if err := os.MkdirAll(dir, 0o755); dir != "" && err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Size() > logMax {
			for i := logKeep - 1; i >= 1; i-- {
				os.Rename(path+"."+strconv.Itoa(i), path+"."+strconv.Itoa(i+1))
			}
			os.Rename(path, path+".1")
		}
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			w = f // closed when the process exits, a few milliseconds later
		}
	}
	level := slog.LevelInfo
	if os.Getenv("REFLECT_DEBUG") == "1" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}
