package redact

import (
	"strings"
	"testing"
)

// positive is a real-shaped secret in the context a transcript shows it in,
// with the exact redacted text and the secrets that must not survive.
type positive struct {
	name    string
	in      string
	want    string
	secrets []string
}

var positives = []positive{
	// AWS
	{"aws key id in export", "export AWS_ACCESS_KEY_ID=" + awsKeyID,
		"export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]", []string{awsKeyID}},
	{"aws secret in credentials file", "[default]\naws_access_key_id = " + awsKeyID + "\naws_secret_access_key = " + awsSecret + "\nregion = eu-west-1\n",
		"[default]\naws_access_key_id = [REDACTED:aws-access-key]\naws_secret_access_key = [REDACTED:aws-secret-key]\nregion = eu-west-1\n", []string{awsKeyID, awsSecret}},
	{"aws secret via aws configure", "$ aws configure set aws_secret_access_key " + awsSecret + " --profile ci",
		"$ aws configure set aws_secret_access_key [REDACTED:aws-secret-key] --profile ci", []string{awsSecret}},
	{"aws sts json", `{"Credentials": {"AccessKeyId": "` + awsSTSKeyID + `", "SecretAccessKey": "` + awsSecret + `", "Expiration": "2026-11-21T10:14:02Z"}}`,
		`{"Credentials": {"AccessKeyId": "[REDACTED:aws-access-key]", "SecretAccessKey": "[REDACTED:aws-secret-key]", "Expiration": "2026-11-21T10:14:02Z"}}`, []string{awsSTSKeyID, awsSecret}},

	// GitHub
	{"ghp in a git remote", "git remote set-url origin https://" + ghp + "@github.com/acme/auth.git",
		"git remote set-url origin https://[REDACTED:github-token]@github.com/acme/auth.git", []string{ghp}},
	{"ghs in env before a command", "GITHUB_TOKEN=" + ghs + " goreleaser release --clean",
		"GITHUB_TOKEN=[REDACTED:github-token] goreleaser release --clean", []string{ghs}},
	{"fine-grained pat in curl header", `curl -H "Authorization: token ` + githubPAT + `" https://api.github.com/user`,
		`curl -H "Authorization: token [REDACTED:github-token]" https://api.github.com/user`, []string{githubPAT}},
	{"gho in oauth json", `{"access_token":"` + gho + `","token_type":"bearer","scope":"repo"}`,
		`{"access_token":"[REDACTED:github-token]","token_type":"bearer","scope":"repo"}`, []string{gho}},
	{"ghu and ghr in a log line", "2026/11/21 09:14:02 refreshed user token " + ghu + " with " + ghr,
		"2026/11/21 09:14:02 refreshed user token [REDACTED:github-token] with [REDACTED:github-token]", []string{ghu, ghr}},
	{"x-access-token url", "git clone https://x-access-token:" + ghs + "@github.com/acme/infra.git",
		"git clone https://x-access-token:[REDACTED:github-token]@github.com/acme/infra.git", []string{ghs}},

	// GitLab, Slack
	{"glpat in a clone url", "git clone https://oauth2:" + glpat + "@gitlab.com/acme/api.git",
		"git clone https://oauth2:[REDACTED:gitlab-token]@gitlab.com/acme/api.git", []string{glpat}},
	{"slack bot token in go", `api := slack.New("` + xoxb + `")`,
		`api := slack.New("[REDACTED:slack-token]")`, []string{xoxb}},
	{"slack user token in yaml", "slack:\n  user_token: " + xoxp + "\n  channel: \"#deploys\"\n",
		"slack:\n  user_token: [REDACTED:slack-token]\n  channel: \"#deploys\"\n", []string{xoxp}},
	{"slack app token in .env", "SLACK_APP_TOKEN=" + xapp + "\nSLACK_CHANNEL=C0123456\n",
		"SLACK_APP_TOKEN=[REDACTED:slack-token]\nSLACK_CHANNEL=C0123456\n", []string{xapp}},
	{"slack webhook in curl", `curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' https://hooks.slack.com/services/` + slackHook,
		`curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' https://hooks.slack.com/services/[REDACTED:slack-webhook]`, []string{slackHook}},

	// Stripe
	{"stripe live key in a log line", `level=error msg="charge failed" key=` + stripeLive + ` amount=1200`,
		`level=error msg="charge failed" key=[REDACTED:stripe-key] amount=1200`, []string{stripeLive}},
	{"stripe restricted key in yaml", "stripe:\n  restricted: " + stripeRK + "\n",
		"stripe:\n  restricted: [REDACTED:stripe-key]\n", []string{stripeRK}},
	{"stripe test key in python", `stripe.api_key = "` + stripeTest + `"`,
		`stripe.api_key = "[REDACTED:stripe-key]"`, []string{stripeTest}},
	{"stripe webhook secret in .env", "STRIPE_WEBHOOK_SECRET=" + stripeWHSec,
		"STRIPE_WEBHOOK_SECRET=[REDACTED:stripe-key]", []string{stripeWHSec}},

	// OpenAI, Anthropic, Google
	{"openai project key in .env", "OPENAI_API_KEY=" + openaiProj + "\n",
		"OPENAI_API_KEY=[REDACTED:openai-key]\n", []string{openaiProj}},
	{"openai legacy key in curl", `curl https://api.openai.com/v1/models -H "Authorization: Bearer ` + openaiLegacy + `"`,
		`curl https://api.openai.com/v1/models -H "Authorization: Bearer [REDACTED:openai-key]"`, []string{openaiLegacy}},
	{"anthropic key in shell", "export ANTHROPIC_API_KEY='" + anthropicKey + "'",
		"export ANTHROPIC_API_KEY='[REDACTED:anthropic-key]'", []string{anthropicKey}},
	{"google api key in a query", "GET https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=" + googleKey + " 200 OK",
		"GET https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=[REDACTED:google-api-key] 200 OK", []string{googleKey}},
	{"google oauth client secret json", `{"installed":{"client_id":"1234567890-abc.apps.googleusercontent.com","client_secret":"` + gocspx + `"}}`,
		`{"installed":{"client_id":"1234567890-abc.apps.googleusercontent.com","client_secret":"[REDACTED:google-oauth-secret]"}}`, []string{gocspx}},
	{"google oauth access token in a log", "token refreshed: " + ya29 + " (expires in 3599s)",
		"token refreshed: [REDACTED:google-oauth-token] (expires in 3599s)", []string{ya29}},

	// Package registries
	{"npm token in .npmrc", "//registry.npmjs.org/:_authToken=" + npmToken + "\n",
		"//registry.npmjs.org/:_authToken=[REDACTED:npm-token]\n", []string{npmToken}},
	{"pypi token in .pypirc", "[pypi]\nusername = __token__\npassword = " + pypiToken + "\n",
		"[pypi]\nusername = __token__\npassword = [REDACTED:pypi-token]\n", []string{pypiToken}},

	// Twilio, SendGrid, Mailgun, Heroku, DigitalOcean, Hugging Face
	{"twilio auth token in .env", "TWILIO_ACCOUNT_SID=AC8f3e1b0c2d4a5e6f7a8b9c0d1e2f3a4b\nTWILIO_AUTH_TOKEN=" + twilioToken + "\n",
		"TWILIO_ACCOUNT_SID=AC8f3e1b0c2d4a5e6f7a8b9c0d1e2f3a4b\nTWILIO_AUTH_TOKEN=[REDACTED:twilio-auth-token]\n", []string{twilioToken}},
	{"twilio api key sid in code", `client := twilio.NewRestClientWithParams(twilio.ClientParams{Username: "` + twilioSK + `"})`,
		`client := twilio.NewRestClientWithParams(twilio.ClientParams{Username: "[REDACTED:twilio-api-key]"})`, []string{twilioSK}},
	{"sendgrid key quoted in .env", "SENDGRID_API_KEY='" + sendgridKey + "'",
		"SENDGRID_API_KEY='[REDACTED:sendgrid-key]'", []string{sendgridKey}},
	{"mailgun key in curl -u", "curl -s --user 'api:" + mailgunKey + "' https://api.mailgun.net/v3/mg.example.com/messages",
		"curl -s --user 'api:[REDACTED:mailgun-key]' https://api.mailgun.net/v3/mg.example.com/messages", []string{mailgunKey}},
	{"heroku platform key", "heroku config:set HEROKU_API_KEY=" + herokuKey + " -a shop",
		"heroku config:set HEROKU_API_KEY=[REDACTED:heroku-key] -a shop", []string{herokuKey}},
	{"heroku legacy uuid key by its name", "heroku_api_key: " + herokuUUID + "\n",
		"heroku_api_key: [REDACTED:heroku-key]\n", []string{herokuUUID}},
	{"digitalocean token in doctl", "$ doctl auth init --access-token " + doToken,
		"$ doctl auth init --access-token [REDACTED:digitalocean-token]", []string{doToken}},
	{"hugging face token", "huggingface-cli login --token " + hfToken + " --add-to-git-credential",
		"huggingface-cli login --token [REDACTED:huggingface-token] --add-to-git-credential", []string{hfToken}},

	// JWTs and Authorization headers
	{"jwt in an id_token field", `{"id_token": "` + jwt + `", "expires_in": 3600}`,
		`{"id_token": "[REDACTED:jwt]", "expires_in": 3600}`, []string{jwt}},
	{"jwt in a cookie header log", "DEBUG > Cookie: theme=dark; auth=" + jwt,
		"DEBUG > Cookie: theme=dark; auth=[REDACTED:jwt]", []string{jwt}},
	{"bearer token in an http dump", "> GET /v1/orders HTTP/1.1\n> Host: api.acme.dev\n> Authorization: Bearer " + randomB64 + "\n> Accept: */*\n",
		"> GET /v1/orders HTTP/1.1\n> Host: api.acme.dev\n> Authorization: Bearer [REDACTED:bearer-token]\n> Accept: */*\n", []string{randomB64}},
	{"token scheme header in httpie", "http GET api.acme.dev/orders 'Authorization:Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b'",
		"http GET api.acme.dev/orders 'Authorization:Token [REDACTED:authorization-header]'", []string{"9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"}},
	{"basic auth header", "authorization: Basic " + basicCreds + "\r\n",
		"authorization: Basic [REDACTED:basic-auth]\r\n", []string{basicCreds}},
	{"authorization literal in go", `req.Header.Set("Authorization", "Bearer ` + sessionValue + `")`,
		`req.Header.Set("Authorization", "Bearer [REDACTED:bearer-token]")`, []string{sessionValue}},
	{"authorization in python headers", `headers = {"Authorization": f"Bearer ` + sessionValue + `"}`,
		`headers = {"Authorization": f"Bearer [REDACTED:bearer-token]"}`, []string{sessionValue}},

	// Private keys
	{"rsa private key block", "$ cat deploy_key\n" + pemBlock("RSA PRIVATE KEY", "\n") + "\n$ chmod 600 deploy_key\n",
		"$ cat deploy_key\n[REDACTED:private-key]\n$ chmod 600 deploy_key\n", keyLines},
	{"openssh private key block", "Here is the key:\n\n" + pemBlock("OPENSSH PRIVATE KEY", "\n") + "\n\nAdd it to the agent.",
		"Here is the key:\n\n[REDACTED:private-key]\n\nAdd it to the agent.", keyLines},
	{"ec private key in yaml block", "tls:\n  key: |\n    " + pemBlock("EC PRIVATE KEY", "\n    ") + "\n  cert: server.crt\n",
		"tls:\n  key: |\n    [REDACTED:private-key]\n  cert: server.crt\n", keyLines},
	{"pgp private key block", pemBlock("PGP PRIVATE KEY BLOCK", "\n"),
		"[REDACTED:private-key]", keyLines},
	{"gcp service account json", `{"type": "service_account", "project_id": "acme-prod", "private_key_id": "d3bf16295d06910bf3f5fb85967f532f3ab3cc2d", "private_key": "` + pemBlock("PRIVATE KEY", `\n`) + `\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}`,
		`{"type": "service_account", "project_id": "acme-prod", "private_key_id": "d3bf16295d06910bf3f5fb85967f532f3ab3cc2d", "private_key": "[REDACTED:private-key]", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}`, keyLines},
	{"truncated private key", "-----BEGIN PRIVATE KEY-----\n" + keyLines[0] + "\n" + keyLines[1] + "\n\nThe rest was cut off.",
		"[REDACTED:private-key]\n\nThe rest was cut off.", keyLines[:2]},

	// URLs and connection strings
	{"postgres url in .env", "DATABASE_URL=postgres://app:S3cr3tPw9@db.internal:5432/app?sslmode=require",
		"DATABASE_URL=postgres://app:[REDACTED:connection-string]@db.internal:5432/app?sslmode=require", []string{"S3cr3tPw9"}},
	{"mongodb+srv url in code", `client, err := mongo.Connect(ctx, options.Client().ApplyURI("mongodb+srv://admin:Qx7pL2mZ9@cluster0.ab1cd.mongodb.net/shop"))`,
		`client, err := mongo.Connect(ctx, options.Client().ApplyURI("mongodb+srv://admin:[REDACTED:connection-string]@cluster0.ab1cd.mongodb.net/shop"))`, []string{"Qx7pL2mZ9"}},
	{"redis url without user", "REDIS_URL=redis://:p4ssw0rdR3dis@cache:6379/0",
		"REDIS_URL=redis://:[REDACTED:connection-string]@cache:6379/0", []string{"p4ssw0rdR3dis"}},
	{"amqp url in yaml", "broker: amqp://guest:Rabb1tMQ!pw@rabbit.internal:5672/vhost\n",
		"broker: amqp://guest:[REDACTED:connection-string]@rabbit.internal:5672/vhost\n", []string{"Rabb1tMQ!pw"}},
	{"mysql url with @ in the password", "mysql://root:p@ss@w0rd@127.0.0.1:3306/shop",
		"mysql://root:[REDACTED:connection-string]@127.0.0.1:3306/shop", []string{"p@ss@w0rd"}},
	{"https basic credentials", "pip install --index-url https://deploy:hunter22x@pypi.acme.dev/simple/ acme-core",
		"pip install --index-url https://deploy:[REDACTED:url-password]@pypi.acme.dev/simple/ acme-core", []string{"hunter22x"}},
	{"jdbc password parameter", "spring.datasource.url=jdbc:sqlserver://db:1433;databaseName=shop;user=sa;password=Sup3r$ecret;encrypt=true",
		"spring.datasource.url=jdbc:sqlserver://db:1433;databaseName=shop;user=sa;password=[REDACTED:password];encrypt=true", []string{"Sup3r$ecret"}},
	{"jdbc oracle thin", "url: jdbc:oracle:thin:scott/T1ger2026@//db.acme.dev:1521/ORCL",
		"url: jdbc:oracle:thin:scott/[REDACTED:connection-string]@//db.acme.dev:1521/ORCL", []string{"T1ger2026"}},
	{"azure storage connection string", "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net",
		"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix=core.windows.net", []string{azureKey}},
	{"libpq keyword string", `psql "host=db.internal port=5432 user=app password=xK9mQ2vL7 dbname=shop"`,
		`psql "host=db.internal port=5432 user=app password=[REDACTED:password] dbname=shop"`, []string{"xK9mQ2vL7"}},

	// Assignments whose key names a secret
	{"yaml password", "database:\n  user: app\n  password: hunter2correct\n",
		"database:\n  user: app\n  password: [REDACTED:password]\n", []string{"hunter2correct"}},
	{"json password with spaces", `{"username": "ada", "password": "correct horse battery staple"}`,
		`{"username": "ada", "password": "[REDACTED:password]"}`, []string{"correct horse battery staple"}},
	{"docker login --password", "docker login -u bob --password Xk9#mPq2vT registry.acme.dev",
		"docker login -u bob --password [REDACTED:password] registry.acme.dev", []string{"Xk9#mPq2vT"}},
	{"mysql attached -p", "mysql -h db.internal -u root -pS3cretPass shop < dump.sql",
		"mysql -h db.internal -u root -p[REDACTED:password] shop < dump.sql", []string{"S3cretPass"}},
	{"sshpass -p", "sshpass -p 'W1nter!2026' ssh deploy@10.0.0.5 uptime",
		"sshpass -p '[REDACTED:password]' ssh deploy@10.0.0.5 uptime", []string{"W1nter!2026"}},
	{"curl -u user:pass", "curl -u admin:Adm1nPa55 http://localhost:9200/_cluster/health",
		"curl -u admin:[REDACTED:password] http://localhost:9200/_cluster/health", []string{"Adm1nPa55"}},
	{".env file", "# local settings\nDB_PASSWORD=pgL0calPw\nexport API_TOKEN=tok_9f8e7d6c5b4a\nENCRYPTION_KEY=Zm9vYmFyYmF6cXV4cXV1eA\nLOG_LEVEL=debug\n",
		"# local settings\nDB_PASSWORD=[REDACTED:password]\nexport API_TOKEN=[REDACTED:token]\nENCRYPTION_KEY=[REDACTED:secret]\nLOG_LEVEL=debug\n", []string{"pgL0calPw", "tok_9f8e7d6c5b4a", "Zm9vYmFyYmF6cXV4cXV1eA"}},
	{"client secret in python", `oauth = OAuth2Session(client_id="acme-web", client_secret="Xb7rT2kQ9wLm4Zp8")`,
		`oauth = OAuth2Session(client_id="acme-web", client_secret="[REDACTED:client-secret]")`, []string{"Xb7rT2kQ9wLm4Zp8"}},
	{"maven settings xml", "<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <password>N3xusP4ss!</password>\n</server>",
		"<server>\n  <id>nexus</id>\n  <username>ci</username>\n  <password>[REDACTED:password]</password>\n</server>", []string{"N3xusP4ss!"}},
	{"api key header in curl", `curl -H 'X-API-Key: 8c1f2e9a7b3d4c5e' https://api.acme.dev/v2/orders`,
		`curl -H 'X-API-Key: [REDACTED:api-key]' https://api.acme.dev/v2/orders`, []string{"8c1f2e9a7b3d4c5e"}},
	{"sql create user", "CREATE USER app WITH PASSWORD 'Tr0ub4dor&3';",
		"CREATE USER app WITH PASSWORD '[REDACTED:password]';", []string{"Tr0ub4dor&3"}},
	{"mysql identified by", "ALTER USER 'app'@'%' IDENTIFIED BY 'Str0ngPw!';",
		"ALTER USER 'app'@'%' IDENTIFIED BY '[REDACTED:password]';", []string{"Str0ngPw!"}},
	{"go const api key", `const apiKey = "a8F3kL9mQ2xR7tV1"`,
		`const apiKey = "[REDACTED:api-key]"`, []string{"a8F3kL9mQ2xR7tV1"}},
	{"ts object api key", "const client = new Client({\n  apiKey: 'c2VjcmV0LWtleS0xMjM0NTY',\n  region: 'eu',\n});",
		"const client = new Client({\n  apiKey: '[REDACTED:api-key]',\n  region: 'eu',\n});", []string{"c2VjcmV0LWtleS0xMjM0NTY"}},
	{"typed python default", `def connect(host: str, password: str = "Pg4dm1n!x") -> Conn:`,
		`def connect(host: str, password: str = "[REDACTED:password]") -> Conn:`, []string{"Pg4dm1n!x"}},
	{"escaped json in a transcript line", `{"type":"tool_result","content":"cat config.json\n{\"db\": {\"password\": \"hunter2x\"}}\nexit 0"}`,
		`{"type":"tool_result","content":"cat config.json\n{\"db\": {\"password\": \"[REDACTED:password]\"}}\nexit 0"}`, []string{"hunter2x"}},
	{"escaped env file in a transcript line", `{"output":"DB_HOST=db\nDB_PASSWORD=pgL0calPw\nGITHUB_TOKEN=` + ghp + `\n"}`,
		`{"output":"DB_HOST=db\nDB_PASSWORD=[REDACTED:password]\nGITHUB_TOKEN=[REDACTED:github-token]\n"}`, []string{"pgL0calPw", ghp}},
	{"setenv literal", `os.Setenv("DB_PASSWORD", "pgL0calPw")`,
		`os.Setenv("DB_PASSWORD", "[REDACTED:password]")`, []string{"pgL0calPw"}},
	{"random session cookie", "Set-Cookie: session=" + sessionValue + "; Path=/; HttpOnly",
		"Set-Cookie: session=[REDACTED:secret]; Path=/; HttpOnly", []string{sessionValue}},
	{"random value next to key", `{"key": "` + randomB64 + `", "kid": "2026-01"}`,
		`{"key": "[REDACTED:secret]", "kid": "2026-01"}`, []string{randomB64}},
	{"markdown bold password", "**Password:** Gr33nT3a!\n",
		"**Password:** [REDACTED:password]\n", []string{"Gr33nT3a!"}},
	{"python dict", `conn = connect(**{'host': 'db', 'password': 'abc123xyz'})`,
		`conn = connect(**{'host': 'db', 'password': '[REDACTED:password]'})`, []string{"abc123xyz"}},
	{"aws session token in a presigned url", "https://acme.s3.amazonaws.com/a.pdf?X-Amz-Security-Token=FwoGZXIvYXdzEBYaDHV4b3Z2dGhpc2lzZmFrZQ%3D%3D&X-Amz-Expires=300",
		"https://acme.s3.amazonaws.com/a.pdf?X-Amz-Security-Token=[REDACTED:token]&X-Amz-Expires=300", []string{"FwoGZXIvYXdzEBYaDHV4b3Z2dGhpc2lzZmFrZQ"}},
	{"azure sas signature", "https://acme.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-01-01T00:00:00Z&sig=aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1x%3D",
		"https://acme.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-01-01T00:00:00Z&sig=[REDACTED:azure-sas-signature]", []string{"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1x"}},
	{"encrypted rsa key with armour headers", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0F1E2D3C4B5A69788796A5B4C3D2E1F0\n\n" + keyLines[0] + "\n-----END RSA PRIVATE KEY-----",
		"[REDACTED:private-key]", []string{keyLines[0], "0F1E2D3C4B5A69788796A5B4C3D2E1F0"}},
	{"rails secret_key_base", "secret_key_base: 4f1c2b9e8d7a6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3\n",
		"secret_key_base: [REDACTED:secret]\n", []string{"4f1c2b9e8d7a6c5b4a39281706f5e4d3"}},
	{"kubectl from-literal", "kubectl create secret generic db --from-literal=password=Kub3Pw0rd --from-literal=user=app",
		"kubectl create secret generic db --from-literal=password=[REDACTED:password] --from-literal=user=app", []string{"Kub3Pw0rd"}},
}

func TestRedactsSecrets(t *testing.T) {
	if len(positives) < 40 {
		t.Fatalf("only %d positive cases; the spec asks for at least 40", len(positives))
	}
	for _, tc := range allPositives() {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			if got != tc.want {
				t.Errorf("String:\n  in:   %q\n  got:  %q\n  want: %q\n  found: %v", tc.in, got, tc.want, Find(tc.in))
			}
			for _, sec := range tc.secrets {
				if strings.Contains(got, sec) {
					t.Errorf("output still contains the secret %q", sec)
				}
			}
			if b := string(Bytes([]byte(tc.in))); b != got {
				t.Errorf("Bytes and String disagree:\n  Bytes:  %q\n  String: %q", b, got)
			}
		})
	}
}

// TestFindReportsRanges checks that Find's ranges are the ones String
// replaces and that they name the kind in the marker.
func TestFindReportsRanges(t *testing.T) {
	in := "token=" + ghp + " and AWS " + awsKeyID
	ms := Find(in)
	want := []Match{
		{Kind: "github-token", Start: 6, End: 6 + len(ghp)},
		{Kind: "aws-access-key", Start: len(in) - len(awsKeyID), End: len(in)},
	}
	if len(ms) != len(want) {
		t.Fatalf("Find = %v, want %v", ms, want)
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("Find[%d] = %v, want %v", i, ms[i], want[i])
		}
	}
	if Find("") != nil || Find("nothing secret here") != nil {
		t.Errorf("Find reports matches in text without secrets")
	}
}
