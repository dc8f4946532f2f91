package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// msg is the part of a Message a table test states. Exit is "" for no exit code.
type msg struct {
	Role  Role
	Kind  Kind
	Text  string
	Tool  string
	Input string
	Call  string
	Err   bool
	Exit  string
	Side  bool
	Agent string
	Proc  string
}

func (m msg) String() string {
	s := fmt.Sprintf("%s/%s", m.Role, m.Kind)
	if m.Tool != "" {
		s += " tool=" + m.Tool
	}
	if m.Input != "" {
		s += " input=" + strconv.Quote(m.Input)
	}
	if m.Call != "" {
		s += " call=" + m.Call
	}
	if m.Err {
		s += " ERR"
	}
	if m.Exit != "" {
		s += " exit=" + m.Exit
	}
	if m.Side {
		s += " sidechain"
	}
	if m.Agent != "" {
		s += " agent=" + m.Agent
	}
	if m.Proc != "" {
		s += " process=" + m.Proc
	}
	return s + " " + strconv.Quote(m.Text)
}

func view(ms []Message) []msg {
	out := make([]msg, len(ms))
	for i, m := range ms {
		v := msg{Role: m.Role, Kind: m.Kind, Text: m.Text, Tool: m.ToolName, Input: m.ToolInput,
			Call: m.CallID, Err: m.IsError, Side: m.Sidechain, Agent: m.Agent, Proc: m.Process}
		if m.ExitCode != nil {
			v.Exit = strconv.Itoa(*m.ExitCode)
		}
		out[i] = v
	}
	return out
}

func sameMsgs(t *testing.T, got []Message, want []msg) {
	t.Helper()
	g := view(got)
	if len(want) == 0 && len(g) == 0 {
		return
	}
	if !reflect.DeepEqual(g, want) {
		var b strings.Builder
		fmt.Fprintf(&b, "messages differ\n got (%d):\n", len(g))
		for _, m := range g {
			fmt.Fprintf(&b, "   %v\n", m)
		}
		fmt.Fprintf(&b, " want (%d):\n", len(want))
		for _, m := range want {
			fmt.Fprintf(&b, "   %v\n", m)
		}
		t.Error(b.String())
	}
}

// lines joins JSON lines into a transcript, each with its newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func readString(t *testing.T, h Harness, data string) *Session {
	t.Helper()
	s, err := Read(strings.NewReader(data), h)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	checkInvariants(t, s, int64(len(data)))
	return s
}

// checkInvariants holds for every read of every input.
func checkInvariants(t testing.TB, s *Session, size int64) {
	t.Helper()
	if s.End < 0 || s.End > size {
		t.Fatalf("End %d outside [0,%d]", s.End, size)
	}
	if s.Skipped > s.Lines {
		t.Fatalf("Skipped %d > Lines %d", s.Skipped, s.Lines)
	}
	sum := 0
	for _, n := range s.SkipReasons {
		sum += n
	}
	if sum != s.Skipped {
		t.Fatalf("SkipReasons sum %d != Skipped %d (%v)", sum, s.Skipped, s.SkipReasons)
	}
	var last int64
	for i, m := range s.Messages {
		if m.Offset < last || m.Offset >= s.End {
			t.Fatalf("message %d offset %d out of order or past End %d", i, m.Offset, s.End)
		}
		last = m.Offset
	}
}

const fixtureDir = "../fixtures/transcripts"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func counts(ms []Message) map[string]int {
	c := map[string]int{}
	for _, m := range ms {
		c[string(m.Role)+"/"+string(m.Kind)]++
	}
	return c
}

func exit(n int) string { return strconv.Itoa(n) }
