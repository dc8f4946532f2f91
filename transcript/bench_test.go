package transcript

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/reflect-memory/reflect/fixtures"
)

// grow repeats a fixture until it is at least size bytes, renaming its ids in every copy
// so that the copies are new records, not duplicates the reader would drop.
func grow(b *testing.B, name string, size int) []byte {
	b.Helper()
	data := fixture(b, name)
	var out bytes.Buffer
	for r := 0; out.Len() < size; r++ {
		p := []byte(fmt.Sprintf("r%d", r))
		d := data
		for _, key := range []string{`"uuid":"`, `"id":"msg_`, `"id":"toolu_`, `"tool_use_id":"toolu_`, `"call_id":"call_`} {
			d = bytes.ReplaceAll(d, []byte(key), append([]byte(key), p...))
		}
		out.Write(d)
	}
	return out.Bytes()
}

// bigOutputs is a session of n tool calls whose results are size bytes each: the shape
// of a transcript where multi-MB lines are normal.
func bigOutputs(h Harness, n, size int) []byte {
	body := strings.Repeat(`ok   github.com/acme/api/internal/pkg\t0.012s\n`, size/48)
	var out strings.Builder
	for i := 0; i < n; i++ {
		if h == HarnessClaude {
			out.WriteString(asst(fmt.Sprintf("a%d", i), fmt.Sprintf("m%d", i), strings.Replace(bashUse, "toolu_1", fmt.Sprintf("toolu_%d", i), 1)) + "\n")
			out.WriteString(userLine(fmt.Sprintf("u%d", i), fmt.Sprintf(`[{"tool_use_id":"toolu_%d","type":"tool_result","content":"%s","is_error":false}]`, i, body),
				fmt.Sprintf(`"toolUseResult":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false}`, body)) + "\n")
			continue
		}
		out.WriteString(item(strings.Replace(execCall, "call_1", fmt.Sprintf("call_%d", i), 1)) + "\n")
		out.WriteString(item(fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":"Chunk ID: 1\\nWall time: 1 seconds\\nProcess exited with code 0\\nOriginal token count: 9\\nOutput:\\n%s"}`, i, body)) + "\n")
		out.WriteString(event(fmt.Sprintf(`{"type":"exec_command_end","call_id":"call_%d","exit_code":0,"aggregated_output":"%s"}`, i, body)) + "\n")
	}
	return []byte(out.String())
}

func benchRead(b *testing.B, h Harness, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Read(bytes.NewReader(data), h)
		if err != nil || s.Skipped != 0 {
			b.Fatal(err, s.SkipReasons)
		}
	}
}

func BenchmarkReadClaude(b *testing.B) {
	b.Run("fixture", func(b *testing.B) { benchRead(b, HarnessClaude, fixture(b, "claude-session.jsonl")) })
	b.Run("fixture-16MB", func(b *testing.B) { benchRead(b, HarnessClaude, grow(b, "claude-session.jsonl", 16<<20)) })
	b.Run("2MB-outputs", func(b *testing.B) { benchRead(b, HarnessClaude, bigOutputs(HarnessClaude, 8, 2<<20)) })
}

func BenchmarkReadCodex(b *testing.B) {
	b.Run("fixture", func(b *testing.B) { benchRead(b, HarnessCodex, fixture(b, "codex-rollout.jsonl")) })
	b.Run("fixture-16MB", func(b *testing.B) { benchRead(b, HarnessCodex, grow(b, "codex-rollout.jsonl", 16<<20)) })
	b.Run("legacy", func(b *testing.B) { benchRead(b, HarnessCodex, fixture(b, "codex-legacy.jsonl")) })
	b.Run("2MB-outputs", func(b *testing.B) { benchRead(b, HarnessCodex, bigOutputs(HarnessCodex, 8, 2<<20)) })
}

// growIDs repeats a fixture until it is at least size bytes, each copy's "id" values
// prefixed so that Gemini's last-version-wins does not fold the copies together.
func growIDs(b *testing.B, name string, size int) []byte {
	b.Helper()
	data := fixture(b, name)
	var out bytes.Buffer
	for r := 0; out.Len() < size; r++ {
		d := bytes.ReplaceAll(data, []byte(`"id":"`), []byte(fmt.Sprintf(`"id":"r%d-`, r)))
		out.Write(bytes.ReplaceAll(d, []byte(`"$rewindTo":"`), []byte(fmt.Sprintf(`"$rewindTo":"r%d-`, r))))
	}
	return out.Bytes()
}

// BenchmarkReadHosts: the other hosts' readers take each line's fields through the scanner
// (jsonfields.go), then read them leniently; at 16 MB, the most a capture reads, Gemini's
// took 0.67 s of wall time at a load of 11 (0.2 s of CPU), Copilot's 0.23 s, Cursor's
// tiny lines 0.87 s, Claude Code's 0.07 s.
func BenchmarkReadHosts(b *testing.B) {
	b.Run("claude-16MB", func(b *testing.B) { benchRead(b, HarnessClaude, grow(b, "claude-session.jsonl", 16<<20)) })
	b.Run("gemini-16MB", func(b *testing.B) { benchRead(b, HarnessGemini, growIDs(b, "gemini-session.jsonl", 16<<20)) })
	b.Run("copilot-16MB", func(b *testing.B) { benchRead(b, HarnessCopilot, growIDs(b, "copilot-events.jsonl", 16<<20)) })
	b.Run("cursor-16MB", func(b *testing.B) { benchRead(b, HarnessCursor, growIDs(b, "cursor-transcript.jsonl", 16<<20)) })
}

// BenchmarkReadGemini2000 reads a Gemini CLI session of 2,000 kept messages as the CLI
// writes it (each gemini message written three times a turn): what the history import reads
// again after every turn (history's BenchmarkImportGeminiTurn).
func BenchmarkReadGemini2000(b *testing.B) {
	benchRead(b, HarnessGemini, fixtures.NewSynthGemini(3, "7c1e4a90-2b3d-4f5e-8a6b-9c0d1e2f3a4b").Session(2000))
}
