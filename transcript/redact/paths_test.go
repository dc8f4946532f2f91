package redact

import "testing"

// Paths to secrets are not secrets, and versions are not either.
var pathCases = []string{
	"PWD=/home/ada/src/webshop\nOLDPWD=/home/ada",
	"credentials: ~/.aws/credentials",
	"private_key_path=/etc/ssl/private/server.key",
	"token_file: /var/run/secrets/kubernetes.io/serviceaccount/token",
	`"private_key": "keys/deploy.pem"`,
	"ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5",
	"go 1.26.8\nrequire github.com/go-git/go-git/v5 v5.19.3",
	`"version": "2.1.7", "node": ">=20.11.0"`,
	"/home/ada/.config/gh/hosts.yml: oauth_token is stored in the keyring",
	"internal/auth/token_store.go:42: undefined: tokenStore",
}

func TestKeepsPathsAndVersions(t *testing.T) { survives(t, pathCases) }
