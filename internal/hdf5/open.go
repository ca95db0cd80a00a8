package hdf5

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lmdbio/lmdbio/internal/h5lib"
	"github.com/lmdbio/lmdbio/internal/source"
)

// Default dataset names.
const (
	DefaultDataset = "data"
	DefaultLabels  = "label"
)

// Options choose the datasets of a file. The zero value reads "data" with
// labels from "label" if the file has it.
type Options struct {
	// Dataset names the rows, a path from the root such as
	// "train/images"; "" means DefaultDataset.
	Dataset string
	// Labels names the labels dataset, which must exist; "" means
	// DefaultLabels if the file has it, else no labels.
	Labels string
	// NoLabels delivers no labels.
	NoLabels bool
}

// Open inspects the HDF5 file at path with libhdf5 and returns the source
// of the dataset opt names.
func Open(path string, opt Options) (*Source, error) {
	f, st, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Source{path: path, fileSize: st.Size(), modTime: st.ModTime().UnixNano(), base: -1}
	if err := s.inspect(f, cmp.Or(opt.Dataset, DefaultDataset)); err != nil {
		return nil, err
	}
	if !opt.NoLabels {
		if err := s.readLabels(f, opt.Labels); err != nil {
			return nil, err
		}
	}
	if err := s.setUp(); err != nil {
		// Open checked everything already: a file that changed meanwhile.
		return nil, badInput{err}
	}
	return s, nil
}

// openFile opens the file at path with libhdf5 once its signature says it
// is HDF5.
func openFile(path string) (*h5lib.File, os.FileInfo, error) {
	format, err := source.Detect(path)
	if errors.Is(err, source.ErrUnknownFormat) {
		return nil, nil, badf("not an HDF5 file (%v)", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if format != source.HDF5 {
		return nil, nil, badf("not an HDF5 file: an %s dataset", strings.ToUpper(string(format)))
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := h5lib.Open(path)
	if errors.Is(err, h5lib.ErrLibrary) {
		return nil, nil, badf("libhdf5 cannot open it: %v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return f, st, nil
}

// inspect describes the dataset name and lists its chunks.
func (s *Source) inspect(f *h5lib.File, name string) error {
	d, err := describe(f, name)
	if err != nil {
		return err
	}
	s.name, s.typ, s.elemSize, s.shape, s.chunk = d.Name, d.Type.String(), d.Type.Size, d.Shape, d.Chunk
	if s.read, s.why, err = plan(d); err != nil {
		return err
	}
	if err := checkExternal(d, s.path); err != nil {
		return err
	}
	if d.Layout != h5lib.Chunked {
		s.chunk = nil
	}
	switch {
	case s.read == ByLibrary:
		s.rowsPerBlock = fallbackRows(d.Type.Size*product(d.Shape[1:]), s.chunk)
		s.chunk = nil
		return nil
	case s.read == ByOffset && s.chunk == nil:
		s.base = d.Offset
		return nil
	}
	s.rowsPerBlock = s.chunk[0]
	if s.read == ByChunk {
		for _, fl := range d.Filters {
			s.filters = append(s.filters, filter{id: fl.ID, params: fl.Params})
		}
	}
	chunks, err := f.Chunks(name)
	if err != nil {
		return badf("dataset %s: listing its chunks: %v", s.name, err)
	}
	s.chunks, err = chunkRefs(chunks, s.read)
	if err != nil {
		return badf("dataset %s: %v", s.name, err)
	}
	return nil
}

// fallbackRows is how many rows one libhdf5 read fetches: about
// fallbackBlockBytes, in whole chunk rows when the dataset is chunked, so
// that no read decodes a chunk another one decodes too; a chunk row of up
// to maxFallbackBlock when that is more.
func fallbackRows(rowBytes int64, chunk []int64) int64 {
	rows := max(1, fallbackBlockBytes/rowBytes)
	switch {
	case chunk == nil:
	case chunk[0] <= rows:
		rows = rows / chunk[0] * chunk[0]
	case chunk[0] <= maxFallbackBlock/rowBytes:
		rows = chunk[0]
	}
	return rows
}

// describe describes dataset name, naming the datasets the file has when
// it has no such one.
func describe(f *h5lib.File, name string) (h5lib.Dataset, error) {
	d, err := f.Dataset(name)
	if errors.Is(err, h5lib.ErrNotFound) {
		return d, badf("no dataset %q; %s", name, listDatasets(f))
	}
	if err != nil {
		return d, badf("dataset %q: %v", name, err)
	}
	return d, nil
}

// listDatasets says which datasets f has, for an error message.
func listDatasets(f *h5lib.File) string {
	const show = 10
	names, err := f.Datasets()
	switch {
	case err != nil:
		return fmt.Sprintf("listing the datasets: %v", err)
	case len(names) == 0:
		return "the file has no datasets"
	case len(names) > show:
		return fmt.Sprintf("the file has %s and %d more", strings.Join(names[:show], ", "), len(names)-show)
	}
	return "the file has " + strings.Join(names, ", ")
}

// chunkRefs turns libhdf5's chunk list (grid order) into the Source's:
// block by block, in file order within a block; for rows read by offset,
// one chunk per block.
func chunkRefs(chunks []h5lib.Chunk, read Read) ([]chunkRef, error) {
	refs := make([]chunkRef, 0, len(chunks))
	var block []chunkRef
	for i, c := range chunks {
		if c.Offset < 0 {
			return nil, fmt.Errorf("chunk %v is not written", c.Coord)
		}
		if i > 0 && c.Coord[0] != chunks[i-1].Coord[0] {
			refs = append(refs, sortByOffset(block)...)
			block = block[:0]
		}
		block = append(block, chunkRef{off: c.Offset, size: c.Size, cell: int64(len(block)), mask: c.FilterMask})
	}
	refs = append(refs, sortByOffset(block)...)
	if read == ByOffset {
		// Whole-row chunks: the grid has one chunk per block.
		for _, r := range refs {
			if r.cell != 0 {
				return nil, fmt.Errorf("chunks do not hold whole rows")
			}
		}
	}
	return refs, nil
}

func sortByOffset(b []chunkRef) []chunkRef {
	slices.SortFunc(b, func(x, y chunkRef) int { return cmp.Compare(x.off, y.off) })
	return b
}

// readLabels reads the labels dataset, all of it. name "" looks for
// DefaultLabels and goes without labels if the file has none.
func (s *Source) readLabels(f *h5lib.File, name string) error {
	optional := name == ""
	name = cmp.Or(name, DefaultLabels)
	d, err := f.Dataset(name)
	if optional && errors.Is(err, h5lib.ErrNotFound) {
		return nil
	}
	if errors.Is(err, h5lib.ErrNotFound) {
		return badf("no labels dataset %q; %s", name, listDatasets(f))
	}
	if err != nil {
		return badf("labels %q: %v", name, err)
	}
	if err := checkRows(d); err != nil {
		return err
	}
	if d.Name == s.name {
		return badf("dataset %s cannot be its own labels", d.Name)
	}
	if d.Shape[0] != s.shape[0] {
		return badf("labels %s have %d rows, dataset %s has %d", d.Name, d.Shape[0], s.name, s.shape[0])
	}
	row, _ := rowBytes(d.Type.Size, d.Shape)
	if total, ok := mulCheck(row, d.Shape[0]); !ok || total > maxLabelBytes {
		return badf("labels %s take more than the %d MiB lmdbio holds in memory", d.Name, maxLabelBytes>>20)
	}
	s.labels, s.labelType, s.labelRow = d.Name, d.Type.String(), row
	s.labelData = make([]byte, row*d.Shape[0])
	if d.Shape[0] == 0 {
		return nil
	}
	if err := f.ReadRows(d.Name, d.Shape, d.Type.Size, 0, d.Shape[0], s.labelData); err != nil {
		return badf("labels %s: %v", d.Name, err)
	}
	return nil
}

func product(dims []int64) int64 {
	p := int64(1)
	for _, d := range dims {
		p *= d
	}
	return p
}
