package redact

import "testing"

func TestProseSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"remember: the staging password is hunter2-db-pass", "remember: the staging password is [REDACTED:password]"},
		{"My API token was Xk9fT2mQ77LpRs.", "My API token was [REDACTED:token]."},
		{"the password for staging is s3cr3t!", "the password for staging is [REDACTED:password]"},
		{"the secret is 8f3kq-zz91", "the secret is [REDACTED:secret]"},
		// kept: the value is a word, a placeholder, a variable or too short
		{"the password is required", "the password is required"},
		{"the token is expired, refresh it", "the token is expired, refresh it"},
		{"the password is $DB_PASSWORD", "the password is $DB_PASSWORD"},
		{"the password is <your-password>", "the password is <your-password>"},
		{"the token is 42", "the token is 42"},
		{"the password reset flow is broken", "the password reset flow is broken"},
		{"a token bucket is a rate limiter", "a token bucket is a rate limiter"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if got := String(String(tt.in)); got != String(tt.in) {
			t.Errorf("not idempotent on %q", tt.in)
		}
	}
}
