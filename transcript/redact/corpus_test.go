package redact

import (
	"fmt"
	"strings"
)

// negatives is every look-alike, by false-positive class.
func negatives() []string {
	return concat(hashCases, proseCases, codeCases, placeholderCases,
		urlCases, pathCases, lookalikeCases, flagCases, markerCases,
		numberCases, nearMissCases())
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// transcriptLines are the shapes a condensed transcript is made of: JSONL
// records with prose, code, tool calls and their output, hashes and ids.
var transcriptLines = []string{
	`{"type":"user","message":{"role":"user","content":"the checkout tests fail on CI but pass locally, can you look?"},"uuid":"0d6f2a1b-9c8e-4f7a-b3d2-1e0f9a8b7c6d","sessionId":"5b0c2f7e-3d1a-4c8b-9e2f-6a7b8c9d0e1f","cwd":"/home/dev/src/webshop","gitBranch":"fix/checkout-tests"}`,
	`{"type":"assistant","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","role":"assistant","content":[{"type":"text","text":"I'll run the test suite first to see the failure."}],"usage":{"input_tokens":2095,"output_tokens":503,"cache_read_input_tokens":14283}}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01A2b3C4d5E6f7G8h9J0k1L2","name":"Bash","input":{"command":"npm test -- checkout","description":"Run checkout tests"}}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_01A2b3C4d5E6f7G8h9J0k1L2","is_error":true,"content":"Exit code 1\n> webshop@1.4.2 test\n> vitest run checkout\n\n FAIL  src/cart/checkout.test.ts > applies the coupon\nAssertionError: expected 1200 to be 1080\n    at src/cart/checkout.test.ts:42:17"}]}}`,
	`{"type":"user","message":{"content":"no, use pnpm instead of npm"}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"The coupon is applied before the tax rate is loaded, so the total is computed with a token bucket of zero. The password reset flow is unrelated."}]}}`,
	"commit 9f3c2e1b7a6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b\nAuthor: Dev <dev@acme.dev>\nDate:   Fri Nov 21 09:14:02 2026 +0000\n\n    fix(cart): load the tax rate before applying coupons",
	"func (s *Service) Checkout(ctx context.Context, cart *Cart) (*Order, error) {\n\ttoken := s.auth.Token(ctx)\n\tif token == \"\" {\n\t\treturn nil, ErrUnauthenticated\n\t}\n\treq.Header.Set(\"Authorization\", \"Bearer \"+token)\n\treturn s.orders.Create(ctx, cart)\n}",
	"diff --git a/src/cart/checkout.ts b/src/cart/checkout.ts\nindex 3b18e51..a7c9d02 100644\n--- a/src/cart/checkout.ts\n+++ b/src/cart/checkout.ts\n@@ -12,7 +12,7 @@ export async function checkout(cart: Cart, apiKey: string): Promise<Order> {",
	"$ pnpm install --frozen-lockfile && pnpm --filter @webshop/cart test\nPackages: +412\nProgress: resolved 412, reused 412, downloaded 0, added 412, done\n ✓ src/cart/checkout.test.ts (12 tests) 38ms",
	"FROM node:22-alpine@sha256:0c7a1b2f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b\nRUN corepack enable && pnpm install --prod",
	"- learning lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C: OAuth state mismatch on redirect (confidence: high, seen: 3)",
	"git push origin fix/checkout-tests\nTo github.com:acme/webshop.git\n   3b18e51..a7c9d02  fix/checkout-tests -> fix/checkout-tests",
	"2026-11-21T09:14:02.118Z INFO  http request method=GET path=/api/cart/42 status=200 duration_ms=12 request_id=0d6f2a1b-9c8e-4f7a-b3d2-1e0f9a8b7c6d",
	"Die Kasse berechnet die Steuer jetzt vor dem Gutschein — ça marche. 結帳測試通過了。",
}

// transcriptSecrets are sprinkled into the benchmark text, a few per
// megabyte, as they are in real sessions.
var transcriptSecrets = []string{
	`{"type":"user","message":{"content":[{"type":"tool_result","content":"DB_HOST=db\nDB_PASSWORD=pgL0calPw\nGITHUB_TOKEN=` + ghp + `\n"}]}}`,
	"$ curl -H \"Authorization: Bearer " + openaiLegacy + "\" https://api.openai.com/v1/models",
	"DATABASE_URL=postgres://app:S3cr3tPw9@db.internal:5432/app?sslmode=require",
	"export AWS_ACCESS_KEY_ID=" + awsKeyID + "\nexport AWS_SECRET_ACCESS_KEY=" + awsSecret,
}

// transcriptText returns about size bytes of transcript-like text with a
// secret every 100 KB or so.
func transcriptText(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i%400 == 399 {
			b.WriteString(transcriptSecrets[(i/400)%len(transcriptSecrets)])
		} else {
			b.WriteString(transcriptLines[i%len(transcriptLines)])
		}
		fmt.Fprintf(&b, "\n// line %d\n", i)
	}
	return b.String()
}
