package history

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func catalogState() *state {
	st := newState()
	st.Generation = 42
	paris := time.FixedZone("", 3600)
	for i, k := range []string{"claude-a", "codex-b", "gemini-ç", ""} {
		st.Sessions[k] = &Session{Key: k, Harness: "claude", ID: k + "-id", Project: "github.com/acme/api", CWD: "/w", Branch: "main",
			Started: time.Date(2026, 11, 20, 9, i, 0, 0, paris), Updated: time.Date(2026, 11, 21, 9, 0, 0, 5, time.UTC),
			Messages: 10 * i, Prompt: "left out", Streams: []string{k + "-main", k + "-agent"}}
		st.Streams[k+"-main"] = &Stream{Name: k + "-main", Session: k, Messages: 7, Path: "/left/out", Bytes: 9}
		st.Streams[k+"-agent"] = &Stream{Name: k + "-agent", Session: k, Agent: "agent-1", Messages: 3}
	}
	return st
}

// Every session and stream reads back as it was, without what a search does not read; a key
// the catalog lacks reads as nil.
func TestCatalog(t *testing.T) {
	st := catalogState()
	c, err := openCatalog(encodeCatalog(st))
	if err != nil {
		t.Fatal(err)
	}
	if c.Generation != 42 {
		t.Errorf("generation %d", c.Generation)
	}
	for k, want := range st.Sessions {
		w := *want
		w.Prompt = ""
		got := c.session(k)
		if got == nil || !got.Started.Equal(w.Started) || !got.Updated.Equal(w.Updated) {
			t.Fatalf("session %q: %+v; want %+v", k, got, w)
		}
		if _, off := got.Started.Zone(); off != 3600 {
			t.Errorf("session %q started in a zone %d s east of UTC; want 3600", k, off)
		}
		got.Started, got.Updated, w.Started, w.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(*got, w) {
			t.Errorf("session %q: %+v; want %+v", k, *got, w)
		}
	}
	for k, want := range st.Streams {
		w := Stream{Name: want.Name, Session: want.Session, Agent: want.Agent, Messages: want.Messages}
		if got := c.stream(k); got == nil || *got != w {
			t.Errorf("stream %q: %+v; want %+v", k, got, w)
		}
	}
	for _, k := range []string{"claude", "claude-a-mainx", "zzz", "\x00"} {
		if c.stream(k) != nil || c.session(k) != nil {
			t.Errorf("%q found", k)
		}
	}
}

// A catalog cut short or overwritten anywhere gives an error or records that are nil or
// whole, never a panic.
func TestCatalogCorrupt(t *testing.T) {
	data := encodeCatalog(catalogState())
	check := func(b []byte) {
		c, err := openCatalog(b)
		if err != nil {
			return
		}
		for _, k := range []string{"claude-a", "codex-b", "gemini-ç", "", "claude-a-main", "codex-b-agent"} {
			c.session(k)
			c.stream(k)
		}
	}
	for n := 0; n < len(data); n++ {
		check(data[:n])
		bad := append([]byte(nil), data...)
		bad[n] ^= 0xff
		check(bad)
	}
}

// An archive an older reflect wrote (a catalog.gob, no catalog.bin) is searched through a
// catalog built from its state until the next import writes catalog.bin, which removes the gob.
func TestCatalogOfAnOlderArchive(t *testing.T) {
	a := At(t.TempDir())
	if _, err := a.loadCatalog(); err != ErrEmpty {
		t.Fatalf("an empty archive: %v; want ErrEmpty", err)
	}
	st := catalogState()
	if err := a.save(st); err != nil {
		t.Fatal(err)
	}
	os.Remove(a.catalogPath())
	gob := filepath.Join(a.dir, "catalog.gob")
	os.WriteFile(gob, []byte("an older reflect's"), 0o644)
	c, err := a.loadCatalog()
	if err != nil || c.session("codex-b") == nil || c.stream("codex-b-agent").Agent != "agent-1" {
		t.Fatalf("catalog of the state: %v", err)
	}
	if err := a.saveCatalog(st); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gob); err == nil {
		t.Error("catalog.gob stayed")
	}
	os.WriteFile(a.catalogPath(), []byte("RFLXCAT\x00 a later one"), 0o644)
	if _, err := a.loadCatalog(); err == nil {
		t.Error("a catalog of another version was read")
	}
}
