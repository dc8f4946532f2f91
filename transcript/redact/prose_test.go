package redact

import "testing"

// Words for secrets in ordinary sentences are not secrets.
var proseCases = []string{
	"Rate limiting uses the token bucket algorithm: each request takes one token.",
	"The password reset flow sends a link that expires after 15 minutes.",
	"Password: must be at least 12 characters and contain a digit.",
	"Rotate the client secret every 90 days and store it in Vault, not in the repo.",
	"Bearer tokens are passed in the Authorization header; Basic auth is disabled.",
	"The API key is read from the environment at startup.",
	"Token: expired, so the CLI asked me to log in again.",
	"The secret sauce is the private key rotation, which we do weekly.",
	"I checked the credentials file and the auth section is empty.",
	"Use `gh auth token` to print the current token, never paste it here.",
	"We store only the key id and the fingerprint of the SSH key, not the key.",
}

func TestKeepsProse(t *testing.T) { survives(t, proseCases) }
