package learnings

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// TestProjectKeysDoNotCollide: inputs that gave one key before keys were encoded give two;
// spellings of one name (NFC) still give one.
func TestProjectKeysDoNotCollide(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://github.com/аcme/auth", "https://github.com/-cme/auth", false}, // Cyrillic а
		{"https://github.com/аcme/auth", "https://github.com/acme/auth", false},
		{"https://host/caf\u00e9/x", "https://host/cafe\u0301/x", true}, // é composed and decomposed
		{"https://host/caf\u00e9/x", "https://host/caf-/x", false},
		{"https://host/%E2%80%8C/x", "https://host/-/x", false},
		{"https://host/.git/x", "host:%2Egit/x", false},        // a literal "%2Egit": '%' is folded
		{"https://host/.git/x", "https://host/%2Egit/x", true}, // a URL's path is unescaped: .git
		{"https://host/con/x", "https://host/co%4E/x", false},
		{"https://host/acme./x", "host:acme%2E/x", false},
		{"https://gít.example/a/b", "https://g-t.example/a/b", false},
		{"/srv/Café", "/srv/caf-", false},
		{"/srv/CON", "/srv/co-n", false},
		{"https://host/" + strings.Repeat("a", 150) + "/x", "https://host/" + strings.Repeat("a", 150) + "b/x", false},
		{"https://host/" + strings.Repeat("a/", 100) + "x", "https://host/" + strings.Repeat("a/", 100) + "y", false},
		{"https://host/" + strings.Repeat("a/", 100) + "x", "https://host/" + strings.Repeat("a-", 100) + "x", false},
	} {
		ka, erra := NormalizeRemote(tc.a)
		kb, errb := NormalizeRemote(tc.b)
		if erra != nil || errb != nil {
			t.Errorf("%q, %q: %v, %v", tc.a, tc.b, erra, errb)
			continue
		}
		if (ka == kb) != tc.same {
			t.Errorf("%q → %q and %q → %q: same %v, want %v", tc.a, ka, tc.b, kb, ka == kb, tc.same)
		}
		for _, k := range []string{ka, kb} {
			if err := ValidProjectKey(k); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// TestProjectKeyPathRules: what each rule makes of a remote or a local name.
func TestProjectKeyPathRules(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// ASCII keys are as they were
		{"git@github.com:acme/auth.git", "github.com/acme/auth"},
		{"https://gitlab.example.com/my%20group/app.git", "gitlab.example.com/my-group/app"},
		// not ASCII: %XX of the NFC form's UTF-8
		{"https://github.com/аcme/auth", "github.com/%D0%B0cme/auth"},
		{"https://host/cafe\u0301", "host/caf%C3%A9"},
		{"https://GÍT.example/a", "g%C3%ADt.example/a"},
		{"/srv/Café", "local/caf%C3%A9"},
		// .git and what NTFS and HFS+ read as .git
		{"https://host/.git/x", "host/%2Egit/x"},
		{"https://host/.GIT/x", "host/%2EGIT/x"},
		{"https://host/a/.Git/b", "host/a/%2EGit/b"},
		{"https://host/.git./x", "host/.git%2E/x"},
		{"https://host/.git%20/x", "host/.git-/x"},
		{"https://host/git~1/x", "host/git-1/x"},
		{"https://host/GIT~1/x", "host/GIT-1/x"},
		{"https://host/.g%E2%80%8Cit/x", "host/.g%E2%80%8Cit/x"},
		{"https://host/.g\ufeffit/x", "host/.g%EF%BB%BFit/x"},
		{"https://host/acme/.git", "host/acme"},
		{"git@host:acme/x/.git", "host/acme/x"},
		// devices Windows reserves, with or without an extension, in any case
		{"https://host/con/x", "host/co%6E/x"},
		{"https://host/CON/x", "host/CO%4E/x"},
		{"https://host/Aux/x", "host/Au%78/x"},
		{"https://host/nul.txt/x", "host/nu%6C.txt/x"},
		{"https://host/acme/prn.tar.gz", "host/acme/pr%6E.tar.gz"},
		{"https://host/com1/x", "host/com%31/x"},
		{"https://host/COM9/x", "host/COM%39/x"},
		{"https://host/lpt0/x", "host/lpt%30/x"},
		{"https://host/lpt9.git", "host/lpt%39"},
		{"https://host/com10/x", "host/com10/x"},
		{"https://host/console/x", "host/console/x"},
		{"https://host/acme/aux.git", "host/acme/au%78"},
		{"https://con/x", "co%6E/x"},
		{"/srv/CON", "local/co%6E"},
		{"/srv/lpt3.git", "local/lpt%33"},
		// trailing dots and spaces
		{"https://host/acme./auth", "host/acme%2E/auth"},
		{"https://host/acme/auth.", "host/acme/auth%2E"},
		{"https://host/acme/...", "host/acme/..%2E"},
		{"https://host/acme%20/auth", "host/acme-/auth"},
		{"https://host/nul./x", "host/nu%6C%2E/x"},
	} {
		wantRemoteKey(t, tc.in, tc.want)
	}
}

// TestProjectKeyLengths: a long segment is cut and hashed, a long key keeps its host.
func TestProjectKeyLengths(t *testing.T) {
	long := strings.Repeat("x", 300)
	got, err := NormalizeRemote("https://host/acme/" + long)
	if err != nil {
		t.Fatal(err)
	}
	last := got[strings.LastIndexByte(got, '/')+1:]
	if len(last) > MaxSegmentLen || !strings.HasPrefix(last, strings.Repeat("x", 80)) || !strings.Contains(last, "%h") {
		t.Errorf("long segment: %q (%d bytes)", last, len(last))
	}
	// a cut never splits an escape
	for pad := range 4 {
		seg := strings.Repeat("a", pad) + strings.Repeat("é", 60)
		k, err := NormalizeRemote("https://host/" + seg)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidProjectKey(k); err != nil || len(k) > MaxProjectKeyLen {
			t.Errorf("%d bytes of padding: %q: %v", pad, k, err)
		}
	}
	deep := "https://" + strings.Repeat("h", 120) + ".example/" + strings.Repeat(strings.Repeat("g", 90)+"/", 8) + "repo"
	k, err := NormalizeRemote(deep)
	if err != nil {
		t.Fatal(err)
	}
	if len(k) > MaxProjectKeyLen || strings.Count(k, "/") != 1 {
		t.Errorf("deep key: %q (%d bytes)", k, len(k))
	}
	if err := ValidProjectKey(k); err != nil {
		t.Error(err)
	}
	if k := localKey(long); len(k) > len("local/")+MaxSegmentLen || ValidProjectKey(k) != nil {
		t.Errorf("local key %q", k)
	}
}

// TestValidProjectKeyNamesTheRule: keys from elsewhere (a directory under learnings/ that a
// sync brought) that ProjectKey never writes are refused with the rule they break.
func TestValidProjectKeyNamesTheRule(t *testing.T) {
	for _, tc := range []struct{ key, rule string }{
		{"", "empty"},
		{"github.com", "want _global"},
		{"local/a/b", "one segment after local/"},
		{"github.com//auth", "empty segment"},
		{"github.com/acme/", "empty segment"},
		{"/github.com/acme", "empty segment"},
		{"github.com/./auth", "relative path step"},
		{"github.com/acme/..", "relative path step"},
		{"host/.git/x", ".git"},
		{"host/.GIT/x", ".git"},
		{"host/.Git", ".git"},
		{"host/.git./x", ".git"},
		{"host/.git. ./x", ".git"},
		{"host/.git /x", ".git"},
		{"host/git~1/x", ".git"},
		{"host/GIT~1/x", ".git"},
		{"host/.g\u200cit/x", ".git"},
		{"host/.\ufeffgit/x", ".git"},
		{"host/acme./x", "ends in a dot"},
		{"host/acme /x", "ends in a dot or a space"},
		{"host/x/...", "ends in a dot"},
		{"host/a b/x", `has " "`},
		{"host/a:b", `has ":"`},
		{"host/a\\b", `has "\\"`},
		{"host/a~b", `has "~"`},
		{"host/аcme", `has "\xd0"`},
		{"host/" + strings.Repeat("a", MaxSegmentLen+1), "bytes long, the limit is 100"},
		{"host/" + strings.Repeat("a/", 90) + "b", "bytes long, the limit is 180"},
		{"host/a%zz", "two upper-case hex digits"},
		{"host/a%e2%80%8c", "two upper-case hex digits"},
		{"host/a%4", "two upper-case hex digits"},
		{"host/a%h123", "16 lower-case hex digits"},
		{"host/a%h0123456789abcdef0", "16 lower-case hex digits"},
		{"host/a%41", "not written as ProjectKey writes it"},
		{"host/%2Eacme", "not written as ProjectKey writes it"},
		{"host/cafe%CC%81", "not written as ProjectKey writes it"}, // e and a combining acute: NFC is %C3%A9
		{"host/a%20b", "not written as ProjectKey writes it"},
		{"host/con%2E", "not written as ProjectKey writes it"},
		{"GitHub.com/acme/auth", "lower case"},
		{"-host/acme", "lower case and start with"},
		{"G%C3%ADt.example/a", "lower case"},
	} {
		err := ValidProjectKey(tc.key)
		if err == nil || !strings.Contains(err.Error(), tc.rule) {
			t.Errorf("ValidProjectKey(%q) = %v, want an error naming %q", tc.key, err, tc.rule)
		}
	}
	for _, name := range []string{"con", "CON", "Con", "prn", "aux", "AUX", "nul", "NUL", "com0", "com1", "COM5", "com9", "lpt0", "lpt1", "LPT9"} {
		for _, seg := range []string{name, name + ".txt", name + ".tar.gz", name + " ", name + " .txt"} {
			if err := ValidProjectKey("host/" + seg); err == nil || !(strings.Contains(err.Error(), "reserves") || strings.Contains(err.Error(), "space")) {
				t.Errorf("ValidProjectKey(%q) = %v, want a reserved-name error", "host/"+seg, err)
			}
		}
		if err := ValidProjectKey("local/" + name); err == nil {
			t.Errorf("ValidProjectKey(local/%s) accepted", name)
		}
		enc := encodeSegment(normalizeSegment(name))
		if err := ValidProjectKey("host/" + enc); err != nil || enc == name {
			t.Errorf("%s encodes as %q: %v", name, enc, err)
		}
	}
	for _, key := range []string{"host/%2Egit/x", "host/co%6E", "host/CO%4E.txt", "host/acme%2E", "host/%D0%B0cme",
		"g%C3%ADt.example/a", "local/caf%C3%A9", "host/" + strings.Repeat("a", 82) + "%h0123456789abcdef", "local/My_Repo.v2"} {
		if err := ValidProjectKey(key); err != nil {
			t.Errorf("ValidProjectKey(%q) = %v, want nil", key, err)
		}
	}
}

// trickyRunes are what names are made of in the property tests: ASCII that is kept and
// that is folded, dots, look-alikes of letters, combining marks, code points HFS+ ignores,
// invalid UTF-8, and runes of every UTF-8 length.
var trickyRunes = []string{"a", "C", "o", "N", "l", "p", "t", "1", "9", "g", "i", "T", ".", ".", "-", "_", " ", "~", "%", ":", "/", "\\",
	"а", "е", "é", "e\u0301", "\u0301", "\u200c", "\ufeff", "\u2024", "ß", "İ", "K", "日", "😀", "\xff", "\xc3", "\x00", "\t"}

func randomName(r *rand.Rand, maxRunes int) string {
	var b strings.Builder
	for range 1 + r.IntN(maxRunes) {
		b.WriteString(trickyRunes[r.IntN(len(trickyRunes))])
	}
	return b.String()
}

// TestProjectKeyProperties: for many random names, as a path segment, a host and a local
// name: every key is valid, decodes to the normalised name, and distinct normalised names
// never share a key.
func TestProjectKeyProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 11))
	segKeys, hostKeys, localKeys := map[string]string{}, map[string]string{}, map[string]string{}
	for i := range 30000 {
		name := randomName(r, 1+i%40)
		if i%500 == 0 {
			name = strings.Repeat(name, 60) // past the segment limit
		}
		checkSegmentKey(t, name, segKeys)
		checkHostKey(t, name, hostKeys)
		k := localKey(name)
		if err := ValidProjectKey(k); err != nil {
			t.Fatalf("localKey(%q) = %q: %v", name, k, err)
		}
		local := strings.Trim(normalizeSegment(strings.ToLower(name)), ".-")
		if local == "" {
			local = "unnamed" // the name of a nameless repository, by design
		}
		collide(t, localKeys, k, local)
	}
}

// checkSegmentKey checks the key of name as the path segment of a remote.
func checkSegmentKey(t *testing.T, name string, seen map[string]string) {
	t.Helper()
	n := normalizeSegment(name)
	if n == "." || n == ".." || strings.Contains(name, "/") {
		return // a remote's path skips "." and refuses "..", and "/" splits it
	}
	enc := encodeSegment(n)
	if err := ValidProjectKey("host/" + enc); err != nil {
		t.Fatalf("segment %q → %q: %v", name, enc, err)
	}
	dec, hashed, err := decodeSegment(enc)
	if err != nil || !hashed && dec != n || hashed && !strings.HasPrefix(n, dec) {
		t.Fatalf("segment %q → %q decodes to %q (hashed %v, %v), want %q", name, enc, dec, hashed, err, n)
	}
	collide(t, seen, enc, n)
	key, err := NormalizeRemote("https://host/" + url.PathEscape(name) + "/x")
	if err != nil {
		t.Fatalf("NormalizeRemote of segment %q: %v", name, err)
	}
	if want := "host/" + enc + "/x"; key != want {
		t.Fatalf("NormalizeRemote of segment %q = %q, want %q", name, key, want)
	}
}

// checkHostKey checks the key of name as a host: when it has no character of a URL's
// structure, through NormalizeRemote; always through the encoding.
func checkHostKey(t *testing.T, name string, seen map[string]string) {
	t.Helper()
	h := strings.TrimSuffix(strings.ToLower(name), ".")
	if h == "" || strings.IndexByte("._-", h[0]) >= 0 || strings.ContainsFunc(h, func(r rune) bool { return r < 0x80 && !validKeyChar(byte(r)) }) {
		return // NormalizeRemote refuses such a host
	}
	enc := encodeSegment(normalizeHost(h))
	if err := ValidProjectKey(enc + "/x"); err != nil {
		t.Fatalf("host %q → %q: %v", name, enc, err)
	}
	collide(t, seen, enc, normalizeHost(h))
	key, err := NormalizeRemote("https://" + name + "/x")
	if err != nil || key != enc+"/x" {
		t.Fatalf("NormalizeRemote of host %q = %q, %v; want %q", name, key, err, enc+"/x")
	}
}

// collide fails when key was seen for another normalised name.
func collide(t *testing.T, seen map[string]string, key, normalised string) {
	t.Helper()
	if prev, ok := seen[key]; ok && prev != normalised {
		t.Fatalf("%q and %q share the key %q", prev, normalised, key)
	}
	seen[key] = normalised
}

// FuzzProjectKeySegment: the same properties for names the fuzzer finds, two at a time.
func FuzzProjectKeySegment(f *testing.F) {
	for _, s := range []string{"acme", "аcme", "-cme", ".git", "con.txt", "a.", "é", "e\u0301", "\xff", strings.Repeat("é", 60)} {
		f.Add(s, "acme")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na, nb := normalizeSegment(a), normalizeSegment(b)
		if na == "" || nb == "" {
			return
		}
		ea, eb := encodeSegment(na), encodeSegment(nb)
		for _, e := range []string{ea, eb} {
			if err := ValidProjectKey("host/" + e); err != nil {
				t.Fatalf("%q: %v", e, err)
			}
		}
		if na != nb && ea == eb {
			t.Fatalf("%q and %q share %q", na, nb, ea)
		}
		if dec, hashed, err := decodeSegment(ea); err != nil || !hashed && dec != na {
			t.Fatalf("%q → %q → %q, %v", na, ea, dec, err)
		}
		if k := localKey(a); ValidProjectKey(k) != nil {
			t.Fatalf("localKey(%q) = %q: %v", a, k, ValidProjectKey(k))
		}
	})
}
