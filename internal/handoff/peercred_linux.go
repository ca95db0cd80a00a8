package handoff

import (
	"net"
	"syscall"
)

// peerCred returns the pid and uid of the process at the other end of c, as
// the kernel recorded them at connect(2) (SO_PEERCRED): a peer cannot lie
// about them.
func peerCred(c *net.UnixConn) (pid, uid int, ok bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var cred *syscall.Ucred
	var cerr error
	err = raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err != nil || cerr != nil {
		return 0, 0, false
	}
	return int(cred.Pid), int(cred.Uid), true
}
