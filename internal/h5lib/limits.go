package h5lib

import "errors"

// ListedFast says whether Chunks lists the chunks of a dataset with this
// index and this many chunks in reasonable time: libhdf5 1.10 finds each
// chunk by walking the index from its start, so only short lists go through
// it; v1 B-trees are walked in Go.
func ListedFast(index ChunkIndex, chunks int64) bool {
	return index == BTree1 || chunks <= maxSlowChunks
}

// maxSlowChunks is how many chunks libhdf5 lists one by one in about a
// second (n²/2 steps of about a microsecond).
const maxSlowChunks = 2048

// MaxChunks bounds the chunks (allocated or not) a listing holds: about
// 100 bytes each.
const MaxChunks = 1 << 22

// ErrSlowIndex means a dataset's chunks cannot be listed in reasonable time.
var ErrSlowIndex = errors.New("chunks cannot be listed fast")
