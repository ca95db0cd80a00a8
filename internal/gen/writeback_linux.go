package gen

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeback starts the kernel writing a file's dirty pages to disk without
// waiting for it. The load runs with NoSync; without this the disk would sit
// idle until the final sync, then write the whole dataset while we wait.
type writeback struct{ f *os.File }

func newWriteback(path string) *writeback {
	f, err := os.Open(path)
	if err != nil {
		return &writeback{} // only an optimisation
	}
	return &writeback{f: f}
}

// start asks for asynchronous writeback of the whole file
// (sync_file_range with SYNC_FILE_RANGE_WRITE). Failures are ignored: the
// final sync still makes the data durable.
func (w *writeback) start() {
	if w.f != nil {
		_ = unix.SyncFileRange(int(w.f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	}
}

func (w *writeback) close() {
	if w.f != nil {
		w.f.Close()
	}
}
