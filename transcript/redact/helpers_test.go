package redact

import (
	"strings"
	"testing"
)

// Fake credentials in the exact shapes providers issue. None is real: they
// were generated for these tests.
const (
	awsKeyID     = "AKIAIOSFODNN7EXAMPLE" // AWS's own documentation key: redacted all the same
	awsSTSKeyID  = "ASIAY34FZKBOKMUTVV7A"
	awsSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	ghp          = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
	gho          = "gho_KLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFR"
	ghs          = "ghs_IBXuDL7DxtpYlSXpfKtHF4vUCsMehGAkWvj7"
	ghu          = "ghu_FAc9QeWJKY40uvSwMFLZDe1f8rESQedUStPK"
	ghr          = "ghr_R0CsTy4Qwb8DwkNhFdnXsiVpzz63FfkCzJr4"
	githubPAT    = "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"
	glpat        = "glpat-UdjAWtGSU8po_799Nksn"
	xoxb         = "xoxb-547280385280-8414852538885-OoNZYW2mZp0zVZomHFwUbbYr"
	xoxp         = "xoxp-743957551313-735379907511-6372651676122-404e4fb440034d6608697a8d41bed440"
	xapp         = "xapp-1-A2LAJLJ4H9D-5888718033401-e02ea68ef786e4d3cea27d26934b484e73cf575dcad6ba2b0aee0ca923732881"
	slackHook    = "TLRI1QZJ8/B65UFRDL1ER/8bOfZqfM2oeq3hDavJA76rNi"
	stripeLive   = "sk_live_cHTp8hkqdlm7tOtHWnsCGRlr"
	stripeRK     = "rk_live_wZbqcabUGJmGEp7CgQ0PBQFI"
	stripeTest   = "sk_test_14zGtSnovm14TUOizwd1iaeO"
	stripeWHSec  = "whsec_V4qBkdfQ1y3GQsMpSscDlkrCaqx9vJup"
	openaiProj   = "sk-proj-eNBTxaQWk8JzFalHlsZfYcMMDktXP-tKsf2rcDkdfrUnW5gcT3BlbkFJF_Ha6ili8GjHEAD6-Wj9KfzjsQGMrb9h_ImB_LK777pzNk8c"
	openaiLegacy = "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"
	anthropicKey = "sk-ant-api03-ua_5ZMs1SWOpQaPRYpzbLGViYXjU2JgJngKtFI3OyV2dZAkg05rK_gqv81RKMGHZEM9YpvujA-C5Q52ryFlwRlOEVHzc0AA"
	googleKey    = "AIzaX0AWIRh-JUqBlIFXZ53Ncqe28_ajY75FnCt"
	gocspx       = "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"
	ya29         = "ya29.8EFd0Nhcy-1kGD2VD-eR1UYzaL.iA-zNyD7CHLn-xC_1hsYgBds1ghxY5Ook"
	npmToken     = "npm_7kvmlP7HVDctQUy1xvCkgafrfwA94hJ9Wnyw"
	pypiToken    = "pypi-AgEIcHlwaS5vcmcN3lg8zV5yPU8d0FZfWe7ihGyiRUIQfHOJMaidDn87XG3-q-xbMtEPO6UkzYu"
	twilioSK     = "SK7d21fa5d328263dfe574de739988b886"
	twilioToken  = "e7577496a2c8773e130f7eb19731662b"
	sendgridKey  = "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"
	mailgunKey   = "key-c2b54b95523cf6941fa1c257c6f561c5"
	herokuKey    = "HRKU-AAXTptFyfePpX6N1NF2XV54wca_7E56w8ZniqT3Ul4ffqkOkgWrdioyq_KvC"
	herokuUUID   = "5d6b1b8c-2f1e-4f4e-9a51-0d1f6c0e8a7b"
	doToken      = "dop_v1_2b85a8e48f687ab165c58ac5831be38cb8cb4ba2e751989a01749ddb14f71010"
	hfToken      = "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"
	jwt          = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSIsImlhdCI6MTcwMDAwMDAwMH0.Qm9ndXNTaWduYXR1cmVGb3JUZXN0c09ubHkxMjM0NTY"
	azureKey     = "DepQHgI3HLBkbvHEzuPyXQEW88ad3DNBYjvsedonuSsddfrfifiUziXnFAAoeelK9mqmALOR2HcSGKgVP8Kd0d=="
	basicCreds   = "ZGVwbG95OnM0eTRrLWJyMGtlbi1oMHJzZQ==" // base64("deploy:s4y4k-br0ken-h0rse")
	randomB64    = "HbhS4/FvafhdZxEuhnbzs0z1wNiMg9aW37k5wCnH"
	sessionValue = "4PbxntqB5IGky4Oo8DiIMWSW"
)

// keyLines is the base64 of a fake private key, in 64-column lines.
var keyLines = []string{
	"MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF0qJbY4kT1n4Q5x2n0M8hYb1yQ7e",
	"xN2w8cK3Yq4mZ6pL9rT1uV5sW3aB7dC2eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ",
	"4aB6cD8eF0gH2iJ4kL6mN8oP0qR2sT4uV6wX8yZ0aB2cD4eF6gH8iJ0kL2mN4oP",
	"q7Rk2bW9xZ1yV3uT5sR7qP9oN1mL3kJ5iH7gF9eD1cB3aZ5yX7wV9uT1sR3qP==",
}

// pemBlock builds a private key block with the given label and line break
// ("\n" for a file, `\n` for the inside of a JSON string).
func pemBlock(label, nl string) string {
	return "-----BEGIN " + label + "-----" + nl + strings.Join(keyLines, nl) + nl + "-----END " + label + "-----"
}

// survives checks that each input comes back unchanged and that Find
// reports nothing in it.
func survives(t *testing.T, inputs []string) {
	t.Helper()
	for _, in := range inputs {
		if got := String(in); got != in {
			t.Errorf("redacted a non-secret\n  in:  %q\n  got: %q\n  found: %v", in, got, Find(in))
		}
	}
}

// redactsTo checks each case's exact output, that none of its secrets survive, and that
// redacting the output again changes nothing.
func redactsTo(t *testing.T, cases []positive) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			if got != tc.want {
				t.Errorf("String:\n  in:   %q\n  got:  %q\n  want: %q", tc.in, got, tc.want)
			}
			for _, sec := range tc.secrets {
				if strings.Contains(got, sec) {
					t.Errorf("output still contains the secret %q", sec)
				}
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}
