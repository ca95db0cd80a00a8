package bench

import (
	"fmt"
	"os"
	"syscall"
)

// dropCachesPath is the kernel's knob for freeing the page cache.
const dropCachesPath = "/proc/sys/vm/drop_caches"

// CanDropCaches reports whether this process may drop the page cache (it can
// open the kernel's knob for writing: normally root, and not in a container
// that mounts /proc/sys read-only).
func CanDropCaches() bool {
	f, err := os.OpenFile(dropCachesPath, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// DropCaches writes dirty pages back (sync) and then frees the clean page
// cache of the whole machine (echo 1 > /proc/sys/vm/drop_caches), so the next
// read of a file comes from storage. Dentries and inodes stay cached: a
// data-loader benchmark measures data, not path lookups.
func DropCaches() error {
	syscall.Sync()
	f, err := os.OpenFile(dropCachesPath, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("bench: drop caches: %w", err)
	}
	_, err = f.Write([]byte("1"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: drop caches: %w", err)
	}
	return nil
}
