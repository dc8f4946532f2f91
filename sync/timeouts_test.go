package sync

import (
	"strings"
	"testing"
	"time"
)

func TestTimeoutsResolve(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		in, want  Timeouts
		err       string
	}{
		{name: "defaults", want: defaultTimeouts},
		{name: "options shorten", in: Timeouts{Idle: time.Second}, want: Timeouts{Dial: 10 * time.Second, Handshake: 15 * time.Second, Idle: time.Second, Overall: 5 * time.Minute}},
		{name: "capped", in: Timeouts{Dial: time.Hour, Handshake: time.Hour, Idle: time.Hour, Overall: 24 * time.Hour}, want: maxTimeouts},
		{name: "environment", env: "handshake=2s, overall=1m", want: Timeouts{Dial: 10 * time.Second, Handshake: 2 * time.Second, Idle: 30 * time.Second, Overall: time.Minute}},
		{name: "options before environment", env: "idle=2s", in: Timeouts{Idle: 3 * time.Second}, want: Timeouts{Dial: 10 * time.Second, Handshake: 15 * time.Second, Idle: 3 * time.Second, Overall: 5 * time.Minute}},
		{name: "environment capped", env: "overall=100h", want: Timeouts{Dial: 10 * time.Second, Handshake: 15 * time.Second, Idle: 30 * time.Second, Overall: 30 * time.Minute}},
		{name: "unknown bound", env: "connect=1s", err: `unknown bound "connect"`},
		{name: "not a duration", env: "idle=soon", err: `"idle=soon": want a positive duration`},
		{name: "negative", env: "idle=-1s", err: "want a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(TimeoutsEnv, tc.env)
			got, err := tc.in.resolve()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), TimeoutsEnv) {
					t.Fatalf("want an error with %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
