package history

import (
	"os"
	"runtime"
	"slices"

	"github.com/reflect-memory/reflect/transcript"
)

// The files of an import are read ahead, on as many goroutines as there are cores, while
// the import's own goroutine files what was read (state, stores) and bleve's goroutine
// indexes it. Reading a transcript, redacting it and making its terms depend on nothing but
// the file, so they need no order; everything that touches the archive's state still runs
// one file at a time, in the order of the files. In a CPU profile of an import of 134,000
// messages (2,000 sessions) reading took 0.35 s, redacting 0.88 s and making terms 0.72 s of
// the import goroutine's 3.8 s, and creating the 2,000 stores 1.5 s more: that goroutine,
// not bleve's, bounded the import once bleve's work went down (tokenizer.go, mapping.go).

// fileRead is what a read-ahead goroutine made of one file.
type fileRead struct {
	s   *transcript.Session
	err error // reading it: the file is reported, not imported
	// head and headLen: the hash of the file's first bytes (headHash), at most up to what
	// was read; headErr stops the import, as it did before the read-ahead
	head    string
	headLen int64
	headErr error
	recs    []record // keep(s): for a diff job, only those that changed
	sums    []uint64 // the sums of recs, for a harness whose streams keep them
	at      []int    // a diff job's: where each of recs goes in the stream
	total   int      // records the file holds
	prompt  int      // where the first of a person's prompts is among them (-1: none)
	bodies  []terms  // the terms of each record's input and text (not its tool: see termer.join)
}

// replaces reports whether a diff read changes or removes any of the n records stored.
func (r *fileRead) replaces(n int) bool {
	return r.total < n || len(r.at) > 0 && r.at[0] < n
}

// terms are the text field and CJK grams termer makes of a string.
type terms struct {
	text  string
	grams []string
}

// readAheadBytes and readAheadFiles bound what is read ahead of the file being filed: the
// transcripts' sizes, summed (one file is always read, however large), and their number.
// Bounded by bytes alone, a corpus of small files (2,000 of 80 KB) ran hundreds of files
// ahead and the import's peak memory went from 253 MB to 289 MB.
const (
	readAheadBytes = 32 << 20
	readAheadFiles = 8
)

// readAhead reads jobs in the background. next(i) waits for job i's read and must be
// called in order; stop ends the goroutines (reads under way finish and are dropped).
// storePath, when set, names the store of a stream (its folder exists).
func readAhead(jobs []job, storePath func(stream string) string) (next func(i int) *fileRead, stop func()) {
	results := make([]chan *fileRead, len(jobs))
	for i := range results {
		results[i] = make(chan *fileRead, 1)
	}
	done := make(chan struct{})
	work := make(chan int)
	// the dispatcher hands out jobs in order while the bytes in flight allow
	freed := make(chan int64, len(jobs))
	go func() {
		defer close(work)
		var inFlight int64
		files := 0
		for i, j := range jobs {
			size := max(j.info.Size()-j.from, 0)
			for files > 0 && (inFlight+size > readAheadBytes || files >= readAheadFiles) {
				select {
				case n := <-freed:
					inFlight -= n
					files--
				case <-done:
					return
				}
			}
			select {
			case work <- i:
				inFlight += size
				files++
			case <-done:
				return
			}
		}
	}()
	for range max(runtime.GOMAXPROCS(0), 1) {
		go func() {
			t := newTermer() // one per goroutine: its cache is not shared
			for i := range work {
				select {
				case <-done:
					results[i] <- nil
					continue
				default:
				}
				results[i] <- readFile(jobs[i], t, storePath)
			}
		}()
	}
	next = func(i int) *fileRead {
		r := <-results[i]
		freed <- max(jobs[i].info.Size()-jobs[i].from, 0)
		return r
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			close(done)
		}
	}
	return next, stop
}

// readFile reads one job's file from its offset: the messages, the hash of its head, the
// records a store keeps and their terms.
func readFile(j job, t *termer, storePath func(stream string) string) *fileRead {
	harness := transcript.Harness("")
	if j.prev != nil && !j.rewrite {
		harness = transcript.Harness(j.prev.Harness)
	}
	r := &fileRead{}
	r.s, r.err = transcript.ReadFileFrom(j.path, j.from, harness)
	if r.err != nil {
		return r
	}
	// hash only what was read: bytes past it may still change (a line being written)
	r.head, r.headLen, r.headErr = headHash(j.path, min(headBytes, r.s.End))
	var old []sum
	if j.diff {
		old = j.sums[:len(j.sums):len(j.sums)]
		if old == nil {
			old = []sum{}
		}
	}
	r.recs, r.sums, r.at, r.total, r.prompt = keep(r.s, sumsKept(r.s.Harness), old)
	if len(r.recs) > 0 && (j.prev == nil || j.prev.Stream == "" || j.rewrite) && storePath != nil {
		// the store a new file will most likely get, created here rather than on the
		// goroutine that files the reads: creating a file costs 0.3–0.7 ms of CPU here, and
		// the 2,000 stores of the corpus took 1.5 s of that goroutine (profile).
		// Opening with O_CREAT leaves an existing file as it is, and the filing cuts the
		// store back to the size it records (0 for a new stream) before it appends; a name
		// the filing does not take (another file has it) is thereby never changed here.
		_, _, _, name := streamName(r.s, j.path)
		if f, err := os.OpenFile(storePath(name), os.O_RDONLY|os.O_CREATE, 0o644); err == nil {
			f.Close()
		}
	}
	r.bodies = make([]terms, len(r.recs))
	for k := range r.recs {
		r.bodies[k].text, r.bodies[k].grams = t.split(r.recs[k].body())
	}
	return r
}

// body is the part of searchable that does not name the tool: a tool result's tool is
// known only when the import files it (from its call, maybe read by an earlier import).
func (r *record) body() string {
	if r.Input == "" {
		return r.Text
	}
	return r.Input + "\n" + r.Text
}

// join makes the document of a record of tool and body (split from r.body()) in project:
// the same as split of r.searchable(), as a newline ends a word and a CJK run alike, so
// the terms of tool come first, then the body's, and the grams of the body that tool's
// grams do not hold already.
func (t *termer) join(tool string, body terms, project string) map[string]any {
	text, grams := body.text, body.grams
	if tool != "" {
		tt, tg := t.split(tool)
		switch {
		case tt == "":
		case text == "":
			text = tt
		default:
			text = tt + " " + text
		}
		if len(tg) > 0 {
			all := tg
			for _, g := range grams {
				if !slices.Contains(tg, g) {
					all = append(all, g)
				}
			}
			grams = all
		}
	}
	m := map[string]any{"text": text, "project": project}
	if len(grams) > 0 {
		m["cjk"] = grams
	}
	return m
}
