package drain

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	answerID1 = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C"
	answerID2 = "lrn-01JD8Z7A1B2C3D4E5F6G7H8J9K"
)

func TestParseAnswerTable(t *testing.T) {
	one := `{"learnings":[{"title":"Decode state before comparing","body":"The redirect handler compared the raw param.","kind":"fix","confidence":"high"}]}`
	long := strings.Repeat("x", 201)
	cases := []struct {
		name   string
		in     string
		titles []string // nil with bad: an error wrapping ErrBadAnswer
		bad    bool
	}{
		{name: "bare object", in: one, titles: []string{"Decode state before comparing"}},
		{name: "bare array", in: `[{"title":"A","kind":"rule"},{"title":"B","kind":"recipe"}]`, titles: []string{"A", "B"}},
		{name: "fenced json", in: "Here you go:\n```json\n" + one + "\n```\n", titles: []string{"Decode state before comparing"}},
		{name: "fenced without language", in: "```\n" + one + "\n```", titles: []string{"Decode state before comparing"}},
		{name: "fenced JSON upper case", in: "```JSON\n[{\"title\":\"A\",\"kind\":\"fix\"}]\n```", titles: []string{"A"}},
		{name: "unclosed fence", in: "```json\n" + one, titles: []string{"Decode state before comparing"}},
		{name: "prose before and after", in: "I found one lesson.\n" + one + "\nLet me know if you need more.", titles: []string{"Decode state before comparing"}},
		{name: "prose with brackets before", in: "Looking at {the handler} and [the tests], I see:\n" + one, titles: []string{"Decode state before comparing"}},
		{name: "two blocks, first without learnings", in: `{"status":"ok"} and then {"learnings":[{"title":"Second","kind":"rule"}]}`, titles: []string{"Second"}},
		{name: "two blocks, first with learnings wins", in: "```json\n{\"learnings\":[{\"title\":\"First\",\"kind\":\"rule\"}]}\n```\n```json\n{\"learnings\":[{\"title\":\"Other\",\"kind\":\"rule\"}]}\n```", titles: []string{"First"}},
		{name: "nested braces inside strings", in: `Answer: {"learnings":[{"title":"Map literal {a: [1]} needs a key type","body":"write map[string]int{\"a\": 1} } ] {","kind":"rule"}]} done`, titles: []string{"Map literal {a: [1]} needs a key type"}},
		{name: "escaped quotes", in: `{"learnings":[{"title":"Quote \"$@\" in scripts","body":"a \\\" b","kind":"rule"}]}`, titles: []string{`Quote "$@" in scripts`}},
		{name: "trailing comma", in: `{"learnings":[{"title":"A","kind":"rule",}]}`, bad: true},
		{name: "trailing comma in list", in: `{"learnings":[{"title":"A","kind":"rule"},]}`, bad: true},
		{name: "empty list", in: `{"learnings": []}`, titles: []string{}},
		{name: "empty bare array", in: "Nothing worth keeping.\n[]", titles: []string{}},
		{name: "null learnings", in: `{"learnings": null}`, titles: []string{}},
		{name: "invalid kind dropped", in: `[{"title":"Good","kind":"Fix"},{"title":"Bad","kind":"observation"}]`, titles: []string{"Good"}},
		{name: "all invalid", in: `[{"title":"Bad","kind":"observation"},{"title":"  ","kind":"fix"}]`, bad: true},
		{name: "invalid confidence dropped", in: `[{"title":"Good","kind":"fix"},{"title":"Unsure","kind":"fix","confidence":"very"}]`, titles: []string{"Good"}},
		{name: "title too long dropped", in: `[{"title":"` + long + `","kind":"fix"},{"title":"Short","kind":"fix"}]`, titles: []string{"Short"}},
		{name: "title of 200 characters kept", in: `[{"title":"` + strings.Repeat("é", 200) + `","kind":"fix"}]`, titles: []string{strings.Repeat("é", 200)}},
		{name: "unicode", in: "Voilà :\n```json\n{\"learnings\":[{\"title\":\"Ne jamais committer le fichier .env — 秘密\",\"kind\":\"rule\",\"tags\":[\"sécurité\"]}]}\n```", titles: []string{"Ne jamais committer le fichier .env — 秘密"}},
		{name: "single learning object", in: `{"title":"Lone lesson","kind":"decision"}`, titles: []string{"Lone lesson"}},
		{name: "multi-line title joined", in: `[{"title":"  Two\nlines  ","kind":"fix"}]`, titles: []string{"Two lines"}},
		{name: "garbage", in: "I'm sorry, I cannot help with that.", bad: true},
		{name: "json without learnings", in: `{"status":"done","count":3}`, bad: true},
		{name: "array of strings", in: `["a","b"]`, bad: true},
		{name: "empty answer", in: "  \n", bad: true},
		{name: "wrong type for title", in: `[{"title":42,"kind":"fix"}]`, bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props, err := ParseAnswer(c.in)
			if c.bad {
				if !errors.Is(err, ErrBadAnswer) {
					t.Fatalf("want ErrBadAnswer, got %v (%+v)", err, props)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, p := range props {
				got = append(got, p.Title)
			}
			if !reflect.DeepEqual(got, c.titles) {
				t.Fatalf("titles %q, want %q", got, c.titles)
			}
		})
	}
}

func TestParseAnswerNormalises(t *testing.T) {
	in := `{"learnings":[{"title":"Use the pool","body":"  Reuse connections.  ","kind":" RULE ","confidence":"HIGH",
		"tags":"db, pool , ","entities":["Pool","Pool",""],"files":["db/pool.go"],"global":"true",
		"duplicate_of":"none","supersedes":["` + strings.ToLower(answerID1) + `","bogus",null,"` + answerID2 + `"],
		"extra":{"ignored":true}},
		{"title":"Default confidence","kind":"fix","duplicate_of":"` + answerID2 + `","supersedes":["` + answerID2 + `"]}]}`
	props, err := ParseAnswer(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Proposal{
		{Title: "Use the pool", Body: "Reuse connections.", Kind: "rule", Confidence: "high",
			Tags: []string{"db", "pool"}, Entities: []string{"Pool"}, Files: []string{"db/pool.go"}, Global: true,
			Supersedes: []string{answerID1, answerID2}},
		{Title: "Default confidence", Kind: "fix", Confidence: "medium", DuplicateOf: answerID2, Supersedes: []string{answerID2}},
	}
	if !reflect.DeepEqual(props, want) {
		t.Fatalf("got  %+v\nwant %+v", props, want)
	}
}

func TestParseAnswerGarbageQuotesTheAnswer(t *testing.T) {
	garbage := "The session was about OAuth. " + strings.Repeat("blah ", 100)
	_, err := ParseAnswer(garbage)
	if !errors.Is(err, ErrBadAnswer) {
		t.Fatalf("want ErrBadAnswer, got %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, `"The session was about OAuth. blah`) || strings.Count(msg, "blah") > 40 {
		t.Fatalf("the error should quote the start of the answer, and only ~200 characters: %s", msg)
	}
}

func TestParseAnswerAllInvalidSaysWhy(t *testing.T) {
	_, err := ParseAnswer(`[{"title":"A","kind":"observation"}]`)
	if !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "observation") {
		t.Fatalf("want ErrBadAnswer naming the bad kind, got %v", err)
	}
}

func TestParseAnswerPathological(t *testing.T) {
	// many unclosed brackets must not make parsing take long
	in := strings.Repeat("{[", 200000) + `{"learnings":[]}`
	props, err := ParseAnswer(in)
	if err != nil && !errors.Is(err, ErrBadAnswer) {
		t.Fatal(err)
	}
	_ = props
}

// ParseReply: the handoff summary beside the learnings, and every way it is left out
// without making the learnings unusable.
func TestParseReplyHandoff(t *testing.T) {
	learning := `{"title":"Use make db-migrate","kind":"recipe"}`
	long := strings.Repeat("z", 301)
	cases := []struct {
		name   string
		in     string
		task   string // the summary's task; "" for none
		note   string // a part of HandoffNote
		titles int
	}{
		{"with learnings", `{"learnings":[` + learning + `],"handoff":{"task":"Add refunded_at","direction":"","concluded":"Backfill fails"}}`, "Add refunded_at", "", 1},
		{"handoff only", `{"handoff":{"task":"Add refunded_at"}}`, "Add refunded_at", "", 0},
		{"fenced, after prose", "Here:\n```json\n{\"learnings\":[],\"Handoff\":{\"Task\":\"Add it\",\"then\":\"Docs\"}}\n```", "Add it", "", 0},
		{"absent", `{"learnings":[` + learning + `]}`, "", "", 1},
		{"null", `{"learnings":[],"handoff":null}`, "", "", 0},
		{"not an object", `{"learnings":[` + learning + `],"handoff":"Add refunded_at"}`, "", "not an object", 1},
		{"a field not a string", `{"learnings":[],"handoff":{"task":["a","b"]}}`, "", "task in the answer is not a string", 0},
		{"oversized", `{"learnings":[` + learning + `],"handoff":{"task":"` + long + `"}}`, "", "limit is 300", 1},
		{"no task", `{"learnings":[],"handoff":{"concluded":"done"}}`, "", "no task", 0},
		{"inside a single learning: not the answer's", `{"title":"Use make db-migrate","kind":"recipe","handoff":{"task":"x"}}`, "", "", 1},
		{"a bare array has none", `[` + learning + `]`, "", "", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseReply(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Learnings) != c.titles {
				t.Errorf("%d learnings, want %d", len(r.Learnings), c.titles)
			}
			switch {
			case c.task == "" && r.Handoff != nil:
				t.Errorf("a summary %+v", r.Handoff)
			case c.task != "" && (r.Handoff == nil || r.Handoff.Task != c.task):
				t.Errorf("summary %+v (%s), want task %q", r.Handoff, r.HandoffNote, c.task)
			}
			if !strings.Contains(r.HandoffNote, c.note) || c.note == "" && r.HandoffNote != "" {
				t.Errorf("note %q, want %q", r.HandoffNote, c.note)
			}
		})
	}
	if r, _ := ParseReply("```json\n{\"learnings\":[],\"Handoff\":{\"Task\":\"Add it\",\"then\":\"Docs\"}}\n```"); r.Handoff == nil || r.Handoff.Direction != "Docs" {
		t.Errorf("then is not taken for direction: %+v", r.Handoff)
	}
	// an object with neither learnings nor a handoff is no answer
	if _, err := ParseReply(`{"status": "ok", "task": "x"}`); !errors.Is(err, ErrBadAnswer) {
		t.Errorf("got %v, want ErrBadAnswer", err)
	}
}
