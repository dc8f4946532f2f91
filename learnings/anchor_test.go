package learnings

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAnchor(t *testing.T) {
	blob := "3b18e512dba79e4c8300dd08aeb37f8e728b8dad"
	tests := []struct {
		in, path, err string
	}{
		{"Makefile@" + blob, "Makefile", ""},
		{"src/db/migrate.go@" + blob, "src/db/migrate.go", ""},
		{"odd@name.txt@" + blob, "odd@name.txt", ""},
		{"sha256.txt@" + strings.Repeat("a", 64), "sha256.txt", ""},
		{"Makefile", "", "must be path@blob"},
		{"Makefile@3b18", "", "must be a git blob id"},
		{"Makefile@" + strings.ToUpper(blob), "", "must be a git blob id"},
		{"@" + blob, "", "empty"},
		{"/etc/passwd@" + blob, "", "absolute"},
		{"../x@" + blob, "", "a relative step"},
		{"a/./b@" + blob, "", "a relative step"},
		{".git/config@" + blob, "", "git's own directory"},
		{".GIT/hooks/pre-commit@" + blob, "", "git's own directory"},
		{"a//b@" + blob, "", "empty"},
		{"a\nb@" + blob, "", "Windows cannot hold"},
	}
	for _, tt := range tests {
		a, err := ParseAnchor(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one saying %q", tt.in, err, tt.err)
		case tt.err == "" && (a.Path != tt.path || a.String() != tt.in):
			t.Errorf("%q: %+v", tt.in, a)
		}
	}
}

func TestMergeAnchors(t *testing.T) {
	x, y, z := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40)
	ours := []string{"Makefile@" + x, "go.mod@" + x}
	theirs := []string{"go.mod@" + y, "deploy.sh@" + z, "../bad@" + z}
	if got, want := MergeAnchors(ours, theirs, true), []string{"Makefile@" + x, "go.mod@" + x, "deploy.sh@" + z}; !slices.Equal(got, want) {
		t.Errorf("ours newer: %v", got)
	}
	if got, want := MergeAnchors(ours, theirs, false), []string{"Makefile@" + x, "go.mod@" + y, "deploy.sh@" + z}; !slices.Equal(got, want) {
		t.Errorf("theirs newer: %v", got)
	}
	if got := MergeAnchors(nil, nil, true); got != nil {
		t.Errorf("none: %v", got)
	}
}

// Anchors round-trip through Render with the person's comments kept, and a learning
// without them renders as it did before they existed.
func TestAnchorsRender(t *testing.T) {
	blob, other := strings.Repeat("a", 40), strings.Repeat("b", 40)
	src := "---\nid: lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G\ntitle: make migrate loads .env\nanchors: [Makefile@" + blob + "]  # the Makefile of June\n---\nbody\n"
	l, err := Parse("learnings/local/x/lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if as := l.AnchorList(); len(as) != 1 || as[0].Path != "Makefile" || as[0].Blob != blob {
		t.Fatalf("%+v", as)
	}
	l.SetAnchors([]Anchor{{Path: "Makefile", Blob: other}})
	out, err := l.Render()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "anchors: [Makefile@"+other+"]  # the Makefile of June\n") {
		t.Fatalf("comment lost:\n%s", out)
	}
	bare := New("no files", "local/x", l.Created)
	out, err = bare.Render()
	if err != nil || strings.Contains(string(out), "anchors") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// QuickAnchors reads what Parse reads, or says it cannot.
func TestQuickAnchors(t *testing.T) {
	blob := strings.Repeat("c", 40)
	head := "---\nid: lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G\ntitle: t\nproject: local/x\n"
	tests := []struct {
		name, file string
		ok         bool
	}{
		{"flow", head + "anchors: [Makefile@" + blob + ", src/a.go@" + blob + "]\nsource:\n  harness: manual\n  commit: " + blob + "\n  files: []\nseen: 1\n---\nbody\n", true},
		{"block", head + "anchors:\n  - Makefile@" + blob + "   # the June one\n  # a comment\n  - b.go@" + blob + "\nseen: 1\nsource: {commit: " + blob + "}\n---\nbody\n", true},
		{"unindented block", head + "anchors:\n- Makefile@" + blob + "\n- b.go@" + blob + "\nkind: fix\n---\n", true},
		{"crlf", strings.ReplaceAll(head+"anchors: [Makefile@"+blob+"]\n---\nbody\n", "\n", "\r\n"), true},
		{"none", head + "tags: [anchors]\n---\nanchors: [x]\n", true},
		{"empty", head + "anchors: []\n---\n", true},
		{"alias", head + "x: &a [Makefile@" + blob + "]\nanchors: *a\n---\n", false},
		{"no frontmatter", "anchors: [x]\n", false},
	}
	for _, tt := range tests {
		as, commit, ok := QuickAnchors([]byte(tt.file))
		if ok != tt.ok {
			t.Errorf("%s: ok %v", tt.name, ok)
			continue
		}
		if !ok {
			continue
		}
		l, err := Parse("", []byte(tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(as, l.Anchors) || commit != l.Source.Commit {
			t.Errorf("%s: quick %v %q, parse %v %q", tt.name, as, commit, l.Anchors, l.Source.Commit)
		}
	}
}

// In reflect edit a person writes a path alone; FillAnchors puts path@blob in its place and
// touches nothing else.
func TestFillAnchors(t *testing.T) {
	blob := strings.Repeat("d", 40)
	for _, tt := range []struct{ in, want string }{
		{"anchors: [Makefile, src/a.go@" + blob + "]  # mine\n", "anchors: [Makefile@" + blob + ", src/a.go@" + blob + "]  # mine\n"},
		{"anchors:\n  - \"Makefile\"   # quoted\n  - go.mod\n", "anchors:\n  - Makefile@" + blob + "   # quoted\n  - go.mod@" + blob + "\n"},
	} {
		src := "---\nid: lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G\ntitle: t\n" + tt.in + "---\nbody\n"
		bare := BareAnchors([]byte(src))
		full := map[string]string{}
		for _, b := range bare {
			full[b] = b + "@" + blob
		}
		got := string(FillAnchors([]byte(src), full))
		if want := "---\nid: lrn-01J0C6WQ2B5S8V3X7Z9A1D4F6G\ntitle: t\n" + tt.want + "---\nbody\n"; got != want {
			t.Errorf("bare %v:\n%s\nwant\n%s", bare, got, want)
		}
	}
}
