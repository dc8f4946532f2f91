package resident

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// identity: Windows has no resident engine (every recall hook starts reflect-engine).
func identity(string) (string, error) { return "", errors.New("no resident engine on Windows") }

// Ask: Windows has no resident engine.
func Ask(context.Context, string, Request, []byte) ([]byte, error) { return nil, ErrAbsent }

// supported: Windows has no resident engine.
const supported = false

// Listening: Windows has no resident engine.
func Listening(string) bool { return false }

// Umask: Windows has none.
func Umask() int { return 0 }

// Serve: Windows has no resident engine; nothing is served.
func Serve(context.Context, string, string, func() time.Duration, *slog.Logger, func(), Handler) (bool, error) {
	return false, nil
}
