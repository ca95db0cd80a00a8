//go:build cgo && !nompi && mpiflags

package mpi

// The mpiflags build tag links whatever MPI CGO_CFLAGS and CGO_LDFLAGS name
// (-I for mpi.h, -L and -l for the library): no #cgo pkg-config line, so
// MPIs that ship no pkg-config module, or one under another name, build
// too. scripts/mpi-flags.sh prints the flags, and the Makefile uses this tag
// where pkg-config knows no module named mpi.
