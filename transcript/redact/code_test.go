package redact

import "testing"

// Code that handles secrets without containing one: variables, reads from
// the environment, comparisons, headers built from variables, type
// declarations, and data that is base64 but not secret.
var codeCases = []string{
	"password := req.Password",
	"if token == \"\" {\n\treturn errors.New(\"missing token\")\n}",
	`req.Header.Set("Authorization", "Bearer "+token)`,
	"headers: { Authorization: `Bearer ${token}` },",
	`token = os.Getenv("GITHUB_TOKEN")`,
	"def login(user: str, password: str) -> bool:",
	"secret := make([]byte, 32)",
	"apiKey: process.env.OPENAI_API_KEY,",
	"Password string `json:\"password\" yaml:\"password\"`",
	"tokens := strings.Fields(line)\nconst maxTokens = 4096",
	`{"max_tokens": 1024, "token_type": "Bearer", "expires_in": 3600}`,
	"client := api.New(api.Config{Token: token, APIKey: apiKey})",
	`resp = requests.get(url, headers=headers, auth=auth, timeout=10)`,
	"secretsClient := secretsmanager.NewFromConfig(cfg)",
	"password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
	".button { color: #ff8800; background: #1e1e2e; border-color: #abcdef; }",
	`<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`,
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGpL3fBf0kT9mRr2vJ1sX4yQ8wZ6uN0cD5eH7aK2bL9m ada@laptop",
	"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
	"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEzQf5l0Zx1Gm2yA3wB4nC5dE6fG7h\n-----END PUBLIC KEY-----",
	"const token = await getToken();\nlet password = hashedPassword;",
	"func (c *Client) Authorization() string { return c.auth }",
	"PGPASSWORD=$DB_PASSWORD psql -h localhost -U app",
}

func TestKeepsCode(t *testing.T) { survives(t, codeCases) }
