package loader

import (
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/reader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// agreeDirect picks direct I/O for the node readers where the data file
// lies on a network or cluster file system and no option says how to read
// it (Direct off, Views auto): their clients would cut the node reader's
// large reads into readahead-sized requests and keep a second copy in
// their page cache (measured through an emulated PFS client with 1 MiB
// readahead: 4 hosts read 1.3 times as fast with direct I/O). The node
// readers agree, since it changes how every node aligns its reads and so
// the windows they must cut alike: direct only if it opens on every node.
// Collective over the node readers.
func (ld *leader) agreeDirect(t *topology.Topology) error {
	if ld.opt.Direct || ld.opt.Views != ViewsAuto || !ld.opt.Mode.PROV {
		return nil
	}
	mine := int64(0)
	if reader.Networked(ld.ds.Path) != "" {
		if rd, err := reader.Open(ld.ds.Path, true); err == nil {
			rd.Close()
			mine = 1
		}
	}
	all := make([]int64, 1)
	if err := t.Leaders.AllreduceInt64([]int64{mine}, all, mpi.Min); err != nil {
		return err
	}
	ld.opt.Direct = all[0] == 1
	return nil
}
