package redact

import "testing"

// Words that start like a provider's token prefix.
var lookalikeCases = []string{
	"pip install sk-learn-compatible-estimators-wrapper",
	"risk-assessment-for-production-deploys-2026",
	"from huggingface_hub import hf_hub_download",
	"npm_config_cache=/tmp/npm npm_lifecycle_event=test",
	"a key-value store keyed by session-id",
	"task-1234-fix-oauth-redirect-state-mismatch",
	"AKIA is the prefix of an AWS access key id",
	"SK-2026 release train; SG.Run(ctx)",
	"xoxb- tokens are Slack bot tokens",
	"eyJ is what base64 of {\" looks like",
	"ghp_ prefixes a classic GitHub personal access token",
	"dop_v1_ is DigitalOcean's prefix; AIza is Google's",
}

func TestKeepsPrefixLookalikes(t *testing.T) { survives(t, lookalikeCases) }
