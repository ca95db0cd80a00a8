package reader

import "syscall"

// oDirect is the open(2) flag for direct I/O.
const oDirect = syscall.O_DIRECT

// directSupported tells Open whether to try oDirect at all.
const directSupported = true
