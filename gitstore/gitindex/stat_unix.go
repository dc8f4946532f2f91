//go:build linux || darwin || freebsd || netbsd || openbsd

package gitindex

import (
	"os"
	"syscall"
)

// fillStat records the stat data git compares to decide a file is unchanged.
func fillStat(e *Entry, fi os.FileInfo) {
	e.stat[6] = 0o100644
	e.stat[9] = uint32(fi.Size())
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		e.stat[2], e.stat[3] = uint32(fi.ModTime().Unix()), uint32(fi.ModTime().Nanosecond())
		return
	}
	cs, cn := ctime(st)
	e.stat[0], e.stat[1] = uint32(cs), uint32(cn)
	e.stat[2], e.stat[3] = uint32(fi.ModTime().Unix()), uint32(fi.ModTime().Nanosecond())
	e.stat[4], e.stat[5] = uint32(st.Dev), uint32(st.Ino)
	e.stat[7], e.stat[8] = st.Uid, st.Gid
}
