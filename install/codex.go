package install

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CodexHook is one command handler of a Codex hooks file, as Codex identifies it for trust.
type CodexHook struct {
	Event         string  // as in hooks.json: SessionStart, PostToolUse, …
	Matcher       *string // the group's matcher; nil when it has none
	Command       string
	Timeout       *int64 // seconds; nil when the handler sets none (Codex then uses 600)
	Async         bool
	StatusMessage *string
}

// CodexEventLabel is an event's name in Codex's hook-state keys: PostToolUse → post_tool_use.
func CodexEventLabel(event string) string {
	var b strings.Builder
	for i, c := range event {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// CodexTrustKey is the key under [hooks.state."…"] in Codex's config.toml where /hooks records
// the trust of the index-th handler of the group-th matcher group of event in the hooks file
// at path (an absolute path).
func CodexTrustKey(path, event string, group, index int) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, CodexEventLabel(event), group, index)
}

// CodexHookHash is the hash Codex compares with a handler's trusted_hash: Codex runs a handler
// only when they are equal, and /hooks writes it when the user trusts the handler. It is
// computed as Codex's hooks discovery does (codex-rs/hooks/src/engine/discovery.rs,
// command_hook_hash, and codex-rs/config's version_for_toml): the handler normalised (the
// timeout defaulted to 600 and at least 1, no Windows command) in a group of its own, with
// the event's label and the matcher of events that have one, as JSON with its keys sorted at
// every level and no whitespace; sha256 of that, "sha256:" and the hex digest. Keys whose
// value is absent are left out, as Codex's TOML step leaves out a None.
func CodexHookHash(h CodexHook) string {
	timeout := int64(600)
	if h.Timeout != nil {
		timeout = max(*h.Timeout, 1)
	}
	handler := map[string]string{
		"type":    quoteJSON("command"),
		"command": quoteJSON(h.Command),
		"timeout": strconv.FormatInt(timeout, 10),
		"async":   strconv.FormatBool(h.Async),
	}
	if h.StatusMessage != nil {
		handler["statusMessage"] = quoteJSON(*h.StatusMessage)
	}
	identity := map[string]string{
		"event_name": quoteJSON(CodexEventLabel(h.Event)),
		"hooks":      "[" + canonicalObject(handler) + "]",
	}
	if h.Matcher != nil && codexEventHasMatcher(h.Event) {
		identity["matcher"] = quoteJSON(*h.Matcher)
	}
	sum := sha256.Sum256([]byte(canonicalObject(identity)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexEventHasMatcher says whether Codex reads a matcher for event: all but UserPromptSubmit,
// Stop and Interrupt, whose matcher it ignores (and leaves out of the hash).
func codexEventHasMatcher(event string) bool {
	switch event {
	case "UserPromptSubmit", "Stop", "Interrupt":
		return false
	}
	return true
}

// canonicalObject writes an object whose values are already JSON, keys sorted, no whitespace.
func canonicalObject(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quoteJSON(k) + ":" + m[k])
	}
	b.WriteByte('}')
	return b.String()
}

// quoteJSON quotes s as serde_json does: only '"', '\' and control characters are escaped
// (encoding/json also escapes U+2028 and U+2029, which would change the hash).
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
