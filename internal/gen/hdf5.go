//go:build cgo

package gen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lmdbio/lmdbio/internal/h5lib"
	"gonum.org/v1/hdf5"
)

// WriteHDF5 creates the HDF5 file opt describes at path through libhdf5:
// "data", Records rows of uint8 images of opt.Shape, and "label", their
// int64 labels, creating path's directory if needed. path must not exist
// unless opt.Overwrite is set.
//
// Pixels are random with 6 bits of entropy each (values 64-127), so that
// deflate has work to do, as on real images, without making it trivial;
// a row is a function of (Seed, row) alone.
func WriteHDF5(path string, opt HDF5Options) (Summary, error) {
	start := time.Now()
	opt, err := opt.check()
	if err != nil {
		return Summary{}, err
	}
	existed := !missing(path)
	if existed && !opt.Overwrite {
		return Summary{}, fmt.Errorf("gen: %s: %w (overwrite not requested)", path, fs.ErrExist)
	}
	created, err := mkdirAll(filepath.Dir(path))
	if err != nil {
		return Summary{}, fmt.Errorf("gen: %w", err)
	}
	w := &h5writer{opt: opt, recs: newRecords(Options{Seed: opt.Seed})}
	if err := w.write(path); err != nil {
		// Leave no half-written file, nor the directories made for it; a
		// file that was there stays unless libhdf5 had opened (truncated) it.
		var ours []string
		if !existed || w.file != nil {
			ours = []string{path}
		}
		removeCreated(ours, filepath.Dir(path), created)
		return Summary{}, fmt.Errorf("gen: write %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return Summary{}, fmt.Errorf("gen: %w", err)
	}
	return Summary{Records: opt.Records, Bytes: int64(opt.Records) * w.rowBytes(), FileSize: st.Size(),
		Elapsed: time.Since(start)}, nil
}

// h5writer writes the file in batches of rows, each handed to libhdf5 on
// its goroutine.
type h5writer struct {
	opt          HDF5Options
	recs         *records
	file         *hdf5.File
	data, labels *hdf5.Dataset
}

func (w *h5writer) rowBytes() int64 {
	n := int64(1)
	for _, d := range w.opt.Shape {
		n *= int64(d)
	}
	return n
}

func (w *h5writer) write(path string) (err error) {
	if err := h5lib.Do(func() error { return w.create(path) }); err != nil {
		return err
	}
	defer func() {
		if cerr := h5lib.Do(w.close); err == nil {
			err = cerr
		}
	}()
	rows := int(max(1, hdf5BatchBytes/w.rowBytes()))
	if c := w.opt.ChunkRows; c > 0 {
		rows = max(c, rows/c*c) // whole chunks: each compressed once
	}
	pixels := make([]byte, 0, int64(rows)*w.rowBytes())
	labels := make([]byte, 0, 8*rows)
	for first := 0; first < w.opt.Records; first += rows {
		n := min(rows, w.opt.Records-first)
		pixels, labels = pixels[:0], labels[:0]
		for i := first; i < first+n; i++ {
			label, image := w.recs.image(i, int(w.rowBytes()))
			pixels = append(pixels, image...)
			labels = binary.LittleEndian.AppendUint64(labels, uint64(label))
		}
		err := h5lib.Do(func() error {
			if err := writeRows(w.data, first, n, w.opt.Shape, pixels); err != nil {
				return err
			}
			return writeRows(w.labels, first, n, nil, labels)
		})
		if err != nil {
			return err
		}
		if w.opt.Progress != nil {
			w.opt.Progress(first+n, w.opt.Records)
		}
	}
	return nil
}

// create creates the file and its two datasets. It runs on the HDF5
// goroutine.
func (w *h5writer) create(path string) error {
	f, err := hdf5.CreateFile(path, hdf5.F_ACC_TRUNC)
	if err != nil {
		return h5lib.LastError("H5Fcreate")
	}
	w.file = f
	dims := []uint{uint(w.opt.Records)}
	dcpl, err := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	if err != nil {
		return err
	}
	defer dcpl.Close()
	maxDims := []uint{uint(w.opt.Records)}
	if w.opt.ChunkRows > 0 {
		chunk := []uint{uint(w.opt.ChunkRows)}
		for _, d := range w.opt.Shape {
			chunk = append(chunk, uint(d))
		}
		// Unlimited rows let a chunk hold more rows than the file has.
		maxDims[0] = ^uint(0) // H5S_UNLIMITED
		if err := dcpl.SetChunk(chunk); err != nil {
			return err
		}
		if w.opt.Shuffle {
			if err := h5lib.SetShuffle(dcpl); err != nil {
				return err
			}
		}
		if w.opt.Gzip > 0 {
			if err := dcpl.SetDeflate(w.opt.Gzip); err != nil {
				return err
			}
		}
	}
	for _, d := range w.opt.Shape {
		dims, maxDims = append(dims, uint(d)), append(maxDims, uint(d))
	}
	if w.data, err = createDataset(f, "data", hdf5.T_STD_U8LE, dims, maxDims, dcpl); err != nil {
		return err
	}
	w.labels, err = createDataset(f, "label", hdf5.T_STD_I64LE, dims[:1], nil, nil)
	return err
}

func createDataset(f *hdf5.File, name string, typ *hdf5.Datatype, dims, maxDims []uint, dcpl *hdf5.PropList) (*hdf5.Dataset, error) {
	space, err := hdf5.CreateSimpleDataspace(dims, maxDims)
	if err != nil {
		return nil, err
	}
	defer space.Close()
	var ds *hdf5.Dataset
	if dcpl == nil {
		ds, err = f.CreateDataset(name, typ, space)
	} else {
		ds, err = f.CreateDatasetWith(name, typ, space, dcpl)
	}
	if err != nil {
		return nil, h5lib.LastError("H5Dcreate2")
	}
	return ds, nil
}

// writeRows writes n rows from first on (H5Dwrite of a hyperslab). It runs
// on the HDF5 goroutine.
func writeRows(ds *hdf5.Dataset, first, n int, shape []int, buf []byte) error {
	offset, count := []uint{uint(first)}, []uint{uint(n)}
	for _, d := range shape {
		offset, count = append(offset, 0), append(count, uint(d))
	}
	fspace := ds.Space()
	if fspace == nil {
		return errors.New("no dataspace")
	}
	defer fspace.Close()
	if err := fspace.SelectHyperslab(offset, nil, count, nil); err != nil {
		return h5lib.LastError("H5Sselect_hyperslab")
	}
	mspace, err := hdf5.CreateSimpleDataspace(count, nil)
	if err != nil {
		return h5lib.LastError("H5Screate_simple")
	}
	defer mspace.Close()
	if err := ds.WriteSubset(&buf, mspace, fspace); err != nil {
		return h5lib.LastError("H5Dwrite")
	}
	return nil
}

// close closes the datasets and the file. It runs on the HDF5 goroutine.
func (w *h5writer) close() error {
	var errs []error
	for _, ds := range []*hdf5.Dataset{w.data, w.labels} {
		if ds != nil {
			errs = append(errs, ds.Close())
		}
	}
	if w.file != nil {
		errs = append(errs, w.file.Close())
	}
	return errors.Join(errs...)
}
