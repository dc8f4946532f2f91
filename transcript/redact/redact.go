package redact

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// Match is one secret that Find reported: its kind and the byte range
// s[Start:End] that String replaces. It never holds the secret itself.
type Match struct {
	Kind       string
	Start, End int
}

// markerPrefix starts every replacement. Find treats text already shaped like
// a marker as redacted, which is what makes String idempotent.
const markerPrefix = "[REDACTED:"

// String returns s with every secret replaced by a marker that names its
// kind, e.g. "[REDACTED:aws-access-key]". The text around a secret (the key
// of an assignment, the user and host of a URL, the scheme of an
// Authorization header) is kept. When s holds no secret, String returns s.
func String(s string) string {
	ms := Find(s)
	if len(ms) == 0 {
		return Personal(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 16*len(ms))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.Start])
		b.WriteString(markerPrefix)
		b.WriteString(m.Kind)
		b.WriteByte(']')
		last = m.End
	}
	b.WriteString(s[last:])
	return Personal(b.String())
}

// Bytes is String for a byte slice. The result never shares memory with b.
func Bytes(b []byte) []byte {
	return []byte(String(string(b)))
}

// Find reports the secrets in s, in order and without overlaps, without
// changing s. String replaces exactly these ranges.
func Find(s string) []Match {
	ms := find(s)
	if strings.Contains(s, "\\\n") || strings.Contains(s, "\\\r\n") {
		ms = continued(s, ms)
	}
	return ms
}

// continued adds to ms the secrets that a shell line continuation (a backslash ending a line)
// splits: `token ghp_\` and the rest on the next line are one word to a shell, and to the
// reader of a transcript who pastes it. The text with its continuations joined is read
// again; a secret found there across a join is replaced whole, the continuation with it.
// One found elsewhere is in ms already.
func continued(s string, ms []Match) []Match {
	var b strings.Builder
	at := make([]int, 0, len(s)+1) // at[i]: where byte i of the joined text is in s
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\n' {
			i++
			continue
		}
		if s[i] == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n' {
			i += 2
			continue
		}
		b.WriteByte(s[i])
		at = append(at, i)
	}
	at = append(at, len(s))
	var add []Match
	gone := map[int]bool{} // halves of ms that give way to a whole
	for _, m := range find(b.String()) {
		start, end := at[m.Start], at[m.End-1]+1
		if end-start == m.End-m.Start {
			continue // no join inside: found in s as it is
		}
		// a half found on its own line (an assignment's value) gives way to the whole; ms is
		// in order and without overlaps, so those are a run found by a binary search (a scan
		// of all of ms for each took 39 ms for 200 KB of split assignments, 4× for twice that)
		first := sort.Search(len(ms), func(i int) bool { return ms[i].End > start })
		last, across := first, false
		for ; last < len(ms) && ms[last].Start < end; last++ {
			if ms[last].Start < start || ms[last].End > end {
				across = true
			}
		}
		if across {
			continue
		}
		for i := first; i < last; i++ {
			gone[i] = true
		}
		add = append(add, Match{m.Kind, start, end})
	}
	if len(add) == 0 {
		return ms
	}
	kept := add
	for i, o := range ms {
		if !gone[i] {
			kept = append(kept, o)
		}
	}
	slices.SortFunc(kept, func(a, b Match) int { return cmp.Compare(a.Start, b.Start) })
	return kept
}

func find(s string) []Match {
	if s == "" {
		return nil
	}
	tables.Do(buildTables)
	sc := &scanner{s: maskMarkers(s)}
	sc.dispatch()
	sc.twilio()
	sc.infixes()
	sc.urls()
	sc.assignments()
	sc.prose()
	sc.gluedMarkers(s)
	return sc.matches()
}

// Priorities break ties between detectors that found the same range: the
// most specific kind names the marker.
const (
	prioInfix  = 900
	prioURL    = 1000
	prioAssign = 2000
)

type found struct {
	Match
	prio int
}

// scanner is the state of one Find call.
type scanner struct {
	s     string
	found []found
	runs  [numClasses]runMemo
	begin indexMemo // next "-----BEGIN " (private key blocks)
	end   indexMemo // next "-----END "
	// cmdEnd is where the arguments of the last command line read end.
	cmdEnd int
	// sids are the starts of the Twilio account SIDs dispatch found, and
	// sidPrio the priority of their detector.
	sids    []int
	sidPrio int
	// rejects holds, per detector, the end of the last run it turned
	// down, plus one (zero means none).
	rejects []int
}

func (sc *scanner) rejected(prio, end int) bool {
	return sc.rejects != nil && sc.rejects[prio] == end+1
}

func (sc *scanner) reject(prio, end int) {
	if sc.rejects == nil {
		sc.rejects = make([]int, numDetectors)
	}
	sc.rejects[prio] = end + 1
}

func (sc *scanner) add(kind string, start, end, prio int) {
	if start < end {
		sc.found = append(sc.found, found{Match{kind, start, end}, prio})
	}
}

// matches sorts what the detectors found and unions overlapping ranges, so
// that no byte of a secret survives because two detectors disagreed on where
// it ends. The kind is the one of the earliest, longest, most specific range.
func (sc *scanner) matches() []Match {
	if len(sc.found) == 0 {
		return nil
	}
	slices.SortFunc(sc.found, func(a, b found) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(b.End, a.End); c != 0 {
			return c
		}
		return cmp.Compare(a.prio, b.prio)
	})
	out := make([]Match, 0, len(sc.found))
	vFrom, vEnd := -1, -1 // the last value scanned: a scan from inside it ends where it did
	for _, f := range sc.found {
		m := f.Match
		if m.Start > 0 && (sc.s[m.Start-1] == '=' || sc.s[m.Start-1] == ':') && m.End < len(sc.s) && isWordByte(sc.s[m.End]) {
			// a value's match with text glued to its end takes the rest of the value, as
			// gluedMarkers reads its marker when redacted again: else the second pass would
			// change what the first wrote. (Without the memo, 20,000 such matches in one
			// value took 21 s for 480 KB, against 10 ms.)
			if m.End < vFrom || m.End > vEnd {
				vFrom, vEnd = m.End, valueEnd(sc.s, m.End)
			}
			m.End = max(m.End, vEnd)
		}
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// valueEnd is where the value that goes on at from ends: at a blank, a quote, a delimiter or
// '@', a full stop that ends a sentence left out.
func valueEnd(s string, from int) int {
	g := from
	for g < len(s) && !isSpaceByte(s[g]) && strings.IndexByte("\"'`,;&|<>(){}[]\\@", s[g]) < 0 {
		g++
	}
	for g > from && s[g-1] == '.' {
		g--
	}
	return g
}

// runMemo remembers the last run computed for a byte class: s[from:to] is
// all in the class and s[to] is not. Any later query that starts inside that
// run has the same end, which keeps repeated scans of one long run linear.
type runMemo struct {
	from, to int
	ok       bool
}

// runEnd returns the end of the run of class c that starts at p.
func (sc *scanner) runEnd(c classID, p int) int {
	m := &sc.runs[c]
	if m.ok && p >= m.from && p <= m.to {
		return m.to
	}
	set := classes[c]
	e := p
	for e < len(sc.s) && set[sc.s[e]] {
		e++
	}
	*m = runMemo{p, e, true}
	return e
}

// indexMemo remembers where the next occurrence of a fixed string is.
type indexMemo struct {
	from, at int
	ok       bool
}

// next returns the index of the first pat at or after p, or -1.
func (m *indexMemo) next(s, pat string, p int) int {
	if m.ok && p >= m.from && (m.at < 0 || p <= m.at) {
		return m.at
	}
	at := strings.Index(s[p:], pat)
	if at >= 0 {
		at += p
	}
	*m = indexMemo{p, at, true}
	return at
}

// gluedMarkers redacts the text glued to the end of a marker that starts a value (right
// after '=' or ':') — a letter, digit or '_' right after it, and the value bytes after
// that — with the marker: a marker is a placeholder only when what follows it is not part
// of the same value. (A detector's own range may end right before a word, a private key's
// END line glued to text: only a value's marker is read this way, so redacting stays
// idempotent.) In
// password=[REDACTED:x]q8Zr…, FOO_TOKEN=[REDACTED:x]… or postgres://admin:[REDACTED:x]pass@…
// a secret was pasted after (or partly over) a marker, and maskMarkers, which hides every
// marker from the detectors, left what followed as the tail of a placeholder.
func (sc *scanner) gluedMarkers(s string) {
	for k := strings.Index(s, markerPrefix); k >= 0; {
		e := k + len(markerPrefix)
		for e < len(s) && (isLower(s[e]) || isDigit(s[e]) || s[e] == '-') {
			e++
		}
		next := k + 1
		if e < len(s) && s[e] == ']' && e+1 < len(s) && isWordByte(s[e+1]) && k > 0 && (s[k-1] == '=' || s[k-1] == ':') {
			kind := s[k+len(markerPrefix) : e]
			g := valueEnd(s, e+1)
			if g > e+1 && kind != "" {
				sc.add(kind, k, g, prioAssign)
			}
			next = max(e+1, g)
		}
		k = strings.Index(s[next:], markerPrefix)
		if k >= 0 {
			k += next
		}
	}
}

// maskMarkers hides markers from a previous redaction behind '*', which
// every detector reads as a placeholder, so that redacting twice changes
// nothing. Offsets are unchanged.
func maskMarkers(s string) string {
	k := strings.Index(s, markerPrefix)
	if k < 0 {
		return s
	}
	b := []byte(s)
	for k >= 0 {
		e := k + len(markerPrefix)
		for e < len(s) && (isLower(s[e]) || isDigit(s[e]) || s[e] == '-') {
			e++
		}
		next := k + 1
		if e < len(s) && s[e] == ']' {
			for j := k; j <= e; j++ {
				b[j] = '*'
			}
			next = e + 1
		}
		k = strings.Index(s[next:], markerPrefix)
		if k >= 0 {
			k += next
		}
	}
	return string(b)
}
