package gitstore

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// The split index stores its delete and replace bitmaps EWAH-compressed (git's ewah/ewah_io.c):
// uint32 bit count, uint32 word count, that many big-endian uint64 words, uint32 position of
// the last marker word. A marker word holds the run bit (bit 0), the length of a run of
// identical words (bits 1–32) and the number of literal words that follow it (bits 33–63).

var errEWAH = errors.New("malformed ewah bitmap")

// decodeEWAH returns the positions of the set bits, ascending, and the bytes consumed.
func decodeEWAH(b []byte) ([]uint32, int, error) {
	if len(b) < 8 {
		return nil, 0, errEWAH
	}
	nwords := int(binary.BigEndian.Uint32(b[4:]))
	size := 8 + 8*nwords + 4
	if nwords < 0 || len(b) < size {
		return nil, 0, errEWAH
	}
	words := b[8 : 8+8*nwords]
	var out []uint32
	pos := uint64(0) // bit offset of the next word
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
		if i+lits > nwords {
			return nil, 0, errEWAH
		}
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
	return out, size, nil
}

// encodeEWAH writes the bitmap whose set bits are at positions (ascending).
func encodeEWAH(positions []uint32) []byte {
	var words []uint64
	var bitSize uint32
	if n := len(positions); n > 0 {
		bitSize = positions[n-1] + 1
		plain := make([]uint64, (bitSize+63)/64)
		for _, p := range positions {
			plain[p/64] |= 1 << (p % 64)
		}
		for i := 0; i < len(plain); {
			run := 0
			for i+run < len(plain) && plain[i+run] == 0 && run < 1<<31 {
				run++
			}
			j := i + run
			lits := 0
			for j+lits < len(plain) && plain[j+lits] != 0 && lits < 1<<30 {
				lits++
			}
			words = append(words, uint64(run)<<1|uint64(lits)<<33)
			words = append(words, plain[j:j+lits]...)
			i = j + lits
		}
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
