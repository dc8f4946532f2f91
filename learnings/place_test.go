package learnings

import (
	"errors"
	"strings"
	"testing"
)

// A file's place in the repository is part of what it says: its name is its id, its directory
// its project. A file that disagrees must not pass for another learning or another project.
func TestParseAgreesWithItsPlace(t *testing.T) {
	const id = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C"
	tests := []struct {
		name, path string
		data       string
		project    string // want, when it parses
		warn       string
		err        string
	}{
		{name: "where it belongs", path: "learnings/github.com/acme/auth-service/" + id + ".md", data: canonical, project: "github.com/acme/auth-service"},
		{name: "a path outside learnings/ decides nothing", path: "x.md", data: canonical, project: "github.com/acme/auth-service"},
		{name: "another id than its name", path: "learnings/github.com/acme/auth-service/lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D.md", data: canonical,
			err: "field id: is " + id + " but the file is named lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D.md"},
		{name: "the directory decides the project", path: "learnings/github.com/other/x/" + id + ".md",
			data: strings.Replace(canonical, "project: github.com/acme/auth-service", "project: _global", 1), project: "github.com/other/x",
			warn: `field project says "_global" but the file is under learnings/github.com/other/x/`},
		{name: "a body over the cap is kept, with a warning", path: "learnings/_global/" + id + ".md",
			data:    strings.Replace(canonical, "project: github.com/acme/auth-service", "project: _global", 1) + strings.Repeat("long ", MaxBodyBytes/5+10),
			project: "_global", warn: "only its first 32768 are indexed and recalled"},
		{name: "a file over the cap", path: "learnings/_global/" + id + ".md", data: canonical + strings.Repeat("x", MaxFileBytes),
			err: "a learning may be at most 262144"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.path, []byte(tt.data))
			if tt.err != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), tt.path) {
					t.Fatalf("error = %v, want a FieldError of %s with %q", err, tt.path, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Project != tt.project {
				t.Errorf("project = %q, want %q", l.Project, tt.project)
			}
			if got := strings.Join(l.Warnings, "; "); tt.warn == "" && got != "" || !strings.Contains(got, tt.warn) {
				t.Errorf("warnings = %q, want %q", got, tt.warn)
			}
			if len(l.IndexedBody()) > MaxBodyBytes {
				t.Errorf("IndexedBody is %d bytes", len(l.IndexedBody()))
			}
		})
	}
}

func TestIndexedBodyCutsOnARune(t *testing.T) {
	l := &Learning{Body: strings.Repeat("a", MaxBodyBytes-1) + "é" + "tail"}
	got := l.IndexedBody()
	if len(got) != MaxBodyBytes-1 || !strings.HasSuffix(got, "a") {
		t.Fatalf("cut at %d bytes, ends %q", len(got), got[len(got)-3:])
	}
}

func TestResolveRefusesADuplicateID(t *testing.T) {
	const id = "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6C"
	rs := []Ref{{ID: id, Path: "learnings/b/x/" + id + ".md"}, {ID: id, Path: "learnings/a/x/" + id + ".md"}, {ID: "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D", Path: "p"}}
	_, err := Resolve(rs, id)
	var amb *AmbiguousIDError
	if !errors.As(err, &amb) || !amb.Duplicate || !strings.Contains(err.Error(), "is claimed by 2 files: learnings/a/x/"+id+".md, learnings/b/x/") {
		t.Fatalf("Resolve(duplicate) = %v", err)
	}
	if r, err := Resolve(rs, "lrn-01JD8Z6Q4V0R5T2W9K3M7N1B6D"); err != nil || r.Path != "p" {
		t.Fatalf("Resolve(unique) = %v, %v", r, err)
	}
}
