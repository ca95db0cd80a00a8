package loader

import (
	"encoding"
	"fmt"

	"github.com/lmdbio/lmdbio/internal/fingerprint"
	"github.com/lmdbio/lmdbio/internal/hdf5"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// dataset is what every rank knows about the data after Open.
type dataset struct {
	Path       string `json:"path"` // the data file
	Format     string `json:"format"`
	Records    int    `json:"records"`
	ValueBytes int64  `json:"value_bytes"` // sum of value lengths; 0 when unknown (no index)
	FileSize   int64  `json:"file_size"`
	Identity   string `json:"identity,omitempty"`
	// Fingerprint names the records by content (see package fingerprint):
	// resume states carry it.
	Fingerprint string `json:"fingerprint,omitempty"`
	IndexFrom   string `json:"index_from,omitempty"`
	Note        string `json:"note,omitempty"` // how the source reads, when it is worth saying

	src source.Source // on node readers, in PROV modes
}

// meanRecord estimates a record's bytes, for sizing windows.
func (d *dataset) meanRecord() int64 {
	if d.Records == 0 {
		return 1
	}
	total := d.ValueBytes
	if total == 0 {
		total = d.FileSize
	}
	return max(total/int64(d.Records), 1)
}

// describe is rank 0's look at the data: it finds the format, validates
// the file and, for PROV modes, loads or builds the index.
func describe(path string, opt Options) (*dataset, error) {
	format, err := source.Detect(path)
	if err != nil {
		return nil, err
	}
	if format == source.HDF5 {
		return describeHDF5(path, opt)
	}
	if opt.Dataset != "" || opt.Labels != "" {
		return nil, fmt.Errorf("%w: --dataset and --labels name the datasets of an HDF5 file; %s is an LMDB", ErrBadOption, path)
	}
	dataPath, err := lmdbfmt.DataPath(path)
	if err != nil {
		return nil, err
	}
	f, st, err := lmdbfmt.OpenRegular(dataPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	db, err := lmdbfmt.Open(f, st.Size())
	if err != nil {
		return nil, err
	}
	ds := &dataset{Path: dataPath, Format: "lmdb", Records: int(db.Meta().Entries), FileSize: st.Size()}
	if !opt.Mode.PROV {
		// The readers of these modes go through liblmdb, which trusts the
		// file: a damaged page would crash them. One walk of the branch and
		// leaf pages checks the tree first (it reads no values).
		return ds, db.Walk(func(lmdbfmt.Record) error { return nil })
	}
	idx, from, err := index.Load(dataPath, opt.Index)
	if err != nil {
		return nil, err
	}
	ds.src, ds.IndexFrom = idx.Source(dataPath), from
	info := ds.src.Info()
	ds.Records, ds.ValueBytes, ds.Identity = ds.src.Len(), info.ValueBytes, info.Identity
	ds.Fingerprint, err = fingerprint.Of(ds.src)
	return ds, err
}

// describeHDF5 inspects an HDF5 file with libhdf5.
func describeHDF5(path string, opt Options) (*dataset, error) {
	if !opt.Mode.PROV {
		return nil, fmt.Errorf("%w: --mode %v reads LMDB with liblmdb; HDF5 files are read in the modes with an index (lmm+dio+prov and after, the default)",
			ErrBadOption, opt.Mode)
	}
	src, err := hdf5.Open(path, hdf5.Options{Dataset: opt.Dataset, Labels: opt.Labels, NoLabels: opt.Labels == NoLabels})
	if err != nil {
		return nil, err
	}
	info := src.Info()
	fp, err := fingerprint.Of(src)
	return &dataset{Path: info.Path, Format: info.Format, Records: src.Len(), ValueBytes: info.ValueBytes,
		FileSize: info.FileSize, Identity: info.Identity, Fingerprint: fp, Note: info.Note, src: src}, err
}

// description is the outcome of describe.
type description struct {
	ds  *dataset
	err error
}

// describeAhead starts describing the dataset on rank 0 with its own
// options, defaults filled in, and returns where the outcome arrives (nil
// on the other ranks, and for options that fail their checks). Started
// before the options are agreed, rank 0's reads from storage overlap the
// agreement; its options are the root's, so in every Open that goes on
// they are the agreed ones.
func describeAhead(t *topology.Topology, path string, opt Options) <-chan description {
	if t.Rank != 0 || opt.setDefaults() != nil {
		return nil
	}
	c := make(chan description, 1)
	go func() {
		ds, err := describe(path, opt)
		c <- description{ds, err}
	}()
	return c
}

// shareDataset is step 2 of Open (see open.go): it tells every rank rank
// 0's description of the dataset, which arrives on ahead (or is made now,
// without it). Collective over world.
func shareDataset(world collective, t *topology.Topology, path string, opt Options, ahead <-chan description) (*dataset, error) {
	var ds *dataset
	var err error
	switch {
	case t.Rank != 0:
	case ahead != nil:
		d := <-ahead
		ds, err = d.ds, d.err
	default:
		ds, err = describe(path, opt)
	}
	payload, err := bcastStatus(world, 0, 0, err, ds)
	if err != nil {
		return nil, err
	}
	if t.Rank != 0 {
		ds = new(dataset)
		if err := jsonUnmarshal(payload, ds); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// sourceDamaged lets tests make the source fail to arrive on one node
// reader, as a blob damaged on the way would.
var sourceDamaged = func(*topology.Topology) error { return nil }

// shareSource is step 3 of Open (see open.go), in the modes with an
// index: it sends the source (an LMDB index, an HDF5 layout) from rank 0
// to every node leader, so no other rank walks the tree or opens the file
// with libhdf5. Collective over the node leaders: rank 0 sends even when
// it could not encode the source (an empty blob, which no other leader
// decodes), and every leader returns its error for its node reader's first
// agreement.
func shareSource(leaders collective, t *topology.Topology, ds *dataset) error {
	var blob []byte
	var encodeErr error
	if t.Rank == 0 {
		blob, encodeErr = ds.src.(encoding.BinaryMarshaler).MarshalBinary()
		if encodeErr != nil {
			blob = nil
		}
	}
	blob, err := bcastBytes(leaders, 0, blob)
	if err != nil {
		return fmt.Errorf("sending the dataset's layout to node leaders: %w", err)
	}
	if err := sourceDamaged(t); err != nil {
		return err
	}
	if t.Rank == 0 {
		return encodeErr
	}
	if ds.Format == string(source.HDF5) {
		src, err := hdf5.Unmarshal(blob)
		if err != nil {
			return fmt.Errorf("layout received from rank 0: %w", err)
		}
		ds.src = src
		return nil
	}
	idx, err := index.Unmarshal(blob)
	if err != nil {
		return fmt.Errorf("index received from rank 0: %w", err)
	}
	ds.src = idx.Source(ds.Path)
	return nil
}
