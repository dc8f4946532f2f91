//go:build darwin || freebsd

package resident

import "golang.org/x/sys/unix"

// peerUID is the user of the socket's peer (LOCAL_PEERCRED).
func peerUID(fd int) (int, bool, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, false, err
	}
	return int(cred.Uid), true, nil
}
