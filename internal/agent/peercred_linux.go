package agent

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the user and the process at the other end of c, as the
// kernel recorded them at connect(2) (SO_PEERCRED): a peer cannot lie
// about them.
func peerCred(c *net.UnixConn) (uid, pid int, ok bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return 0, 0, false
	}
	return int(cred.Uid), int(cred.Pid), true
}
