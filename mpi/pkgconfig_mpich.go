//go:build cgo && !nompi && mpich && !mpiflags

package mpi

// The mpich build tag links MPICH instead of the system's default MPI.

// #cgo pkg-config: mpich
import "C"
