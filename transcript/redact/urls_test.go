package redact

import "testing"

// URLs without credentials, ssh remotes and e-mail-like strings.
var urlCases = []string{
	"https://github.com/acme/auth-service/pull/42",
	"git@github.com:acme/auth.git",
	"ssh://git@github.com/acme/auth.git",
	"scp build.tar.gz deploy@10.0.0.5:/srv/releases/",
	"http://localhost:8080/api/invite?email=ada@acme.dev",
	"https://registry.npmjs.org/@types/node/-/node-22.10.1.tgz",
	"http://[::1]:3000/healthz",
	"postgres://localhost:5432/app?sslmode=disable",
	"https://hooks.slack.com/services/",
	"https://example.com/login?next=/dashboard&token_type=id",
	"npm install @webshop/cart@1.4.2 --save",
	"Contact ada@acme.dev or see https://acme.dev/docs#auth",
	"https://oauth2.googleapis.com/token",
	"redirect_uri=https://app.acme.dev/callback&state=xyz",
}

func TestKeepsURLs(t *testing.T) { survives(t, urlCases) }
