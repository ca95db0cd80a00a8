//go:build cgo && !nompi && !mpich && !mpiflags

package mpi

// The default build links the system's default MPI, OpenMPI on Debian.

// #cgo pkg-config: mpi
import "C"
