package redact

import "testing"

// Short flags that carry a password in one program and something else in
// every other: -p is a port, a path, a patch; -u a user or an upstream.
// Only mysql's attached -pSECRET, sshpass -p and curl -u user:pass count.
var flagCases = []string{
	"docker run -p 8080:80 -p 5432:5432 postgres:16",
	"mkdir -p internal/auth && ssh -p 2222 deploy@10.0.0.5",
	"git add -p && git push -u origin fix/checkout-tests",
	"mysql -h db.internal -u root -p shop",
	"docker run -u 1000:1000 -v $PWD:/src golang:1.26 go test ./...",
	"curl -u admin https://registry.acme.dev/v2/_catalog",
	"curl -u \"$USER:$PASS\" https://api.acme.dev",
	"sqlplus /nolog @setup.sql",
	"pytest -p no:cacheprovider -k token",
	"docker login -u bob --password-stdin < ~/.docker-token",
}

func TestKeepsOtherFlags(t *testing.T) { survives(t, flagCases) }
