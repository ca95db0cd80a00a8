//go:build !linux

package reader

// oDirect: direct I/O is only implemented for Linux.
const oDirect = 0

// directSupported tells Open whether to try oDirect at all.
const directSupported = false
