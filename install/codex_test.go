package install

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestCodexHookHash(t *testing.T) {
	str := func(s string) *string { return &s }
	ten := int64(10)
	cases := []struct {
		name string
		hook CodexHook
		want string
	}{
		// A value Codex wrote: the trusted_hash recorded by /hooks for the Stop handler of
		// warpdotdev/codex-warp's plugin (hooks/hooks.json at f11334d), copied from a live
		// machine's config.toml.
		{"recorded by Codex", CodexHook{Event: "Stop", Command: "${PLUGIN_ROOT}/scripts/on-stop.sh"},
			"sha256:6a3b3af655efa426e920425de93a830fe25b8b5a62ef7b9a699e7ff40d9ef351"},
		// The same identity spelled out: the timeout defaulted to 600, Stop's matcher ignored.
		{"explicit default timeout", CodexHook{Event: "Stop", Matcher: str("*"), Timeout: func() *int64 { n := int64(600); return &n }(),
			Command: "${PLUGIN_ROOT}/scripts/on-stop.sh"},
			"sha256:6a3b3af655efa426e920425de93a830fe25b8b5a62ef7b9a699e7ff40d9ef351"},
		// sha256 of {"event_name":"session_start","hooks":[{"async":false,"command":"/usr/local/bin/reflect hook codex","timeout":10,"type":"command"}]}
		{"reflect's SessionStart", CodexHook{Event: "SessionStart", Command: "/usr/local/bin/reflect hook codex", Timeout: &ten},
			"sha256:" + sha256hex(`{"event_name":"session_start","hooks":[{"async":false,"command":"/usr/local/bin/reflect hook codex","timeout":10,"type":"command"}]}`)},
		{"matcher and status message", CodexHook{Event: "PreToolUse", Matcher: str("^Bash$"), Command: `say "hi"`, Timeout: &ten, StatusMessage: str("checking")},
			"sha256:" + sha256hex(`{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"say \"hi\"","statusMessage":"checking","timeout":10,"type":"command"}],"matcher":"^Bash$"}`)},
	}
	for _, tc := range cases {
		if got := CodexHookHash(tc.hook); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := CodexTrustKey("/h/.codex/hooks.json", "PostToolUse", 1, 0); got != "/h/.codex/hooks.json:post_tool_use:1:0" {
		t.Errorf("key %q", got)
	}
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
