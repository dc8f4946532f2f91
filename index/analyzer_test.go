package index

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reflect-memory/reflect/learnings"
)

func TestAnalyzeIdentifiers(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"load_to_snowflake", []string{"load_to_snowflake", "load", "snowflak"}},
		{"NEXT_PUBLIC_API_URL", []string{"next_public_api_url", "next", "public", "api", "url"}},
		{"r.PathValue", []string{"r.pathvalue", "pathvalu", "path", "valu"}},
		{"PathValue", []string{"pathvalu", "path", "valu"}},
		{"pipeline-state", []string{"pipeline-state", "pipelin", "state"}},
		{"internal/auth/redirect.go", []string{"internal/auth/redirect.go", "intern", "auth", "redirect.go", "redirect", "go"}},
		{"localhost:5433", []string{"localhost:5433", "localhost", "5433"}},
		{"HTTPServer parseJSON", []string{"httpserver", "http", "server", "parsejson", "pars", "json"}},
		{"stg_hubspot__contacts", []string{"stg_hubspot__contacts", "stg", "hubspot", "contact"}},
		// words that only look like identifiers stay words
		{"DAGs and APIs, JWTs", []string{"dag", "api", "jwt"}},
		{"OAuth on iOS", []string{"oauth", "io"}},
		{"the retries were failing", []string{"retri", "fail"}},
		// punctuation around words is not part of them
		{"'invalid state', (see `redirect.go`).", []string{"invalid", "state", "see", "redirect.go", "redirect", "go"}},
		{"--create-db and -race", []string{"create-db", "creat", "db", "race"}},
		// a verb and its particle are the word they are also written as
		{"the job timed out", []string{"job", "timeout"}},
		{"a timeout", []string{"timeout"}},
		{"people signing in with gmail", []string{"peopl", "sign-in", "gmail"}},
		{"log in, then logged out", []string{"login", "logout"}},
		{"set up the db; rolled back the deploy", []string{"setup", "db", "rollback", "deploi"}},
		{"the log in prod", []string{"login", "prod"}}, // a noun and a preposition read as the verb: rare, and the price
		// an irregular form is its verb, as a regular one is
		{"the build broke and the job hung", []string{"build", "break", "job", "hang"}},
		{"it breaks; it hangs", []string{"break", "hang"}},
		{"added a column, adding an index", []string{"add", "column", "index"}},
		{"not found in the left join", []string{"found", "left", "join"}},
		// a derived form the stemmer cuts apart from its verb is the verb
		{"token expiry; the token expired", []string{"token", "expir"}},
		{"webhook deliveries were delivered twice", []string{"webhook", "deliv", "twice"}},
		{"signature verification: verify it", []string{"signatur", "verifi"}},
		{"a failure; it fails", []string{"fail"}},
		{"the test flakes; flaky tests", []string{"test", "flaki"}},
		{"the summary, summarised", []string{"summar"}},
		{"a registry entry; register, enter", []string{"registri", "entri", "regist", "enter"}},
		// a British spelling is the American one
		{"the organisation serialises; initialising", []string{"organ", "serial", "initi"}},
		{"the organization serializes; initializing", []string{"organ", "serial", "initi"}},
		{"analyse the behaviour", []string{"analyz", "behavior"}},
		{"promise otherwise", []string{"promis", "otherwis"}},
		// production is not stemmed into product (a table, a model): prod means the former
		{"the production deploy; the product table; Production", []string{"production", "deploi", "product", "tabl"}},
		{"products and productions", []string{"product", "production"}},
		{"the important imports", []string{"important", "import"}},
		{"generated generics in general", []string{"gener", "generic", "general"}},
		{"authorised, authorizing; the author", []string{"authorization", "author"}},
		// not across an identifier's parts, nor a sentence's end
		{"sign-in flow", []string{"sign-in", "sign", "flow"}},
		{"we log. In short", []string{"log", "short"}},
	}
	for _, c := range cases {
		if got := Analyze(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// TestIdentifierSearch: a search or recall that names an identifier, or one of its parts,
// finds the learning that holds it, in the index and in the scan that stands in for it.
func TestIdentifierSearch(t *testing.T) {
	ctx := context.Background()
	files := map[string][]byte{}
	for i, s := range []struct{ title, body string }{
		{"Reset pipeline_state before a backfill", "The loader reads its watermark from `ops.pipeline_state`."},
		{"r.PathValue is empty without a wildcard", "Register `GET /users/{id}` and read `r.PathValue(\"id\")`."},
		{"Vite only exposes VITE_ variables", "`NEXT_PUBLIC_API_URL` means nothing to Vite; use `VITE_API_URL`."},
		{"Keyset refetches on unknown kid", "See `internal/oidc/keyset.go`."},
	} {
		l := learnings.New(s.title, "github.com/acme/x", time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))
		l.Body = s.body + "\n"
		data, err := l.Render()
		if err != nil {
			t.Fatal(err)
		}
		files[l.RelPath()] = data
	}
	r := repoWith(t, files)
	tgt, err := headTarget(r)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := newScanner(ctx, r, tgt)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ text, want string }{
		{"pipeline", "Reset pipeline_state before a backfill"},
		{"pipeline_state", "Reset pipeline_state before a backfill"},
		{"PathValue", "r.PathValue is empty without a wildcard"},
		{"pathvalue", "r.PathValue is empty without a wildcard"},
		{"NEXT_PUBLIC_API_URL", "Vite only exposes VITE_ variables"},
		{"keyset.go", "Keyset refetches on unknown kid"},
		{"oidc", "Keyset refetches on unknown kid"},
	}
	for _, c := range cases {
		for _, q := range []Query{{Text: c.text}, {Terms: Analyze(c.text)}} {
			for name, res := range map[string]*Result{"index": find(t, r, q), "scan": mustSearch(t, &Index{scan: sc}, q)} {
				if len(res.Hits) == 0 || res.Hits[0].Title != c.want {
					t.Errorf("%s %+v: got %v, want %q first", name, q, titles(res), c.want)
				}
				// a camelCase identifier typed in lower case is found as the identifier
				// the learning holds whole; a word of prose is not one
				if c.text == "pathvalue" && len(res.Hits) > 0 && !res.Hits[0].Whole["pathvalu"] {
					t.Errorf("%s %+v: pathvalue not held whole: %v", name, q, res.Hits[0].Whole)
				}
				if c.text == "pipeline" && len(res.Hits) > 0 && res.Hits[0].Whole["pipelin"] {
					t.Errorf("%s %+v: pipeline held whole", name, q)
				}
			}
		}
	}
}

func mustSearch(t *testing.T, ix *Index, q Query) *Result {
	t.Helper()
	res, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// baseForms is one map of irregular, british and derived: the same as looking them up in
// that order only while no form is in two of them.
func TestBaseFormsApart(t *testing.T) {
	seen := map[string]string{}
	for name, m := range map[string]map[string]string{"irregular": irregular(), "british": british(), "derived": derived()} {
		for form := range m {
			if other, ok := seen[form]; ok {
				t.Errorf("%q is in %s and %s", form, other, name)
			}
			seen[form] = name
		}
	}
}

// analyzed is tokens, whether or not an earlier search analyzed the same text, and holds no
// more than its bound (8 MB).
func TestAnalyzedTexts(t *testing.T) {
	texts := []string{"Use r.PathValue in Go 1.22 handlers", "pipeline_state.watermark", "", "CREATE INDEX CONCURRENTLY"}
	for range 2 {
		for _, text := range texts {
			if got, want := analyzed(text), tokens(text); !reflect.DeepEqual(got, want) {
				t.Errorf("analyzed(%q) = %v, want %v", text, got, want)
			}
		}
	}
	body := strings.Repeat("the webhook retry deadlock in the postgres migration again ", 500) // ~30 KB, a long body
	for i := range 400 {
		analyzed(fmt.Sprint(i, " ", body))
	}
	if size := analyzedTexts.Size(); size > analyzedTexts.Max {
		t.Errorf("holds %d bytes, more than %d", size, analyzedTexts.Max)
	}
}
