package lmdbwalk

// pageSize is the distance between the bytes FaultIn reads: one per page.
const pageSize = 4096

// sink keeps FaultIn's reads from being optimised away.
var sink byte

// FaultIn reads one byte in every page of v, first to last: a walker's
// caller that uses values as it walks, as Caffe's reader does (it copies
// each value into a Datum before it steps on), brings every value in from
// storage in walk order, so the kernel's readahead sees one sequential
// stream. Values gathered first and read later are faulted in by their
// first page during the walk, and their other pages out of that order,
// which on a parallel file system's client halves the requests' size.
func FaultIn(v []byte) {
	var s byte
	for i := 0; i < len(v); i += pageSize {
		s += v[i]
	}
	if len(v) > 0 {
		s += v[len(v)-1]
	}
	sink += s
}
