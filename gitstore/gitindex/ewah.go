package gitindex

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// The split index stores its delete and replace bitmaps EWAH-compressed (git's ewah/ewah_io.c):
// uint32 bit count, uint32 word count, that many big-endian uint64 words, uint32 position of
// the last marker word. A marker word holds the run bit (bit 0), the length of a run of
// identical words (bits 1–32) and the number of literal words that follow it (bits 33–63).
//
// A run of ones 20 bytes long stands for up to 2^38 set bits, so a bitmap is first only
// checked and its bits counted (readEWAH); it is expanded once the count is known to be
// bounded by what it indexes (the entries of the front or of the shared index).

var errEWAH = errors.New("malformed ewah bitmap")

// bitmap is an EWAH bitmap as read: checked, its set bits counted, not expanded.
type bitmap struct {
	raw  []byte // the serialised bitmap; nil for an absent one
	ones uint64
}

// readEWAH checks the bitmap at the start of b and counts its set bits without allocating;
// it returns the bitmap and the bytes it takes.
func readEWAH(b []byte) (bitmap, int, error) {
	if len(b) < 8 {
		return bitmap{}, 0, errEWAH
	}
	nwords := uint64(binary.BigEndian.Uint32(b[4:]))
	size := 8 + 8*nwords + 4
	if uint64(len(b)) < size {
		return bitmap{}, 0, errEWAH
	}
	words := b[8 : 8+8*nwords]
	var ones, pos uint64 // pos: bit offset of the next word
	for i := uint64(0); i < nwords; {
		rlw := binary.BigEndian.Uint64(words[8*i:])
		i++
		run := (rlw >> 1) & 0xFFFFFFFF
		lits := rlw >> 33
		if rlw&1 == 1 {
			ones += run * 64
		}
		pos += (run + lits) * 64
		if i+lits > nwords || pos > 1<<32 {
			return bitmap{}, 0, errEWAH // positions are uint32 in git
		}
		for k := uint64(0); k < lits; k++ {
			ones += uint64(bits.OnesCount64(binary.BigEndian.Uint64(words[8*(i+k):])))
		}
		i += lits
	}
	return bitmap{raw: b[:size], ones: ones}, int(size), nil
}

// positions returns the set bits, ascending. The caller has bounded b.ones.
func (b bitmap) positions() []uint32 {
	if b.raw == nil {
		return nil
	}
	nwords := int(binary.BigEndian.Uint32(b.raw[4:]))
	words := b.raw[8 : 8+8*nwords]
	out := make([]uint32, 0, b.ones)
	pos := uint64(0)
	for i := 0; i < nwords; {
		rlw := binary.BigEndian.Uint64(words[8*i:])
		i++
		run := (rlw >> 1) & 0xFFFFFFFF
		lits := int(rlw >> 33)
		if rlw&1 == 1 {
			for k := uint64(0); k < run*64; k++ {
				out = append(out, uint32(pos+k))
			}
		}
		pos += run * 64
		for k := 0; k < lits; k++ {
			w := binary.BigEndian.Uint64(words[8*(i+k):])
			for w != 0 {
				t := bits.TrailingZeros64(w)
				out = append(out, uint32(pos)+uint32(t))
				w &= w - 1
			}
			pos += 64
		}
		i += lits
	}
	return out
}

// encode returns the bitmap as it was read, or an empty one when there was none.
func (b bitmap) encode() []byte {
	if b.raw == nil {
		return encodeEWAH(nil)
	}
	return b.raw
}

// encodeEWAH writes the bitmap whose set bits are at positions (ascending, distinct): runs
// of zero words and literal words, as git writes them. It allocates in proportion to the
// positions, not to the highest one.
func encodeEWAH(positions []uint32) []byte {
	var words []uint64
	var bitSize uint32
	next := uint32(0) // index of the word after the last one written
	for i := 0; i < len(positions); {
		start := positions[i] / 64
		marker := len(words)
		words = append(words, uint64(start-next)<<1)
		lits := uint64(0)
		for w := start; i < len(positions) && positions[i]/64 == w; w++ {
			var lit uint64
			for ; i < len(positions) && positions[i]/64 == w; i++ {
				lit |= 1 << (positions[i] % 64)
			}
			words = append(words, lit)
			lits++
			next = w + 1
		}
		words[marker] |= lits << 33
	}
	if n := len(positions); n > 0 {
		bitSize = positions[n-1] + 1
	}
	if len(words) == 0 {
		words = []uint64{0}
	}
	// the last marker word is the last word that was written as one
	last := 0
	for i := 0; i < len(words); {
		last = i
		i += 1 + int(words[i]>>33)
	}
	out := make([]byte, 8+8*len(words)+4)
	binary.BigEndian.PutUint32(out, bitSize)
	binary.BigEndian.PutUint32(out[4:], uint32(len(words)))
	for i, w := range words {
		binary.BigEndian.PutUint64(out[8+8*i:], w)
	}
	binary.BigEndian.PutUint32(out[8+8*len(words):], uint32(last))
	return out
}
