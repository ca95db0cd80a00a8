package main

import "testing"

// TestE2EMovedToKit: the kit's commands, typed to lmdbio, say in one line
// (status 2) that they moved to lmdbio-bench, whatever flags follow.
func TestE2EMovedToKit(t *testing.T) {
	for _, name := range kitCommands {
		r := lmdbio(t, nil, name, "--rounds", "1", "somewhere")
		checkOneLineError(t, r, 2, "lmdbio "+name+": moved to lmdbio-bench: run lmdbio-bench "+name)
	}
}
