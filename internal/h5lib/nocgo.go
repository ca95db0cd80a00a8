//go:build !cgo

package h5lib

// Without cgo there is no libhdf5: Open fails with ErrNoCgo, so no File
// ever exists and its methods are never reached. They keep the API the
// same, so that programs importing the package build with CGO_ENABLED=0.

// File is an HDF5 file; see the cgo build.
type File struct{}

// Open returns ErrNoCgo.
func Open(path string) (*File, error) { return nil, ErrNoCgo }

// Close does nothing.
func (f *File) Close() error { return nil }

// Path returns "".
func (f *File) Path() string { return "" }

// Datasets returns ErrNoCgo.
func (f *File) Datasets() ([]string, error) { return nil, ErrNoCgo }

// Dataset returns ErrNoCgo.
func (f *File) Dataset(name string) (Dataset, error) { return Dataset{}, ErrNoCgo }

// Chunks returns ErrNoCgo.
func (f *File) Chunks(name string) ([]Chunk, error) { return nil, ErrNoCgo }

// ReadRows returns ErrNoCgo.
func (f *File) ReadRows(name string, shape []int64, elemSize, start, count int64, dst []byte) error {
	return ErrNoCgo
}
