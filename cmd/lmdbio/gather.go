package main

import (
	"github.com/lmdbio/lmdbio/mpi"
)

// gatherStrings collects one string from every rank at root, in rank order.
// Other ranks get nil.
func gatherStrings(c *mpi.Comm, s string, root int) ([]string, error) {
	all, err := c.GatherBytes([]byte(s), root)
	if err != nil || all == nil {
		return nil, err
	}
	out := make([]string, len(all))
	for i, b := range all {
		out[i] = string(b)
	}
	return out, nil
}
