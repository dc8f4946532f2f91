//go:build unix && !linux && !darwin && !freebsd

package resident

import "net"

// samePeer: outside Linux, macOS and FreeBSD the socket's directory (0700) alone keeps other users out.
func samePeer(*net.UnixConn) error { return nil }
