package queue

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkEnqueueSubagents measures a capture of a session whose turn ran subagents: a
// 1.1 MB session file and six subagent files of 5.3 MB, far past the read bound (8 MB are
// read, the tails of the newest two). It runs inside a capture hook's 500 ms: here 8 ms
// without subagents, 30 ms with them.
func BenchmarkEnqueueSubagents(b *testing.B) {
	for _, subs := range []int{0, 6} {
		b.Run(fmt.Sprintf("subagents=%d", subs), func(b *testing.B) {
			dir := b.TempDir()
			const session = "6a1f3c2e-8b7d-4e5f-9a0b-1c2d3e4f5a6b"
			out := strings.Repeat("ok  \tgithub.com/acme/shop/pkg\t0.412s\n", 50)
			main := newCC(session, t0)
			for i := 0; i < 200; i++ {
				id := fmt.Sprint(i)
				main.prompt(fmt.Sprintf("step %d: run the tests", i))
				main.bash(id, id, "go test ./...")
				main.result(id, out, i%10 == 0)
				main.say(id, "Tests ran.")
			}
			var agents []*cc
			for a := 0; a < subs; a++ {
				s := &cc{session: session, agent: fmt.Sprintf("a%02d", a), t0: t0.Add(time.Minute)}
				s.prompt("Audit the packages.")
				for i := 0; s.n < 2*1100; i++ {
					id := fmt.Sprint(i)
					s.bash(id, id, fmt.Sprintf("go vet ./pkg%d/...", i))
					s.result(id, out, i%7 == 0)
				}
				s.say("end", "Done.")
				agents = append(agents, s)
			}
			path := writeSession(b, dir, main, agents...)
			var size int
			for _, a := range agents {
				size += len(a.text())
			}
			r := newRepo(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Enqueue(context.Background(), r, Capture{Harness: "claude-code", Session: fmt.Sprint(session, i), TranscriptPath: path,
					Trigger: TriggerPreCompact, Project: "_global", Now: time.Now(), DigestBytes: 48 << 10})
				if err != nil || !res.Committed {
					b.Fatal(res, err)
				}
			}
			b.ReportMetric(float64(len(main.text()))/(1<<20), "session-MB")
			b.ReportMetric(float64(size)/(1<<20), "subagents-MB")
		})
	}
}
