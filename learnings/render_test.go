package learnings

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func readDesign(t testing.TB) []byte {
	data, err := os.ReadFile("testdata/design.md")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRenderFresh(t *testing.T) {
	l := sample()
	out, err := l.Render()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(canonical, "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C", l.ID, 1); string(out) != want {
		t.Errorf("Render =\n%s\nwant\n%s", out, want)
	}
	l = New("Minimal", Global, time.Time{})
	l.Created, l.Updated = time.Time{}, time.Time{}
	out, err = l.Render()
	want := "---\nid: " + l.ID + "\ntitle: Minimal\nproject: _global\nkind: rule\nconfidence: medium\nstatus: current\n" +
		"superseded_by: \"\"\nsupersedes: []\ntags: []\nentities: []\nsource:\n  harness: \"\"\n  session: \"\"\n" +
		"  trigger: \"\"\n  machine: \"\"\n  commit: \"\"\n  files: []\nseen: 1\n---\n"
	if err != nil || string(out) != want {
		t.Errorf("Render = %v\n%s\nwant\n%s", err, out, want)
	}
}

func TestRenderUnchangedIsByteExact(t *testing.T) {
	fresh, err := sample().Render()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"design": readDesign(t), "canonical": []byte(canonical), "fresh": fresh} {
		l, err := Parse("x.md", data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := l.Render()
		if err != nil || string(out) != string(data) {
			t.Errorf("%s: Render(Parse(file)) = %v\n%s\nwant\n%s", name, err, out, data)
		}
	}
}

// TestRenderInPlace changes fields of the example learning (testdata/design.md): only the changed
// values move; comments stay, in their columns.
func TestRenderInPlace(t *testing.T) {
	const other = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D"
	design := string(readDesign(t))
	for _, tc := range []struct {
		name   string
		in     string // default: the example learning
		change func(*Learning)
		edits  []string // old line => new line
	}{
		{"title", "", func(l *Learning) { l.Title = "OAuth state check happens before decoding" }, []string{
			"title: OAuth state mismatch on redirect",
			"title: OAuth state check happens before decoding"}},
		{"title needing quotes", "", func(l *Learning) { l.Title = "Fix: 'state' # not a comment" }, []string{
			"title: OAuth state mismatch on redirect",
			`title: 'Fix: ''state'' # not a comment'`}},
		{"superseded", "", func(l *Learning) { l.Status, l.SupersededBy = StatusSuperseded, other }, []string{
			"status: current      # current | archived | superseded",
			"status: superseded   # current | archived | superseded",
			`superseded_by: ""    # id, when status is superseded`,
			"superseded_by: " + other + " # id, when status is superseded"}},
		{"lists", "", func(l *Learning) {
			l.Tags = append(l.Tags, "csrf")
			l.Supersedes = []string{other}
			l.Entities = nil
			l.Source.Files = []string{"a, b.go", "c.go"}
		}, []string{
			"supersedes: []", "supersedes: [" + other + "]",
			"tags: [oauth, redirect]", "tags: [oauth, redirect, csrf]",
			"entities: [AuthController, state param]", "entities: []",
			"  files: [internal/auth/redirect.go]", "  files: ['a, b.go', c.go]"}},
		{"seen and updated", "", func(l *Learning) {
			l.Seen++
			l.Updated = time.Date(2027, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
		}, []string{
			"seen: 1               # times", "seen: 2               # times",
			"updated: 2026-11-21T09:14:02Z", "updated: 2027-01-02T02:04:05Z"}},
		{"source", "", func(l *Learning) { l.Source.Commit, l.Source.Machine = "", "laptop-b" }, []string{
			"  commit: 9f3c2e1             #", `  commit: ""                  #`,
			"  machine: laptop-a", "  machine: laptop-b"}},
		{"long value pushes comment", "", func(l *Learning) { l.Confidence = ConfidenceMedium; l.Kind = KindPreference }, []string{
			"kind: fix            #", "kind: preference     #",
			"confidence: high     #", "confidence: medium   #"}},
		{"body only", "", func(l *Learning) { l.Body = "Decode first.\n" }, []string{
			"The redirect handler compared the state param before URL-decoding it ... (the lesson, the fix,\nand why; a few short paragraphs at most)\n",
			"Decode first.\n"}},
		{"quoted value keeps quotes", strings.Replace(design, "title: OAuth state mismatch on redirect", `title: "OAuth state"`, 1),
			func(l *Learning) { l.Title = "OAuth" }, []string{`title: "OAuth state"`, `title: "OAuth"`}},
		{"unknown keys stay", strings.Replace(design, "seen: 1 ", "reviewed_by: alice   # a person's key\nseen: 1 ", 1),
			func(l *Learning) { l.Title = "T" }, []string{"title: OAuth state mismatch on redirect", "title: T"}},
		{"missing keys are added at the end", strings.Replace(design, "entities: [AuthController, state param]\n", "", 1),
			func(l *Learning) { l.Entities = []string{"X"}; l.Title = "T" }, []string{
				"title: OAuth state mismatch on redirect", "title: T",
				"(dedupe bumps it)\n---", "(dedupe bumps it)\nentities: [X]\n---"}},
		{"missing zero keys stay missing", strings.Replace(design, "supersedes: []\n", "", 1),
			func(l *Learning) { l.Title = "T" }, []string{"title: OAuth state mismatch on redirect", "title: T"}},
		{"crlf", strings.ReplaceAll(design, "\n", "\r\n"), func(l *Learning) { l.Title = "T"; l.Tags = nil; l.Seen = 5 }, []string{
			"title: OAuth state mismatch on redirect\r", "title: T\r",
			"tags: [oauth, redirect]\r", "tags: []\r",
			"seen: 1               #", "seen: 5               #"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if in == "" {
				in = design
			}
			want := in
			for i := 0; i < len(tc.edits); i += 2 {
				if !strings.Contains(want, tc.edits[i]) {
					t.Fatalf("test input lacks %q", tc.edits[i])
				}
				want = strings.Replace(want, tc.edits[i], tc.edits[i+1], 1)
			}
			l := renderChanged(t, in, tc.change)
			if out, _ := l.Render(); string(out) != want {
				t.Errorf("Render =\n%s\nwant\n%s", out, want)
			}
		})
	}
}

// renderChanged parses in, changes it, renders it and checks that the result
// parses to the changed fields. It returns the changed learning.
func renderChanged(t *testing.T, in string, change func(*Learning)) *Learning {
	t.Helper()
	l, err := Parse("x.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	change(l)
	out, err := l.Render()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("x.md", out)
	if err != nil {
		t.Fatalf("Parse(Render()) = %v\n%s", err, out)
	}
	if diff := fieldDiff(back, l); diff != "" {
		t.Fatalf("Parse(Render()) differs:\n%s\n%s", diff, out)
	}
	return l
}

// TestRenderReencodes covers changes that cannot be made as text edits: the
// document is encoded again, and comments, key order and unknown keys survive.
func TestRenderReencodes(t *testing.T) {
	design := string(readDesign(t))
	for _, tc := range []struct {
		name   string
		in     string
		change func(*Learning)
		keep   []string // lines the output must still have
	}{
		{"block list", strings.Replace(design, "tags: [oauth, redirect]", "tags:  # topics\n  - oauth   # first\n  - redirect", 1),
			func(l *Learning) { l.Tags = []string{"oauth", "csrf"} },
			[]string{"tags: # topics", "  - oauth # first", "  - csrf"}},
		{"key missing in source", strings.Replace(design, "  machine: laptop-a\n", "", 1),
			func(l *Learning) { l.Source.Machine = "laptop-b" },
			[]string{"  machine: laptop-b"}},
		{"null source", design[:strings.Index(design, "source:")] + "source:\n" + design[strings.Index(design, "created:"):],
			func(l *Learning) { l.Source.Harness = "codex" },
			[]string{"source:\n  harness: codex\n  session: \"\""}},
		{"multi-line plain title", strings.Replace(design, "title: OAuth state mismatch on redirect", "title: OAuth state\n  mismatch", 1),
			func(l *Learning) { l.Title = "short" },
			[]string{"title: short"}},
		{"anchored value", strings.Replace(design, "tags: [oauth, redirect]", "tags: &t [oauth, redirect]\nx-copy: *t", 1),
			func(l *Learning) { l.Tags = []string{"a"} },
			[]string{"tags: &t [a]", "x-copy: *t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := renderChanged(t, tc.in, tc.change)
			out, _ := l.Render()
			keep := append(tc.keep, "id: lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C # stable for life; edits never change it",
				"kind: fix # fix | rule | decision | failure | recipe | preference | correction",
				"seen: 1 # times the same lesson was re-learned (dedupe bumps it)\n---\nThe redirect handler")
			for _, s := range keep {
				if !strings.Contains(string(out), s) {
					t.Errorf("Render lost %q:\n%s", s, out)
				}
			}
			if i, j := strings.Index(string(out), "\nproject:"), strings.Index(string(out), "\nstatus:"); i < 0 || i > j {
				t.Errorf("Render reordered keys:\n%s", out)
			}
		})
	}
}

// TestRoundTrip checks Parse(Render(x)) == x for values YAML treats specially.
func TestRoundTrip(t *testing.T) {
	odd := []string{"yes", "no", "null", "~", "123", "1e3", "0x1F", "2026-11-21", "a: b", "#hash", "- dash", "'quoted'",
		`"dq"`, "[x]", "{y}", "a, b", " padded ", "tab\there", "ünïcødé 🧠", "@at", "`tick`", "%pct", "!bang", "*star", "&amp", "|", ">", "?"}
	for _, s := range odd {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			l := sample()
			l.Title, l.Tags, l.Entities = s, []string{s, "x"}, []string{s}
			l.Source.Session, l.Source.Files = s, []string{s}
			l.Body = s + "\n"
			out, err := l.Render()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse("x.md", out)
			if err != nil {
				t.Fatalf("Parse(Render()) = %v\n%s", err, out)
			}
			if diff := fieldDiff(back, l); diff != "" {
				t.Fatalf("round trip differs:\n%s\n%s", diff, out)
			}
			// The same values written into an existing file.
			renderChanged(t, canonical, func(p *Learning) {
				p.Title, p.Tags, p.Entities, p.Source.Session, p.Source.Files = l.Title, l.Tags, l.Entities, s, l.Source.Files
			})
		})
	}
}

func TestRenderRefusesInvalid(t *testing.T) {
	l := sample()
	l.Title, l.Seen = "", 0
	_, err := l.Render()
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "title" || len(allFieldErrors(err)) != 2 {
		t.Fatalf("Render() error = %v", err)
	}
}

func BenchmarkParse(b *testing.B) {
	data := readDesign(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("x.md", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	b.Run("fresh", func(b *testing.B) {
		l := sample()
		for b.Loop() {
			if _, err := l.Render(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("edit", func(b *testing.B) {
		l, err := Parse("x.md", readDesign(b))
		if err != nil {
			b.Fatal(err)
		}
		l.Seen, l.Tags = 2, []string{"oauth", "redirect", "csrf"}
		for b.Loop() {
			if _, err := l.Render(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
