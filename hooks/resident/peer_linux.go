package resident

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// samePeer refuses a peer of another user (the socket's directory already keeps them out; this
// holds if its mode is changed).
func samePeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("a peer of user %d", cred.Uid)
	}
	return nil
}
