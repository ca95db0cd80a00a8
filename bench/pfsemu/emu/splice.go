package emu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/hanwen/go-fuse/v2/splice"
)

// pipeMaxPath limits how large a process without CAP_SYS_RESOURCE may make
// a pipe. go-fuse reads it once, when the process starts.
const pipeMaxPath = "/proc/sys/fs/pipe-max-size"

// replyPipe is the pipe a spliced reply of maxRequest bytes needs: go-fuse
// writes the reply's header and its data into one pipe and keeps a page
// spare, so that the kernel does not block on a full pipe.
func replyPipe(maxRequest int64) int64 {
	return int64(unsafe.Sizeof(fuse.OutHeader{})) + maxRequest + int64(os.Getpagesize())
}

// SpliceFits reports whether this process can splice replies of maxRequest
// bytes from the source into the FUSE device: go-fuse gives up on every
// reply that does not fit a pipe as large as pipe-max-size was when the
// process started, after logging it, and copies it instead.
func SpliceFits(maxRequest int64) bool {
	return splice.Resizable() && replyPipe(maxRequest) <= int64(splice.MaxPipeSize())
}

// RaisePipeMax raises pipe-max-size so that replies of maxRequest bytes
// fit, which needs root, and returns the new limit. Like go-fuse's, the
// limit of a running process stays what it read at its start: only
// processes started afterwards splice.
func RaisePipeMax(maxRequest int64) (int64, error) {
	need := replyPipe(maxRequest)
	now, err := pipeMax()
	if err != nil || now >= need {
		return now, err
	}
	if err := os.WriteFile(pipeMaxPath, []byte(strconv.FormatInt(need, 10)), 0); err != nil {
		return now, err
	}
	return pipeMax() // the kernel rounds it up to a power of two pages
}

// pipeMax reads the limit as it is now.
func pipeMax() (int64, error) {
	b, err := os.ReadFile(pipeMaxPath)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q: %w", pipeMaxPath, b, err)
	}
	return n, nil
}
