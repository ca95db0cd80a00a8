//go:build !linux

package loader

// populate: only Linux can fault a mapping in without a copy.
func populate(mapping []byte, off, end int64) bool { return false }
