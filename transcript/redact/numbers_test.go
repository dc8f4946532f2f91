package redact

import "testing"

// Numbers joined by colons: times, durations, ratios, ports, file:line:col
// positions and ids. A Telegram bot token is digits, a colon and 35 bytes;
// none of these has the 35 bytes.
var numberCases = []string{
	"the standup moved to 12:30; the deploy window is 22:00-23:30 UTC",
	"2026-11-21T09:14:02.118Z took 00:01:42.5 (1:42 min)",
	"aspect ratio 16:9, scale 1:50000, odds 3:1",
	"docker run -p 127.0.0.1:8080:80 -p 5432:5432 postgres:16",
	"internal/auth/token_store.go:1234:17: undefined: tokenStore",
	"urn:isbn:9780134190440 and urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
	"chat_id=123456789:topic 42, message 987654321:edited",
	"1700000000:deploy-finished-with-warnings-for-staging",
	`{"update_id":870154312,"message":{"message_id":12,"chat":{"id":123456789},"text":"/start"}}`,
	"IPv6 [2001:db8::1]:443 and MAC 00:1a:2b:3c:4d:5e",
}

func TestKeepsNumbersWithColons(t *testing.T) { survives(t, numberCases) }
