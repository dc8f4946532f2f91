package learnings

// A project key is also a path: learnings/<key>/<id>.md, in every clone of a memory, on
// Linux, macOS and Windows, and in trees that git fsck checks. So a key's segments obey the
// rules of all three file systems and of git, and two projects never share a directory.
//
// A segment is made in two steps. Normalising is deliberately many-to-one, as keys always
// were: Unicode NFC (the composed and decomposed é are one name), and every ASCII character
// outside [A-Za-z0-9._-] becomes '-' ("my group" and "~user" keep the keys my-group and -user
// they had, so existing memories do not move). Encoding is one-to-one: a byte that is not
// ASCII is written %XX (upper-case hex), so "аcme" with a Cyrillic а is %D0%B0cme and no
// longer -cme; and the names a file system or git would read as something else get one
// character escaped the same way:
//
//   - .git in any case (git refuses it; "git~1", ".git." and ".g\u200cit", which NTFS and
//     HFS+ read as .git, cannot occur: '~' and spaces are folded, other code points encoded):
//     %2Egit;
//   - a name Windows reserves for a device, with or without an extension (CON, PRN, AUX,
//     NUL, COM0-9, LPT0-9; con.txt): the last letter of the name, CO%4E, co%6E.txt;
//   - a trailing dot, which Windows drops (so "." and ".." cannot occur either): %2E.
//
// '%' itself is folded, so every '%' in a key starts an escape and decoding gives the
// normalised segment back: distinct normalised inputs give distinct keys by construction.
// A segment longer than MaxSegmentLen bytes is cut and ends in %h and 16 hex digits of its
// SHA-256 ('h' is no hex digit, so the suffix is unambiguous too); a key longer than
// MaxProjectKeyLen keeps its host and turns its path into one such segment.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/reflect-memory/reflect/gitstore"
)

const (
	// MaxSegmentLen bounds a key's segments. GitHub's repository names stop at 100
	// characters, owners at 39; ext4 and APFS allow 255 bytes a name.
	MaxSegmentLen = 100
	// MaxProjectKeyLen bounds a whole key: Windows paths stop at 260 characters without
	// long-path support, and a learning's path adds learnings/ and /lrn-<26>.md (44) to the
	// memory's own location.
	MaxProjectKeyLen = 180
)

// hashSuffixLen is "%h" and 16 hex digits.
const hashSuffixLen = 2 + 16

// normalizeSegment is NFC with ASCII outside [A-Za-z0-9._-] folded to '-'. Bytes that are
// not ASCII, valid UTF-8 or not, are kept for encodeSegment.
func normalizeSegment(s string) string {
	s = norm.NFC.String(s)
	b := []byte(s)
	for i, c := range b {
		if c < 0x80 && !validKeyChar(c) {
			b[i] = '-'
		}
	}
	return string(b)
}

// normalizeHost is a normalised host: lower case first.
func normalizeHost(h string) string { return normalizeSegment(strings.ToLower(h)) }

// encodeSegment writes a normalised, non-empty segment as a key segment (see the top of
// this file).
func encodeSegment(n string) string {
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if c := n[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	s := b.String()
	if strings.EqualFold(s, ".git") {
		s = "%2E" + s[1:]
	}
	if gitstore.IsDeviceName(s) {
		base, _, _ := strings.Cut(s, ".")
		last := len(base) - 1
		s = base[:last] + fmt.Sprintf("%%%02X", base[last]) + s[len(base):]
	}
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1] + "%2E"
	}
	return cutSegment(s, MaxSegmentLen)
}

// cutSegment bounds an encoded segment to limit bytes: a longer one keeps what fits of its
// start, not splitting an escape, and ends in %h and 16 hex digits of its SHA-256.
func cutSegment(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit - hashSuffixLen
	if i := strings.LastIndexByte(s[max(0, n-2):n], '%'); i >= 0 {
		n = max(0, n-2) + i // do not split %XX
	}
	sum := sha256.Sum256([]byte(s))
	return s[:n] + "%h" + hex.EncodeToString(sum[:8])
}

// decodeSegment is the bytes a key segment names: %XX escapes replaced by their byte. A
// segment cut by cutSegment decodes only to the start it kept; hashed reports it.
func decodeSegment(seg string) (n string, hashed bool, err error) {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if rest := seg[i+1:]; strings.HasPrefix(rest, "h") {
			if len(rest) != hashSuffixLen-1 || !isLowerHex(rest[1:]) {
				return "", false, fmt.Errorf("%%h at byte %d is not the end of the segment followed by 16 lower-case hex digits", i)
			}
			return b.String(), true, nil
		}
		if i+2 >= len(seg) || !isUpperHex(seg[i+1:i+3]) {
			return "", false, fmt.Errorf("%% at byte %d is not followed by two upper-case hex digits", i)
		}
		var v byte
		for _, h := range []byte(seg[i+1 : i+3]) {
			v = v<<4 | hexValue(h)
		}
		b.WriteByte(v)
		i += 2
	}
	return b.String(), false, nil
}

func isUpperHex(s string) bool {
	return strings.Trim(s, "0123456789ABCDEF") == ""
}

func isLowerHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

func hexValue(h byte) byte {
	if h <= '9' {
		return h - '0'
	}
	return h - 'A' + 10
}

func validKeyChar(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// ValidProjectKey checks a project key, such as the name of a directory under learnings/
// that came from another machine, and says which rule it breaks: it is Global,
// local/<name>, or a lower-case host followed by one or more segments; no segment is empty,
// "." or "..", .git or a name that Windows or macOS reads as .git, a device name Windows
// reserves, or ends in a dot or a space; segments hold A-Z a-z 0-9 . _ - and %XX escapes
// written as ProjectKey writes them, at most MaxSegmentLen bytes each, MaxProjectKeyLen in
// all. Every key ProjectKey and NormalizeRemote return passes.
func ValidProjectKey(key string) error {
	switch {
	case key == Global:
		return nil
	case key == "":
		return errors.New("project key is empty")
	case len(key) > MaxProjectKeyLen:
		return fmt.Errorf("project key %.40q… is %d bytes long, the limit is %d", key, len(key), MaxProjectKeyLen)
	}
	segs := strings.Split(key, "/")
	switch {
	case len(segs) < 2:
		return fmt.Errorf("project key %q: want %s, local/<name> or host/owner/name", key, Global)
	case segs[0] == "local" && len(segs) != 2:
		return fmt.Errorf("project key %q: a local key is local/<name>, one segment after local/", key)
	}
	for i, seg := range segs {
		host := i == 0 && segs[0] != "local"
		if err := checkSegment(seg, host); err != nil {
			return fmt.Errorf("project key %q: %w", key, err)
		}
	}
	return nil
}

// checkSegment checks one segment of a key; host segments are also lower case and start
// with a letter, a digit or an escape.
func checkSegment(seg string, host bool) error {
	what := "segment"
	if host {
		what = "host"
	}
	switch {
	case seg == "":
		return errors.New("empty segment: a leading, trailing or doubled slash")
	case seg == "." || seg == "..":
		return fmt.Errorf("%s %q is a relative path step", what, seg)
	case len(seg) > MaxSegmentLen:
		return fmt.Errorf("%s %.40q… is %d bytes long, the limit is %d", what, seg, len(seg), MaxSegmentLen)
	case gitstore.IsDotGit(seg):
		return fmt.Errorf("%s %q is .git or a name that Windows or macOS reads as .git", what, seg)
	case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
		return fmt.Errorf("%s %q ends in a dot or a space, which Windows drops", what, seg)
	}
	if gitstore.IsDeviceName(seg) {
		return fmt.Errorf("%s %q is a device name Windows reserves (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an extension)", what, seg)
	}
	for i := range len(seg) {
		if c := seg[i]; !validKeyChar(c) && c != '%' {
			return fmt.Errorf("%s %q has %q at byte %d: a key holds A-Z a-z 0-9 . _ - and %%XX escapes", what, seg, seg[i:i+1], i)
		}
	}
	n, hashed, err := decodeSegment(seg)
	if err != nil {
		return fmt.Errorf("%s %q: %w", what, seg, err)
	}
	if host && (strings.ContainsFunc(n, func(r rune) bool { return 'A' <= r && r <= 'Z' }) || strings.IndexByte("._-", seg[0]) >= 0) {
		return fmt.Errorf("host %q must be lower case and start with a letter, a digit or an escape", seg)
	}
	if hashed {
		return nil // what the cut left out cannot be checked; what it kept was checked above
	}
	want := encodeSegment(normalizeSegment(n))
	if host {
		want = encodeSegment(normalizeHost(n))
	}
	if want != seg {
		return fmt.Errorf("%s %q is not written as ProjectKey writes it (%q)", what, seg, want)
	}
	return nil
}
