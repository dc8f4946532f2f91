package redact

import "testing"

// Hashes and identifiers are random-looking and everywhere in a coding
// agent's transcript. None is a secret; a blanket entropy rule would eat
// them all.
var hashCases = []string{
	"commit d3bf16295d06910bf3f5fb85967f532f3ab3cc2d\nAuthor: Ada <ada@acme.dev>",
	"be96393 gitstore: one headTree for the four places that resolved HEAD's root tree\n92157ac README: measured performance table",
	"git cherry-pick 9f3c2e1 && git push origin fix/checkout-tests",
	"session: 4c2ddfdc-7a1b-4e6f-9d3c-2b5a8e0f1c47",
	`{"sessionId":"5b0c2f7e-3d1a-4c8b-9e2f-6a7b8c9d0e1f","uuid":"0d6f2a1b-9c8e-4f7a-b3d2-1e0f9a8b7c6d"}`,
	"id: lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C",
	"FROM golang:1.26@sha256:0c7a1b2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  empty.txt",
	`"integrity": "sha512-9Y3f0n1Yp0jXcE9oVwzHc5o3pVh1kQ2m4xL8sR6tU0wZ2aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB==",`,
	"github.com/go-git/go-git/v5 v5.19.3 h1:Jh1b3G8dY0s5yR2ZkD4c1qT6vW9xB2nE5mF7aK0pL3o=",
	`{"message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","usage":{"input_tokens":2095,"output_tokens":503,"cache_read_input_tokens":14283}}}`,
	`"requestId":"req_011CTWa1b2C3d4E5f6G7h8J9","parentUuid":null`,
	"md5: 5d41402abc4b2a76b9719d911017c592, etag: \"33a64df551425fcc55e4d42a148795d9f25f89d4\"",
}

func TestKeepsHashesAndIDs(t *testing.T) { survives(t, hashCases) }
