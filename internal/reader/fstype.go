package reader

// networkedMagic are the statfs(2) magic numbers of network and cluster
// file systems (linux/magic.h and the file systems' own sources). Their
// clients cut buffered reads into requests of their readahead (1 MiB RPCs
// for Lustre and FUSE, rsize for NFS) and keep a page cache of their own
// on every node, so a reader that makes large requests of its own does
// better with direct I/O there.
var networkedMagic = map[uint32]string{
	0x6969:     "NFS",
	0xFE534D42: "SMB2",
	0xFF534D42: "CIFS",
	0x65735546: "FUSE",
	0x00C36400: "CephFS",
	0x0BD00BD0: "Lustre",
	0x47504653: "GPFS",
	0x19830326: "BeeGFS",
}

// networkedFS names the network or cluster file system of a statfs magic
// number, or returns "" for any other.
func networkedFS(magic uint32) string { return networkedMagic[magic] }
