package redact

import "testing"

// Placeholders stand for a secret without being one. Keeping them keeps a
// command or a config readable, and leaks nothing.
var placeholderCases = []string{
	`curl -H "Authorization: Bearer <your-token>" https://api.acme.dev`,
	"export GITHUB_TOKEN=${GITHUB_TOKEN}",
	`curl -H "x-api-key: $API_KEY" https://api.anthropic.com/v1/messages`,
	"password: xxx",
	"DB_PASSWORD=****",
	`"api_key": "REDACTED"`,
	"POSTGRES_PASSWORD=changeme",
	"OPENAI_API_KEY=YOUR_API_KEY_HERE",
	"git clone https://ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx@github.com/acme/x",
	"DATABASE_URL=postgres://user:password@localhost:5432/app",
	"token: {{ .Values.github.token }}",
	`{"password": null, "token": "", "secret": false}`,
	"set API_KEY=%API_KEY%",
	"password: <password>",
	"api_key = \"<insert key>\"",
	"AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX",
	"Authorization: Bearer YOUR_ACCESS_TOKEN",
	"password: ${{ secrets.DB_PASSWORD }}",
	"token = \"...\"",
	"password=[FILTERED] user=ada",
}

func TestKeepsPlaceholders(t *testing.T) { survives(t, placeholderCases) }

// markerCases are the shapes markers take in redacted text; redacting again
// must not touch them.
var markerCases = []string{
	"password: [REDACTED:password]",
	"https://deploy:[REDACTED:url-password]@pypi.acme.dev/simple/",
	"https://[REDACTED:github-token]:[REDACTED:url-password]@github.com/x",
	"Authorization: Bearer [REDACTED:bearer-token]",
	"[REDACTED:private-key]\n",
}

func TestMarkersAreNotRedactedAgain(t *testing.T) { survives(t, markerCases) }
