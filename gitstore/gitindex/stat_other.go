//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package gitindex

import "os"

// fillStat records what this platform offers; git re-reads a file whose stat data it cannot
// match, so missing fields cost time, never correctness.
func fillStat(e *Entry, fi os.FileInfo) {
	e.stat[6] = 0o100644
	e.stat[9] = uint32(fi.Size())
	e.stat[2], e.stat[3] = uint32(fi.ModTime().Unix()), uint32(fi.ModTime().Nanosecond())
}
