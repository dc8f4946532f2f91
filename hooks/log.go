package hooks

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"

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
	return openLogAt(filepath.Join(r.StateDir(), "log"), false)
}

// OpenLogStaying is OpenLog for a process that stays (a resident engine): each line opens the
// file, so that it follows a rotation by another process and holds no descriptor between lines.
func OpenLogStaying(r *gitstore.Repo) *slog.Logger {
	return openLogAt(filepath.Join(r.StateDir(), "log"), true)
}

// userLogDir is where hooks log when there is no repository to log into.
func userLogDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "reflect")
}

// openLogAt is the log in dir; each: the file is opened for each line (a process that stays).
func openLogAt(dir string, each bool) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("REFLECT_DEBUG") == "1" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewJSONHandler(&logFile{dir: dir, each: each}, &slog.HandlerOptions{Level: level}))
}

// logFile is the log's file, opened (and rotated) by its first write: most hook events log
// nothing, and opening it (a stat for the rotation, an open to append) was ~0.04 ms of each.
type logFile struct {
	dir  string
	each bool // open (and close) the file for each line
	once sync.Once
	w    io.Writer
}

func (l *logFile) Write(p []byte) (int, error) {
	if l.each {
		f := l.open()
		if f == nil {
			return len(p), nil
		}
		defer f.Close()
		return f.Write(p)
	}
	l.once.Do(func() {
		l.w = io.Discard
		if f := l.open(); f != nil {
			l.w = f // closed when the process exits
		}
	})
	return l.w.Write(p)
}

// open opens the log to append, rotating it first when it is over logMax; nil when it cannot.
func (l *logFile) open() *os.File {
	path := filepath.Join(l.dir, "reflect.log")
	if err := os.MkdirAll(l.dir, 0o755); l.dir == "" || err != nil {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > logMax {
		for i := logKeep - 1; i >= 1; i-- {
			os.Rename(path+"."+strconv.Itoa(i), path+"."+strconv.Itoa(i+1))
		}
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil
	}
	return f
}
