//go:build linux

package reader

import "golang.org/x/sys/unix"

// Networked names the network or cluster file system path lies on (NFS,
// Lustre, GPFS, BeeGFS, CephFS, SMB, FUSE), or returns "" for a local one
// or when statfs(2) fails.
func Networked(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	return networkedFS(uint32(st.Type))
}
