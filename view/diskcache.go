package view

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/reflect-memory/reflect/gitstore"
	"github.com/reflect-memory/reflect/learnings"
)

// diskCacheFile keeps the parsed learnings between runs, under the repository's local state
// (never committed). It is a cache: keyed by path and blob, so it cannot describe a file
// other than the one it was parsed from, dropped whenever it does not decode or the
// Learning type changed, and rebuilt by the next run. With it the first page after start
// decodes 10,000 learnings instead of parsing them (yaml): see bench -view.
const diskCacheFile = "view/learnings.gob"

// learningShape names the Learning type's exported fields and their types, and those of the
// package's structs it holds (Source): a cache written for another shape is not read (gob
// would leave a new field empty).
var learningShape = func() string {
	var b bytes.Buffer
	shape(&b, reflect.TypeOf(learnings.Learning{}))
	return b.String()
}()

func shape(b *bytes.Buffer, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fmt.Fprintf(b, "%s %s;", f.Name, f.Type)
		ft := f.Type
		for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Array {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath() {
			b.WriteString("{")
			shape(b, ft)
			b.WriteString("}")
		}
	}
}

type diskCache struct {
	Shape string
	// Learnings by path + "\x00" + blob; gob keeps the exported fields only, which is all
	// a page shows (a write always parses the file afresh).
	Learnings map[string]*learnings.Learning
}

func diskKey(path string, blob plumbing.Hash) string { return path + "\x00" + blob.String() }

// readDisk returns the cache of a previous run, or an empty one.
func readDisk(r *gitstore.Repo) map[string]*learnings.Learning {
	data, err := r.ReadState(diskCacheFile)
	if err != nil || len(data) == 0 {
		return map[string]*learnings.Learning{}
	}
	var d diskCache
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&d) != nil || d.Shape != learningShape || d.Learnings == nil {
		return map[string]*learnings.Learning{}
	}
	return d.Learnings
}

// save writes the learnings of HEAD parsed so far, when any was parsed since the last save.
func (c *cache) save(r *gitstore.Repo) error {
	if !c.dirty {
		return nil
	}
	d := diskCache{Shape: learningShape, Learnings: make(map[string]*learnings.Learning, len(c.files))}
	for path, f := range c.files {
		if f.err == nil {
			d.Learnings[diskKey(path, f.blob)] = f.l
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(d); err != nil {
		return err
	}
	if err := r.WriteState(diskCacheFile, buf.Bytes()); err != nil {
		return err
	}
	c.dirty = false
	return nil
}
