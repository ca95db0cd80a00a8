package loader

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// idle lowers the calling goroutine's thread to the lowest priority (nice
// 19), for work that should take only what the node's cores leave over.
// The goroutine keeps the thread, which ends with it.
func idle() {
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
}
