package lmdbfmt

import (
	"fmt"

	"github.com/lmdbio/lmdbio/internal/regular"
	"github.com/lmdbio/lmdbio/pkg/failure"
)

// Sentinel errors; test for them with errors.Is.
var (
	// ErrNotLMDB means the file does not start with an LMDB meta page.
	ErrNotLMDB = failure.New(failure.Input, "not an LMDB database")
	// ErrUnsupported means the file is LMDB but uses a feature or build this
	// package does not read (32-bit files, other format versions, duplicate
	// keys, named sub-databases).
	ErrUnsupported = failure.New(failure.Input, "unsupported LMDB database")
	// ErrCorrupt means the file is damaged or truncated.
	ErrCorrupt = failure.New(failure.Input, "corrupt database")
	// ErrNotRegular means a path names a directory, a FIFO, a device or a
	// socket where a regular file is needed. It is regular.ErrNotRegular,
	// so either tests the errors of OpenRegular and DataPath.
	ErrNotRegular = regular.ErrNotRegular
)

// corruptf returns an ErrCorrupt error that names the page where the damage
// was found, so a user can look at it with mdb_dump or a hex editor.
func corruptf(pgno uint64, format string, args ...any) error {
	return fmt.Errorf("lmdbfmt: page %d: %s: %w", pgno, fmt.Sprintf(format, args...), ErrCorrupt)
}

// unsupportedf returns an ErrUnsupported error with a reason.
func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("lmdbfmt: %s: %w", fmt.Sprintf(format, args...), ErrUnsupported)
}
