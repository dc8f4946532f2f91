package redact

import "testing"

// A registry or cloud login takes its password as -p or --password, a flag that means a
// port, a path or a patch everywhere else: docker, podman, nerdctl, helm and az read it
// only after their "login" operand.
var loginShapes = []positive{
	{"docker login -u -p", "docker login -u me -p Hunter2Sup3rPass registry.acme.dev",
		"docker login -u me -p [REDACTED:password] registry.acme.dev", []string{"Hunter2Sup3rPass"}},
	{"docker login -p=", "docker login -u me -p=Hunter2Sup3rPass",
		"docker login -u me -p=[REDACTED:password]", []string{"Hunter2Sup3rPass"}},
	{"docker login attached -p", "docker login -u me -pHunter2Sup3rPass ghcr.io",
		"docker login -u me -p[REDACTED:password] ghcr.io", []string{"Hunter2Sup3rPass"}},
	{"docker login --password=", "sudo docker login --username me --password=Hunter2Sup3rPass ghcr.io",
		"sudo docker login --username me --password=[REDACTED:password] ghcr.io", []string{"Hunter2Sup3rPass"}},
	{"podman login quoted", "podman login -u me -p 'W1nter!2026' quay.io && podman push app",
		"podman login -u me -p '[REDACTED:password]' quay.io && podman push app", []string{"W1nter!2026"}},
	{"nerdctl login", "nerdctl login -u me --password Hunter2Sup3rPass",
		"nerdctl login -u me --password [REDACTED:password]", []string{"Hunter2Sup3rPass"}},
	{"helm registry login", "helm registry login registry.acme.dev -u me -p Hunter2Sup3rPass",
		"helm registry login registry.acme.dev -u me -p [REDACTED:password]", []string{"Hunter2Sup3rPass"}},
	{"az login service principal", "az login --service-principal -u 0f1e2d3c -p Xk9mPq2vT7 --tenant acme.onmicrosoft.com",
		"az login --service-principal -u 0f1e2d3c -p [REDACTED:password] --tenant acme.onmicrosoft.com", []string{"Xk9mPq2vT7"}},
	{"az acr login", "az acr login -n acmeregistry -u me -p Xk9mPq2vT7",
		"az acr login -n acmeregistry -u me -p [REDACTED:password]", []string{"Xk9mPq2vT7"}},
}

var loginNearMisses = []string{
	"docker run -p 8080:80 -p 5432:5432 postgres:16",
	"docker login -u bob --password-stdin < ~/.docker-token",
	"echo $CR_PAT | docker login ghcr.io -u me --password-stdin",
	"docker login -u me -p $DOCKER_PASSWORD",
	"podman login -u me -p \"${REGISTRY_PASSWORD}\" quay.io",
	"docker login",
	"helm install app ./chart -p values.yaml",
	"az group create -n rg -l westeurope",
	"docker compose -p shop up -d",
	"nerdctl run -p 80:80 nginx",
	"Then log in with docker login and push the image.",
	"helm repo add acme https://charts.acme.dev",
}

func TestRedactsLoginPasswords(t *testing.T) { redactsTo(t, loginShapes) }

func TestKeepsLoginLookalikes(t *testing.T) { survives(t, loginNearMisses) }
