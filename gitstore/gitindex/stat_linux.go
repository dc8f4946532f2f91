package gitindex

import "syscall"

func ctime(st *syscall.Stat_t) (int64, int64) { return st.Ctim.Sec, st.Ctim.Nsec }
