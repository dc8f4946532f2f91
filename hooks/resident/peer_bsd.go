//go:build darwin || freebsd

package resident

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// samePeer refuses a peer of another user (LOCAL_PEERCRED; the socket's directory already
// keeps them out, this holds if its mode is changed).
func samePeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
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
