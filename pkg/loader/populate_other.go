//go:build !linux

package loader

import "os"

// populate: only Linux can fault a mapping in without a copy.
func populate(mapping []byte, off, end int64) bool { return false }

// readIntoCache: only Linux reads a file into the page cache without a
// copy.
func readIntoCache(*os.File, int64, int64) bool { return false }

// cachedPages: only Linux counts a file's cached pages without a mapping.
func cachedPages(*os.File, int64, int64) (int, bool) { return 0, false }
