package drain

import (
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/queue"
)

func groundingEntry() *queue.Entry {
	exit1, exit0 := 1, 0
	return &queue.Entry{ID: "q-01JD8Z6Q4V0R5T2W9K3M7N1B6C", Session: "s", Branch: "fix/payments", Digest: queue.Digest{Notes: []queue.Note{
		{Kind: queue.NotePrompt, Text: "run the payment tests"},
		{Kind: queue.NoteFailure, Tool: "Bash", Input: "make test-payments", ExitCode: &exit1,
			Text: "stripe.error.AuthenticationError: No API key provided (payments/charge_test.py:41)"},
		{Kind: queue.NoteFollowup, Tool: "Bash", Input: "STRIPE_MOCK=1 make test-payments", ExitCode: &exit0, Text: "14 passed"},
		{Kind: queue.NoteConclusion, Text: "With STRIPE_MOCK=1 the payment suite passes offline (stripe-mock v0.188.0)."},
	}}}
}

func TestGrounded(t *testing.T) {
	digest := digestText(groundingEntry())
	tests := []struct {
		name string
		p    Proposal
		want bool
	}{
		{"what the session showed", Proposal{Title: "Run the payment tests with STRIPE_MOCK=1",
			Body: "`make test-payments` calls Stripe unless `STRIPE_MOCK=1`; payments/charge_test.py fails with AuthenticationError."}, true},
		{"prose with no precise term", Proposal{Title: "Ask before deploying", Body: "The user wants to confirm every deploy."}, true},
		{"a command nobody ran", Proposal{Title: "Seed the database before the tests",
			Body: "Run `make db-seed` and `docker compose up -d postgres` before `pytest tests/integration`."}, false},
		{"a file and a flag nobody saw", Proposal{Title: "Set the timeout in config/settings.yaml",
			Body: "Raise `--request-timeout` in config/settings.yaml to 30s."}, false},
		{"mostly grounded, one detail added", Proposal{Title: "Use STRIPE_MOCK=1 for make test-payments",
			Body: "payments/charge_test.py needs a key otherwise; stripe-mock v0.188.0 serves it (see docs/testing.md)."}, true},
		{"an invented version and identifier", Proposal{Title: "Pin stripe-python to 7.4.0",
			Body: "`StripeClient.configure` changed in 7.4.0; pin it in requirements.txt."}, false},
		{"triggers count too", Proposal{Title: "Mock Stripe in tests", Triggers: []string{"ERR_STRIPE_TIMEOUT", "stripe.Charge.retrieve"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missing := grounded(tt.p, digest)
			if got != tt.want {
				t.Errorf("grounded = %v (terms %q, missing %q), want %v", got, keyTerms(tt.p), missing, tt.want)
			}
		})
	}
}

// Recorded answers stand in for a model on a session: the drain keeps what is grounded in
// the digest and drops what names commands, files or identifiers the session never showed.
func TestGroundingDropsInventions(t *testing.T) {
	e := groundingEntry()
	answer := `{"learnings":[
	 {"title":"Run the payment tests with STRIPE_MOCK=1","body":"make test-payments calls Stripe unless STRIPE_MOCK=1 is set.","kind":"fix","confidence":"high","triggers":["make test-payments","AuthenticationError"]},
	 {"title":"Always seed the database first","body":"Run ` + "`make db-seed`" + ` before ` + "`pytest tests/integration`" + `.","kind":"rule"},
	 {"title":"Payment tests need the sandbox key","body":"Export STRIPE_SANDBOX_KEY from vault/payments.env.","kind":"fix"}
	]}`
	props, err := ParseAnswer(answer)
	if err != nil {
		t.Fatal(err)
	}
	var res EntryResult
	kept := dropUngrounded(props, e, &res)
	if len(kept) != 1 || kept[0].Title != "Run the payment tests with STRIPE_MOCK=1" {
		t.Fatalf("kept %v", kept)
	}
	if len(res.Ungrounded) != 2 || !strings.Contains(res.Ungrounded[0], "Always seed the database first (make db-seed, db-seed") {
		t.Fatalf("ungrounded %q", res.Ungrounded)
	}
	msg := commitMessage(e, "openai:http://127.0.0.1:1/v1", nil, &res)
	if !strings.HasPrefix(msg, "drain: nothing new in ") || !strings.Contains(msg, "\n- dropped, not in the session: Payment tests need the sandbox key") {
		t.Fatalf("commit message:\n%s", msg)
	}
}
