package redact

import "strings"

// Two kinds of credential do not start with their fixed part, so dispatch,
// which tries detectors at the start of a word, cannot find them: a
// Terraform Cloud token (<14 bytes>.atlasv1.<60-70 bytes>) and an Entra ID
// (Azure AD) client secret (<3 bytes><digit>Q~<31-34 bytes>). infixes looks
// for the fixed part with strings.Index, which skips a megabyte of text that
// has neither in well under a tenth of a millisecond, and checks the bytes
// around each one it finds.
func (sc *scanner) infixes() {
	sc.eachInfix(".atlasv1.", func(k int) {
		a := k - 14
		if a < 0 || !boundaryBefore(sc.s, a) || sc.runEnd(cAlnum, a) != k {
			return
		}
		e := boundedRun(sc.s, k+len(".atlasv1."), 70, isTerraformByte)
		if n := e - k - len(".atlasv1."); n >= 60 && n <= 70 && !isTerraformByte(byteAt(sc.s, e)) && mixed(sc.s[a:k]) {
			sc.add("terraform-token", a, e, prioInfix)
		}
	})
	sc.eachInfix("Q~", func(k int) {
		a := k - 4
		if a < 0 || !isDigit(sc.s[k-1]) || (a > 0 && isAzureSecretByte(sc.s[a-1])) {
			return
		}
		for j := a; j < k-1; j++ {
			if !isAzureSecretByte(sc.s[j]) {
				return
			}
		}
		e := boundedRun(sc.s, k+2, 34, isAzureSecretByte)
		if n := e - k - 2; n >= 31 && n <= 34 && !isAzureSecretByte(byteAt(sc.s, e)) && allKinds(sc.s[a:e]) {
			sc.add("azure-client-secret", a, e, prioInfix)
		}
	})
}

// eachInfix calls fn with the index of each occurrence of pat.
func (sc *scanner) eachInfix(pat string, fn func(int)) {
	for off := 0; ; {
		k := strings.Index(sc.s[off:], pat)
		if k < 0 {
			return
		}
		fn(off + k)
		off += k + len(pat)
	}
}

// boundedRun returns the end of the run of bytes in, starting at p, reading
// at most limit+1 bytes so that a caller can tell a run that is too long.
func boundedRun(s string, p, limit int, in func(byte) bool) int {
	e := p
	for e < len(s) && e-p <= limit && in(s[e]) {
		e++
	}
	return e
}

// byteAt is s[i], or 0 past the end.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isTerraformByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '=' }

func isAzureSecretByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '~' || c == '.' || c == '-'
}
