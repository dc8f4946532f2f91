package redact

import "testing"

// A shell line continuation (a backslash ending the line) splits a command over lines; a
// shell reads one word where a line scan sees two halves. A secret split so is replaced
// whole, the continuation with it.
var continuationCases = []positive{
	{name: "token header split in a curl command",
		in:      "curl -H \"Authorization: token ghp_\\\n" + ghp[4:] + "\" https://api.github.com/user",
		want:    "curl -H \"Authorization: token [REDACTED:github-token]\" https://api.github.com/user",
		secrets: []string{ghp[4:]}},
	{name: "token split with CRLF",
		in:      "export GITHUB_TOKEN=ghp_u8jzPde0IgxL\\\r\nd6GncfBAepfJBd0Kh8oOOL8d\r\n",
		want:    "export GITHUB_TOKEN=[REDACTED:github-token]\r\n",
		secrets: []string{"d6GncfBAepfJBd0Kh8oOOL8d"}},
	{name: "a secret on a line of its own beside a continuation stays one match",
		in:      "aws configure set aws_access_key_id " + awsKeyID + " \\\n  --profile dev",
		want:    "aws configure set aws_access_key_id [REDACTED:aws-access-key] \\\n  --profile dev",
		secrets: []string{awsKeyID}},
}

func TestContinuations(t *testing.T) { redactsTo(t, continuationCases) }

// Continuations that join no secret are left as they are.
var continuationProse = []string{
	"make migrate \\\n  DB=dev \\\n  VERBOSE=1",
	"docker run --rm \\\n  -v \"$PWD:/src\" \\\n  golang:1.23 go test ./...",
	"curl -H \"Authorization: Bearer $GITHUB_TOKEN\" \\\n  https://api.github.com/user",
	"a path on Windows ends in a backslash: C:\\\nthen a new line",
	"git log --oneline \\\n  --since=2.weeks \\\n  -- cmd/reflect",
	"printf '%s\\\\\n' done",
}

func TestKeepsContinuations(t *testing.T) { survives(t, continuationProse) }
