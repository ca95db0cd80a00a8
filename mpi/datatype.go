//go:build cgo && !nompi

package mpi

// #include "shim.h"
import "C"

// byteBlock is the datatype in which one side of a collective describes its
// buffer: MPI_BYTE, or a committed contiguous type of size bytes when some
// byte count or displacement exceeds maxCount (see blockSize). Both sides of
// a message may use different blocks: MPI matches them byte by byte.
type byteBlock struct {
	t     C.MPI_Datatype
	size  int
	owned bool // created here, freed by free
}

// blockFor picks and, if needed, creates the block for values.
func blockFor(op string, values ...[]int) (byteBlock, error) {
	size, err := blockSize(op, values...)
	if err != nil {
		return byteBlock{}, err
	}
	if size == 1 {
		return byteBlock{t: cByte, size: 1}, nil
	}
	var t C.MPI_Datatype
	if rc := C.MPI_Type_contiguous(C.int(size), cByte, &t); rc != cSuccess {
		return byteBlock{}, mpiError("MPI_Type_contiguous", rc)
	}
	if rc := C.MPI_Type_commit(&t); rc != cSuccess {
		C.MPI_Type_free(&t)
		return byteBlock{}, mpiError("MPI_Type_commit", rc)
	}
	return byteBlock{t: t, size: size, owned: true}, nil
}

// count converts a byte count to a count of blocks.
func (b byteBlock) count(n int) C.int { return C.int(n / b.size) }

// free releases a created datatype (MPI_Type_free); MPI keeps it alive for
// operations still using it.
func (b *byteBlock) free() {
	if b.owned {
		C.MPI_Type_free(&b.t)
		b.owned = false
	}
}
