package history

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText prints a search result for a person: per session a header, then each window's
// messages, the hits marked with '>'.
func (r *Result) WriteText(w io.Writer) {
	where := "in project " + r.Project
	if r.Scope == "global" {
		where = "in any project"
	}
	if len(r.Results) == 0 {
		fmt.Fprintf(w, "no session %s matches %s (%s)\n", where, quoted(r.Query), r.Mode)
		if r.Note != "" {
			fmt.Fprintf(w, "%s\n", r.Note)
		}
		if r.Scope != "global" && r.Note == "" {
			fmt.Fprintln(w, "--global searches the sessions of every project")
		}
		return
	}
	fmt.Fprintf(w, "%s (%s): %s in %s %s\n", quoted(r.Query), r.Mode, plural(r.Hits, "hit"), plural(r.Sessions, "session"), where)
	if r.Note != "" {
		fmt.Fprintf(w, "%s\n", r.Note)
	}
	for i, s := range r.Results {
		fmt.Fprintf(w, "\n%d. %s %s · %s\n", i+1, s.Harness, s.Session, plural(s.Hits, "hit"))
		meta := []string{s.Project}
		if s.Branch != "" {
			meta = append(meta, s.Branch)
		}
		if s.CWD != "" {
			meta = append(meta, s.CWD)
		}
		meta = append(meta, s.Started.UTC().Format("2006-01-02 15:04 UTC"), plural(s.Messages, "message"))
		fmt.Fprintf(w, "   %s\n", strings.Join(meta, " · "))
		for _, win := range s.Windows {
			from := "messages"
			if win.Subagent != "" {
				from = "subagent " + win.Subagent + ", messages"
			}
			fmt.Fprintf(w, "\n   ── %s %d–%d\n", from, win.From, win.To)
			writeMessages(w, win.Messages, win.Subagent == "")
		}
		if s.Omitted > 0 {
			fmt.Fprintf(w, "\n   (%s not shown: --budget-chars)\n", plural(s.Omitted, "more window"))
		}
	}
	if r.BudgetReached {
		fmt.Fprintf(w, "\n(--budget-chars reached; the rest is not shown)\n")
	}
	if more := r.Sessions - len(r.Results); more > 0 {
		fmt.Fprintf(w, "\n(%s not shown; --limit shows more)\n", plural(more, "more session"))
	}
}

// quoted is the query as typed, between quotes it does not hold.
func quoted(q string) string {
	if strings.Contains(q, `"`) {
		return "'" + q + "'"
	}
	return `"` + q + `"`
}

// writeMessages prints a window's messages; in the main transcript, sidechain messages
// (a subagent's, inline) say so.
func writeMessages(w io.Writer, ms []Message, main bool) {
	width, seqWidth := 0, 0
	for _, m := range ms {
		width = max(width, len(label(m, main)))
		seqWidth = max(seqWidth, len(strconv.Itoa(m.Seq)))
	}
	for _, m := range ms {
		mark := " "
		if m.Hit {
			mark = ">"
		}
		prefix := fmt.Sprintf("   %s %*d %-*s  ", mark, seqWidth, m.Seq, width, label(m, main))
		indent := strings.Repeat(" ", len([]rune(prefix)))
		for i, line := range strings.Split(body(m), "\n") {
			line = strings.TrimRight(line, " \t\r")
			switch {
			case i == 0:
				fmt.Fprintf(w, "%s%s\n", prefix, line)
			case line == "":
				fmt.Fprintln(w)
			default:
				fmt.Fprintf(w, "%s%s\n", indent, line)
			}
		}
	}
}

// label names what a message is: who said it, or what the tool did.
func label(m Message, main bool) string {
	l := m.Role
	switch {
	case m.Kind == kindCall:
		l = "tool call"
	case m.Kind == kindResult && m.Error:
		l = "tool error"
	case m.Kind == kindResult:
		l = "tool output"
	}
	if main && m.Sidechain && m.Role != roleTool {
		l += " (side)"
	}
	return l
}

func body(m Message) string {
	text := strings.Trim(m.Text, "\n")
	switch m.Kind {
	case kindCall:
		return joinNonEmpty(": ", m.Tool, strings.Trim(m.Input, "\n"))
	case kindResult:
		head := m.Tool
		if m.ExitCode != nil {
			head = strings.TrimSpace(head + " (exit " + strconv.Itoa(*m.ExitCode) + ")")
		}
		if head == "" {
			return text
		}
		if !strings.Contains(text, "\n") {
			return head + ": " + text
		}
		return head + ":\n" + text
	}
	return text
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// WriteText prints what an import did.
func (r *Report) WriteText(w io.Writer) {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{r.New, "new"}, {r.Grown, "grown"}, {r.Rewritten, "rewritten"}, {r.Unchanged, "unchanged"},
		{r.Older, "older than --since-days"}, {r.Deferred, "left for later (--limit-files)"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	detail := ""
	if len(parts) > 0 {
		detail = " (" + strings.Join(parts, ", ") + ")"
	}
	replaced := ""
	if r.Replaced > 0 {
		replaced = " (" + plural(r.Replaced, "message") + " replaced: their file changed them)"
	}
	fmt.Fprintf(w, "read %d of %s%s: %s%s in %s, %s, in %.2fs\n", r.Read, plural(r.Found, "transcript file"), detail,
		plural(r.Messages, "new message"), replaced, plural(r.Sessions, "session"), bytesize(r.Bytes), r.Seconds)
	if len(r.Folders) > 0 {
		var read []string
		for _, f := range r.Folders {
			if f.Missing {
				read = append(read, f.Path+" (not there)")
			} else {
				read = append(read, fmt.Sprintf("%s (%s)", f.Path, plural(f.Files, "transcript file")))
			}
		}
		fmt.Fprintf(w, "folders read: %s\n", strings.Join(read, ", "))
	}
	if r.Reindexed > 0 {
		fmt.Fprintf(w, "rebuilt the index from the archive: %s\n", plural(r.Reindexed, "message"))
	}
	if len(r.SkippedFiles) > 0 {
		fmt.Fprintf(w, "skipped %s:\n", plural(len(r.SkippedFiles), "file"))
		for _, s := range r.SkippedFiles {
			fmt.Fprintf(w, "  %s: %s\n", s.Path, s.Reason)
		}
	}
	if n := total(r.SkippedLines); n > 0 {
		where := ""
		if f := r.FirstSkippedLine; f != nil {
			where = fmt.Sprintf("; the first at %s line %d", f.Path, f.Line)
			if r.SkippedLineFiles > 1 {
				where += fmt.Sprintf(" (in %s)", plural(r.SkippedLineFiles, "file"))
			}
		}
		fmt.Fprintf(w, "skipped %s of the files read: %s%s\n", plural(n, "unusable line"), reasons(r.SkippedLines), where)
	}
	for _, p := range r.Torn {
		fmt.Fprintf(w, "still being written, read up to its last complete line: %s\n", p)
	}
	fmt.Fprintf(w, "archive: %s, %s\n", plural(r.TotalSessions, "session"), plural(r.TotalMessages, "message"))
}

// WriteRecent prints sessions as `history recent` lists them.
func WriteRecent(w io.Writer, sessions []Session) {
	for i, s := range sessions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  %s %s · %s · %s\n", s.Updated.UTC().Format("2006-01-02 15:04 UTC"), s.Harness, s.ID, s.Project, plural(s.Messages, "message"))
		if s.Prompt != "" {
			fmt.Fprintf(w, "  > %s\n", s.Prompt)
		}
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return formatInt(n) + " " + what + "s"
}

// formatInt writes n with thousands separators.
func formatInt(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + formatInt(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func bytesize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
