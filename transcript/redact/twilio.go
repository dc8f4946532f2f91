package redact

// A Twilio account authenticates with its account SID (AC + 32 hex) and an
// auth token that is 32 bare hex bytes: the token alone has the shape of an
// MD5 sum or a UUID without dashes, which transcripts are full of, so it is
// recognised only next to a SID. "Next to" is the SID's line and the two
// lines on either side: the basic-auth pair AC…:token, Client("AC…",
// "token") on one line or spread over three, a SID and a token printed one
// above the other. The SID itself is an account name, not a credential, and
// is kept so the text still says which account it was.

// twilioNear is how many lines around a SID may hold its auth token.
const twilioNear = 2

// findTwilioSID records an account SID; twilio redacts the tokens near it
// once every SID is known.
func findTwilioSID(sc *scanner, i, prio int) (int, bool) {
	s := sc.s
	p := i + len("AC")
	e := sc.runEnd(cHex, p)
	if e-p != 32 || (e < len(s) && isAlnum(s[e])) || repetitive(s[p:e]) {
		return i, false
	}
	sc.sids = append(sc.sids, i)
	sc.sidPrio = prio
	return e, true
}

// twilio redacts the auth tokens on the lines near each account SID. It
// walks the lines twice, once to number the SIDs' lines and once to scan the
// lines near them, so any number of SIDs costs two passes at most; a text
// without a SID costs nothing.
func (sc *scanner) twilio() {
	if len(sc.sids) == 0 {
		return
	}
	s := sc.s
	sidLine := make([]int, len(sc.sids))
	k := 0
	for p, line := 0, 0; k < len(sc.sids); line++ {
		end := lineEnd(s, p, len(s))
		for k < len(sc.sids) && sc.sids[k] <= end {
			sidLine[k] = line
			k++
		}
		p = lineBreakAfter(s, end)
	}
	k = 0
	for p, line := 0, 0; p < len(s) && k < len(sidLine); line++ {
		end := lineEnd(s, p, len(s))
		for k < len(sidLine) && sidLine[k] < line-twilioNear {
			k++
		}
		if k < len(sidLine) && sidLine[k] <= line+twilioNear {
			sc.twilioTokens(p, end)
		}
		p = lineBreakAfter(s, end)
	}
}

// twilioTokens redacts every word of s[from:to] that is exactly 32
// lower-case hex bytes with both letters and digits in it.
func (sc *scanner) twilioTokens(from, to int) {
	s := sc.s
	for j := from; j < to; j++ {
		if !classes[cHex][s[j]] || !boundaryBefore(s, j) {
			continue
		}
		e := j
		for e < to && classes[cHex][s[e]] {
			e++
		}
		if v := s[j:e]; len(v) == 32 && (e == len(s) || !isAlnum(s[e])) &&
			hasDigit(v) && !allDigits(v) && !repetitive(v) {
			sc.add("twilio-auth-token", j, e, sc.sidPrio)
		}
		j = e
	}
}

// lineBreakAfter steps from the end of a line (as lineEnd finds it) over its
// line break, real or escaped, onto the start of the next line.
func lineBreakAfter(s string, p int) int {
	switch {
	case p >= len(s):
		return len(s)
	case s[p] == '\\':
		p += 2
		if p+1 < len(s) && s[p-1] == 'r' && s[p] == '\\' && s[p+1] == 'n' {
			p += 2
		}
		return p
	case s[p] == '\r' && p+1 < len(s) && s[p+1] == '\n':
		return p + 2
	}
	return p + 1
}
