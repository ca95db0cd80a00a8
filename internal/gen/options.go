package gen

import (
	"errors"
	"fmt"
	"time"
)

// Order is the order in which Write inserts records.
type Order int

const (
	// KeyOrder inserts records in key order, as convert_imageset does.
	KeyOrder Order = iota
	// Random inserts records in a random order (fixed by Seed), which
	// scatters them over the file as a dataset grown over time would be.
	Random
)

// String returns "key" or "random".
func (o Order) String() string {
	switch o {
	case KeyOrder:
		return "key"
	case Random:
		return "random"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Options describe the dataset Write creates.
type Options struct {
	Records  int  // number of records
	MeanSize int  // mean value size in bytes (before Datum framing); >= 1
	StdDev   int  // standard deviation of the value size in bytes
	Datum    bool // wrap values in a Caffe Datum
	Seed     int64
	Order    Order
	// JPEG makes every value an encoded Datum holding a JPEG of a synthetic
	// photograph of an ImageNet-like size (see Photo); MeanSize and StdDev
	// are then unused, except to size the map at first.
	JPEG bool
	// TxnRecords is the number of records per write transaction; 0 means
	// 1000. A transaction also ends once it holds maxTxnBytes of values.
	TxnRecords int
	// Overwrite replaces an existing data.mdb in the directory.
	Overwrite bool
	// Progress, if set, is called after each committed transaction.
	Progress func(done, total int)
}

// Summary describes a written dataset.
type Summary struct {
	Records  int
	Bytes    int64 // sum of the value lengths
	FileSize int64 // size of data.mdb
	Elapsed  time.Duration
}

const (
	defaultTxnRecords = 1000
	// maxTxnBytes bounds a transaction's values: liblmdb holds its dirty
	// pages in memory until the commit.
	maxTxnBytes = 256 << 20
)

// ErrOptions means Options are invalid.
var ErrOptions = errors.New("gen: invalid options")

// check validates o and fills in defaults.
func (o Options) check() (Options, error) {
	switch {
	case o.Records < 0:
		return o, fmt.Errorf("%w: %d records", ErrOptions, o.Records)
	case o.MeanSize < 1 || o.MeanSize > MaxValueSize:
		return o, fmt.Errorf("%w: mean size %d, want 1 to %d", ErrOptions, o.MeanSize, MaxValueSize)
	case o.StdDev < 0:
		return o, fmt.Errorf("%w: standard deviation %d, want >= 0", ErrOptions, o.StdDev)
	case o.TxnRecords < 0:
		return o, fmt.Errorf("%w: %d records per transaction", ErrOptions, o.TxnRecords)
	case o.Order != KeyOrder && o.Order != Random:
		return o, fmt.Errorf("%w: order %v", ErrOptions, o.Order)
	}
	if o.TxnRecords == 0 {
		o.TxnRecords = defaultTxnRecords
	}
	return o, nil
}
