//go:build unix

package resident

import (
	"fmt"
	"net"
	"os"
)

// samePeer refuses a peer of another user (the socket's directory already keeps them out;
// this holds if its mode is changed). Where the system cannot say who the peer is, the
// directory alone does.
func samePeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	uid, known := -1, false
	var uerr error
	if err := raw.Control(func(fd uintptr) { uid, known, uerr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if uerr != nil {
		return uerr
	}
	if known && uid != os.Getuid() {
		return fmt.Errorf("a peer of user %d", uid)
	}
	return nil
}
