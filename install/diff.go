package install

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change, as diff -u does.
const diffContext = 3

// Diff is a unified diff from before to after, as `diff -u` writes it and patch(1) applies it:
// hunks with their `@@ -l,n +l,n @@` headers and three lines of context, and a last line
// without a newline marked `\ No newline at end of file`. nil stands for a missing file
// (/dev/null).
func Diff(path string, before, after []byte) string {
	a, b := splitLines(before), splitLines(after)
	from, to := path, path
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	ops := editScript(a, b)
	for start := 0; start < len(ops); {
		// a hunk runs from the context before its first change to the context after its
		// last change, taking in changes closer than twice the context
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		lo := max(first-diffContext, start)
		hi, gap := first, 0
		for i := first; i < len(ops); i++ {
			if ops[i].kind != ' ' {
				hi, gap = i+1, 0
				continue
			}
			if gap++; gap > 2*diffContext {
				break
			}
		}
		hi = min(hi+diffContext, len(ops))
		hunk(&out, ops[lo:hi], a, b)
		start = hi
	}
	return out.String()
}

// op is one line of an edit script: kept (' '), removed ('-') or added ('+'); ai and bi are
// the line's index in before and after (for a kept line both), and where it would be.
type op struct {
	kind   byte
	ai, bi int
}

// hunk writes one hunk of ops.
func hunk(out *strings.Builder, ops []op, a, b []string) {
	aStart, bStart, aLen, bLen := ops[0].ai, ops[0].bi, 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			aLen++
		}
		if o.kind != '-' {
			bLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
	for _, o := range ops {
		line := ""
		switch o.kind {
		case '+':
			line = b[o.bi]
		default:
			line = a[o.ai]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange is a hunk header's range: the first line (1-based) and the count; an empty range
// names the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines cuts data into lines that keep their "\n"; only the last may lack one.
func splitLines(data []byte) []string {
	var lines []string
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// editScript turns a into b with the fewest removed and added lines (a longest common
// subsequence). The common head and tail are set aside first: an install changes one region
// of a file, so what is left to compare is small whatever the size of the file.
func editScript(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	n, m := len(ma), len(mb)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	ops := make([]op, 0, len(a)+len(b))
	for i := range head {
		ops = append(ops, op{' ', i, i})
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && ma[i] == mb[j]:
			ops = append(ops, op{' ', head + i, head + j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', head + i, head + j})
			i++
		default:
			ops = append(ops, op{'+', head + i, head + j})
			j++
		}
	}
	for k := range tail {
		ops = append(ops, op{' ', len(a) - tail + k, len(b) - tail + k})
	}
	return ops
}
