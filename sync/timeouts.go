package sync

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Timeouts bound a sync's talk with its remote. A zero field takes its default; a value
// above its cap is cut to the cap. They are never read from reflect.toml: that file is
// synced, and whoever can push to the remote must not be able to make every laptop wait
// longer.
type Timeouts struct {
	// Dial bounds the TCP connect (http(s), git://, ssh).
	Dial time.Duration
	// Handshake bounds the time from connecting to the remote's list of refs: TLS, ssh's key
	// exchange and authentication, git's ref advertisement.
	Handshake time.Duration
	// Idle bounds a pause: nothing received and nothing sent for this long, in any phase.
	Idle time.Duration
	// Overall bounds one sync's network work: every fetch and push of every round.
	Overall time.Duration
}

// The defaults and caps. A tester found a sync against a listener that accepts and never
// answers still waiting after 700–900 s (http, git://) and 300 s (ssh), holding the sync
// lock all that time, so every later sync gave up as busy. A remote that answers at all
// sends its refs within a second or two and, while it builds a pack, progress every 5 s
// (git's uploadpack.keepAlive), so 15 s and 30 s leave room for a slow link; 5 minutes
// carries a first clone of ~100 MB over 5 Mbit/s.
var (
	defaultTimeouts = Timeouts{Dial: 10 * time.Second, Handshake: 15 * time.Second, Idle: 30 * time.Second, Overall: 5 * time.Minute}
	maxTimeouts     = Timeouts{Dial: time.Minute, Handshake: time.Minute, Idle: 5 * time.Minute, Overall: 30 * time.Minute}
)

// TimeoutsEnv names the environment variable that sets the timeouts for tests, e.g.
// "dial=1s,handshake=2s,idle=2s,overall=20s"; what it leaves out keeps its default.
const TimeoutsEnv = "REFLECT_SYNC_TIMEOUTS"

// resolve fills t's zero fields from TimeoutsEnv, then from the defaults, and caps them.
func (t Timeouts) resolve() (Timeouts, error) {
	env, err := parseTimeouts(os.Getenv(TimeoutsEnv))
	if err != nil {
		return defaultTimeouts, err
	}
	pick := func(v, e, def, max time.Duration) time.Duration {
		switch {
		case v <= 0 && e > 0:
			v = e
		case v <= 0:
			v = def
		}
		return min(v, max)
	}
	d, m := defaultTimeouts, maxTimeouts
	return Timeouts{
		Dial:      pick(t.Dial, env.Dial, d.Dial, m.Dial),
		Handshake: pick(t.Handshake, env.Handshake, d.Handshake, m.Handshake),
		Idle:      pick(t.Idle, env.Idle, d.Idle, m.Idle),
		Overall:   pick(t.Overall, env.Overall, d.Overall, m.Overall),
	}, nil
}

func parseTimeouts(s string) (Timeouts, error) {
	var t Timeouts
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return t, fmt.Errorf("%s: %q: want a positive duration such as 10s", TimeoutsEnv, kv)
		}
		switch k {
		case "dial":
			t.Dial = d
		case "handshake":
			t.Handshake = d
		case "idle":
			t.Idle = d
		case "overall":
			t.Overall = d
		default:
			return t, fmt.Errorf("%s: unknown bound %q (dial, handshake, idle, overall)", TimeoutsEnv, k)
		}
	}
	return t, nil
}

type timeoutsKey struct{}

// withTimeouts hands t to the transports (installed in go-git, they are reached through
// go-git's fetch and list, which pass the context along and nothing else).
func withTimeouts(ctx context.Context, t Timeouts) context.Context {
	return context.WithValue(ctx, timeoutsKey{}, t)
}

// timeoutsOf is what withTimeouts put in ctx, else the resolved defaults.
func timeoutsOf(ctx context.Context) Timeouts {
	if t, ok := ctx.Value(timeoutsKey{}).(Timeouts); ok {
		return t
	}
	t, _ := Timeouts{}.resolve()
	return t
}

// timeoutError is a remote that went past one of the bounds. It is a net.Error whose
// Timeout is true, and it matches os.ErrDeadlineExceeded.
type timeoutError struct{ what string }

func (e *timeoutError) Error() string   { return "timed out: " + e.what }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return false }
func (e *timeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }
