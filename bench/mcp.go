package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reflect-memory/reflect/fixtures"
)

// runMCP measures what issue 19 promises: a memory_search round trip over stdio to one
// `reflect mcp` process at n learnings (median and p90 of calls calls), beside the same
// query through `reflect search` as a whole process, in the same run on the same memory.
func runMCP(n, calls, runs int) error {
	tmp, bin, env, err := setup("mcp-")
	defer os.RemoveAll(tmp)
	if err != nil {
		return err
	}
	home := filepath.Join(tmp, "mem")
	if err := memory(env, bin, home, n, max(1, min(n/10, 1000)), 20); err != nil {
		return err
	}
	proj := filepath.Join(tmp, "proj")
	if err := gitProject(env, proj, "", "https://"+fixtures.SynthProject(3)+".git"); err != nil {
		return err
	}
	if err := reindex(env, bin, home); err != nil {
		return err
	}
	const query = "webhook|retry deadlock postgres"

	// the server: started once, as a host starts it, and asked calls times
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.CommandTransport{Command: command(env, proj, bin, "--home", home, "mcp")}, nil)
	if err != nil {
		return fmt.Errorf("start reflect mcp: %w", err)
	}
	defer s.Close()
	var viaMCP []float64
	hits := 0
	for i := 0; i < calls+5; i++ {
		start := time.Now()
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": query}})
		d := time.Since(start)
		if err != nil || res.IsError {
			return fmt.Errorf("memory_search: %v %+v", err, res)
		}
		if i >= 5 { // warm-ups: the first call opens the index's segment
			viaMCP = append(viaMCP, ms(d))
		}
		var out struct{ Hits []json.RawMessage }
		if tc, ok := res.Content[0].(*sdk.TextContent); ok && json.Unmarshal([]byte(tc.Text), &out) == nil {
			hits = len(out.Hits)
		}
	}
	if hits == 0 {
		return fmt.Errorf("memory_search found nothing for %q", query)
	}

	// the baseline: the same query, a new reflect process each time
	var viaCLI []float64
	for i := 0; i < runs+2; i++ {
		start := time.Now()
		if out, err := command(env, proj, bin, "--home", home, "search", query).CombinedOutput(); err != nil {
			return fmt.Errorf("reflect search: %v: %s", err, out)
		}
		if i >= 2 {
			viaCLI = append(viaCLI, ms(time.Since(start)))
		}
	}
	fmt.Printf("memory_search over stdio to one `reflect mcp` process (%d calls) beside `reflect search` as a whole process (%d runs), %s learnings, query %q (%d hits)\n\n",
		calls, runs, thousands(n), query, hits)
	fmt.Printf("| | median | p90 |\n|---|---:|---:|\n")
	fmt.Printf("| memory_search round trip | %.2f ms | %.2f ms |\n", pct(viaMCP, 50), pct(viaMCP, 90))
	fmt.Printf("| reflect search (process) | %.2f ms | %.2f ms |\n", pct(viaCLI, 50), pct(viaCLI, 90))
	fmt.Printf("\nreflect search ÷ memory_search: %.1f× (median); target: memory_search ≤ 5 ms median: %s\n",
		pct(viaCLI, 50)/pct(viaMCP, 50), map[bool]string{true: "met", false: "NOT met"}[pct(viaMCP, 50) <= 5])
	return nil
}
