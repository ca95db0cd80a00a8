package main

import (
	"encoding/binary"

	"github.com/lmdbio/lmdbio/mpi"
)

// gatherStrings collects one string from every rank at root, in rank order.
// Other ranks get nil.
func gatherStrings(c *mpi.Comm, s string, root int) ([]string, error) {
	n := c.Size()
	lens := make([]byte, 8*n)
	mine := make([]byte, 8)
	binary.LittleEndian.PutUint64(mine, uint64(len(s)))
	if err := c.Gather(mine, lens, root); err != nil {
		return nil, err
	}
	counts, displs := make([]int, n), make([]int, n)
	total := 0
	if c.Rank() == root {
		for i := range counts {
			counts[i] = int(binary.LittleEndian.Uint64(lens[8*i:]))
			displs[i] = total
			total += counts[i]
		}
	}
	all := make([]byte, total)
	if err := c.Gatherv([]byte(s), all, counts, displs, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		return nil, nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = string(all[displs[i] : displs[i]+counts[i]])
	}
	return out, nil
}
