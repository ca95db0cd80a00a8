package loader

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/lmdbio/lmdbio/pkg/index"
	"golang.org/x/sys/unix"
)

// Learners can read values straight from the page cache through a read-only
// mapping of the data file, as liblmdb's readers do, instead of from a copy
// in shared memory. The node reader then only makes the bytes resident
// before a batch goes out: it reads the large coalesced spans that are not
// in the page cache yet, without copying or mapping their bytes (see
// residentRead.makeResident), and skips those that are. A warm page cache is then
// read as fast as by mmap, and a cold one with LMDBIO's few large
// sequential reads. It is safe only while
// the file's bytes cannot change under the learners: for LMDB, while the
// node reader holds a read transaction; it needs no decoding and no
// O_DIRECT (which bypasses the page cache).

// fileView is the data file mapped read-only.
type fileView struct {
	file *os.File
	mem  []byte
}

// openView maps the data file read-only.
func openView(path string) (*fileView, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	v, err := mapView(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return v, nil
}

// mapView maps f read-only; it takes f over.
func mapView(f *os.File) (*fileView, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("loader: %s is not a regular file", f.Name())
	}
	v := &fileView{file: f}
	if st.Size() > 0 {
		if v.mem, err = unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED); err != nil {
			return nil, fmt.Errorf("loader: mmap %s: %w", f.Name(), err)
		}
	}
	return v, nil
}

// Bytes returns the mapping.
func (v *fileView) Bytes() []byte { return v.mem }

// Close unmaps the file and closes it.
func (v *fileView) Close() error {
	var err error
	if v.mem != nil {
		err = unix.Munmap(v.mem)
		v.mem = nil
	}
	if e := v.file.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// resident reports whether every page of [off, off+n) is in the page cache.
func (v *fileView) resident(off, n int64) bool {
	in, all := v.residentPages(off, n)
	return in == all
}

// residentPages counts the pages of [off, off+n) that are in the page cache
// (cachestat, else mincore), and all of its pages; none are when neither
// can tell.
func (v *fileView) residentPages(off, n int64) (in, all int) {
	if n <= 0 {
		return 0, 0
	}
	page := int64(os.Getpagesize())
	start, end := off/page*page, min((off+n+page-1)/page*page, int64(len(v.mem)))
	if start >= end {
		return 0, 1
	}
	all = int((end - start + page - 1) / page) // the file's last page may be partial
	if cached, ok := cachedPages(v.file, start, end); ok {
		return cached, all
	}
	vec := make([]byte, all)
	mem := v.mem[start:end]
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, len(vec)
	}
	for _, b := range vec {
		in += int(b & 1)
	}
	return in, len(vec)
}

// viewable reports whether this node's learners may view the data file:
// the option asks for it (auto: one epoch, or no cache), blocks are stored
// as is, no O_DIRECT, and the snapshot is held (its bytes cannot change
// under a reader).
func (ld *leader) viewable() bool {
	return ld.mayView() && ld.pin.holds() && !snapshotLost(ld.node)
}

// snapshotLost lets tests make one node's snapshot unheld, so that its
// learners cannot view the file while the others' can.
var snapshotLost = func(node int) bool { return false }

// mayView is the part of viewable that is the same on every node: the
// agreed options, the dataset, the agreed direct I/O. Where it is false no
// node views the file.
func (ld *leader) mayView() bool {
	want := ld.opt.Views == ViewsOn || ld.opt.Views == ViewsAuto && (ld.opt.Epochs == 1 || ld.opt.Cache == CacheOff)
	return want && ld.opt.Mode.PROV && ld.ds.src.Decoder() == nil && !ld.opt.Direct
}

// heads is the check that learners make of the bytes in front of each
// value they view, where the source has one (LMDB: the page or node header
// and key); nil where they do not view the file. Each learner reads those
// bytes on the first page of the value, which its consumer reads anyway;
// the node reader would need a read of its own for each record, which
// slowed the default mode (docs/decisions/0013-views-residency-and-heads.md).
func (ld *nodeParts) heads() *index.Heads {
	h, ok := ld.ds.src.(interface{ Heads() index.Heads })
	if ld.view == nil || !ok {
		return nil
	}
	heads := h.Heads()
	return &heads
}

// agreeViews agrees on err, the outcome of prepare, and makes the node
// readers agree on viewing the file: all or none, since it changes what
// every node keeps in its cache, and so the windows every node must cut
// alike. With views, reads take no arena room and nothing is kept in a
// cache of shared memory: the page cache keeps it. The windows are still
// cut by the bytes read, so that the reader reads no further ahead of the
// learners than a few windows, and the page cache need not hold more than
// that. Every node reader takes part, those that may not view the file
// too (see open.go). Collective over the node readers.
func (ld *leader) agreeViews(leaders collective, err error) error {
	all, err := agreeMax(leaders, err, viewsReport{noView: ld.view == nil}.pack())
	if err != nil {
		return err
	}
	if unpackViewsReports(all) && ld.view != nil {
		ld.view.Close()
		ld.view = nil
	}
	return nil
}

func (ld *leader) closeView() error {
	if ld.view == nil {
		return nil
	}
	err := ld.view.Close()
	ld.view = nil
	return err
}

// scratch holds the bytes of reads that only make a span resident.
var scratch sync.Pool

func getScratch(n int) []byte {
	if b, ok := scratch.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

func putScratch(b []byte) { scratch.Put(&b) }
