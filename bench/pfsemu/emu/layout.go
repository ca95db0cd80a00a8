package emu

import "hash/fnv"

// Layout says which server holds which bytes of a file, the way Lustre
// stripes a file over its OSTs (RAID-0 over objects): the file is cut into
// stripes of StripeSize bytes, stripe k is on server
// (first + k mod StripeCount) mod Servers, where first is the file's first
// server. Every mount over the same source computes the same layout, so the
// clients of one emulated file system agree on which server they queue at.
type Layout struct {
	Servers     int   // servers of the file system, > 0
	StripeSize  int64 // bytes of a file on one server before the next, > 0
	StripeCount int   // servers a file is striped over, 1..Servers
}

// FirstServer returns the server that holds the first stripe of the file at
// path (relative to the mount's root). Lustre's allocator picks it by
// round-robin or free space; a hash of the path is a stand-in that every
// mount computes alike.
func (l Layout) FirstServer(path string) int {
	h := fnv.New32a()
	h.Write([]byte(path))
	return int(h.Sum32() % uint32(l.Servers))
}

// ServerOf returns the server holding the byte at off of a file whose first
// stripe is on server first.
func (l Layout) ServerOf(first int, off int64) int {
	stripe := off / l.StripeSize
	return (first + int(stripe%int64(l.StripeCount))) % l.Servers
}

// Pieces calls fn for each part of the n bytes at off that lies on one
// server, in file order: a request that crosses a stripe boundary is served
// by several servers, as a Lustre client splits such a read into one RPC
// per object. An empty request is one empty piece at off.
func (l Layout) Pieces(first int, off, n int64, fn func(server int, bytes int64)) {
	if n <= 0 {
		fn(l.ServerOf(first, off), 0)
		return
	}
	for end := off + n; off < end; {
		next := min((off/l.StripeSize+1)*l.StripeSize, end)
		fn(l.ServerOf(first, off), next-off)
		off = next
	}
}
