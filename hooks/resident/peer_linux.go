package resident

import "syscall"

// peerUID is the user of the socket's peer (SO_PEERCRED).
func peerUID(fd int) (int, bool, error) {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return 0, false, err
	}
	return int(cred.Uid), true, nil
}
