package mpi

import "encoding/binary"

// GatherBytes collects every rank's bytes at root, by rank, lengths first
// (MPI_Gather, then MPI_Gatherv). Other ranks get nil.
func (c *Comm) GatherBytes(mine []byte, root int) ([][]byte, error) {
	lens := make([]byte, 8*c.Size())
	if err := c.Gather(binary.LittleEndian.AppendUint64(nil, uint64(len(mine))), lens, root); err != nil {
		return nil, err
	}
	var counts, displs []int
	var total int
	if c.Rank() == root {
		counts, displs, total = layout(lens)
	}
	all := make([]byte, total)
	if err := c.Gatherv(mine, all, counts, displs, root); err != nil {
		return nil, err
	}
	if c.Rank() != root {
		return nil, nil
	}
	return split(all, counts, displs), nil
}

// AllgatherBytes gives every rank every rank's bytes, by rank (MPI_Allgather
// of the lengths, then MPI_Allgatherv).
func (c *Comm) AllgatherBytes(mine []byte) ([][]byte, error) {
	lens := make([]byte, 8*c.Size())
	if err := c.Allgather(binary.LittleEndian.AppendUint64(nil, uint64(len(mine))), lens); err != nil {
		return nil, err
	}
	counts, displs, total := layout(lens)
	all := make([]byte, total)
	if err := c.Allgatherv(mine, all, counts, displs); err != nil {
		return nil, err
	}
	return split(all, counts, displs), nil
}

// layout turns gathered little-endian lengths into counts and
// displacements.
func layout(lens []byte) (counts, displs []int, total int) {
	n := len(lens) / 8
	counts, displs = make([]int, n), make([]int, n)
	for i := range counts {
		counts[i] = int(binary.LittleEndian.Uint64(lens[8*i:]))
		displs[i] = total
		total += counts[i]
	}
	return counts, displs, total
}

func split(all []byte, counts, displs []int) [][]byte {
	out := make([][]byte, len(counts))
	for i := range out {
		out[i] = all[displs[i] : displs[i]+counts[i] : displs[i]+counts[i]]
	}
	return out
}
