package sync

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Pack writing limits: objects smaller than deltaMin are sent whole (a delta would save
// little), and a delta chain is cut at maxDepth so the remote reads them back fast.
const (
	deltaMin = 512
	maxDepth = 16
)

// Pack entry types (gitformat-pack).
const (
	packRefDelta = 7
)

// writePack writes a version 2 pack of objs to w. An object with a base in bases (sent
// earlier in the same pack) is written as a delta against it when that is much smaller;
// the rest whole. Compression is zlib's fastest level: the pack goes to a remote that
// re-packs as it likes, and a sync should not wait on compression.
//
// go-git's encoder searches a window of candidates for every object and resets a default-
// level compressor per object; with the base known from the tree walk, this does neither.
//
// known holds trees already read (the walk that chose the objects read them): their bytes.
func writePack(w io.Writer, s storer.EncodedObjectStorer, objs []plumbing.Hash, bases map[plumbing.Hash]plumbing.Hash, known map[plumbing.Hash][]byte) error {
	sum := sha1.New()
	out := io.MultiWriter(w, sum)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(len(objs)))
	if _, err := out.Write(head[:]); err != nil {
		return err
	}
	// raw content of the objects some later object deltas against, and chain depths
	isBase := map[plumbing.Hash]bool{}
	for _, b := range bases {
		isBase[b] = true
	}
	raw := map[plumbing.Hash][]byte{}
	depth := map[plumbing.Hash]int{}
	var zbuf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zbuf, zlib.BestSpeed)
	for _, h := range objs {
		typ, data := int(plumbing.TreeObject), known[h]
		if data == nil {
			o, err := s.EncodedObject(plumbing.AnyObject, h)
			if err != nil {
				return fmt.Errorf("object %s: %w", h, err)
			}
			if data, err = readObject(o); err != nil {
				return fmt.Errorf("object %s: %w", h, err)
			}
			typ = int(o.Type())
		}
		body := data
		var baseID []byte
		if b, ok := bases[h]; ok && len(data) >= deltaMin && depth[b] < maxDepth {
			if src, ok := raw[b]; ok {
				if d := packfile.DiffDelta(src, data); len(d) < len(data)/2 {
					typ, body, baseID = packRefDelta, d, b[:]
					depth[h] = depth[b] + 1
				}
			}
		}
		if isBase[h] {
			raw[h] = data
		}
		zbuf.Reset()
		zw.Reset(&zbuf)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if _, err := out.Write(entryHeader(typ, len(body))); err != nil {
			return err
		}
		if baseID != nil {
			if _, err := out.Write(baseID); err != nil {
				return err
			}
		}
		if _, err := out.Write(zbuf.Bytes()); err != nil {
			return err
		}
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// entryHeader is a pack entry's type and size: 3 type bits and 4 size bits in the first
// byte, 7 size bits in each next one, the high bit saying another follows.
func entryHeader(typ, size int) []byte {
	b := []byte{byte(typ<<4 | size&0x0f)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

func readObject(o plumbing.EncodedObject) ([]byte, error) {
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, 0, o.Size())
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
