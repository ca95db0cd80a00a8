package mpi

import "math"

// maxCount is the largest count handed to one C MPI call: C MPI counts are
// ints. It is a variable only so tests can lower it and exercise chunking and
// block datatypes with small buffers; every rank must use the same value.
var maxCount = math.MaxInt32

// The checks below run in every build, so a program developed against the
// single-rank build is refused the same things the MPI builds refuse.

// checkRoot reports a root outside [0, size).
func checkRoot(op string, root, size int) error {
	if root < 0 || root >= size {
		return invalid(op, "root %d out of range for a communicator of size %d", root, size)
	}
	return nil
}

// checkPeer reports a destination or source outside [0, size); AnySource is
// accepted where anyOK.
func checkPeer(op, what string, rank, size int, anyOK bool) error {
	if anyOK && rank == AnySource {
		return nil
	}
	if rank < 0 || rank >= size {
		return invalid(op, "%s %d out of range for a communicator of size %d", what, rank, size)
	}
	return nil
}

// checkLayout checks that counts and displs have one entry per rank, hold no
// negative values, and describe regions inside a buffer of bufLen bytes.
func checkLayout(op, name string, counts, displs []int, size, bufLen int) error {
	if len(counts) != size || len(displs) != size {
		return invalid(op, "%s: %d counts and %d displacements for a communicator of size %d",
			name, len(counts), len(displs), size)
	}
	for r := range counts {
		c, d := counts[r], displs[r]
		if c < 0 || d < 0 {
			return invalid(op, "%s: negative count %d or displacement %d for rank %d", name, c, d, r)
		}
		if c > bufLen-d {
			return invalid(op, "%s: rank %d region [%d, %d) beyond the buffer of %d bytes",
				name, r, d, d+c, bufLen)
		}
	}
	return nil
}

// checkOwn reports a v-collective whose count for the calling rank differs
// from the length of its send buffer: MPI would truncate or fail later, after
// other ranks have committed to the call.
func checkOwn(op, name string, counts []int, rank, sendLen int) error {
	if counts[rank] != sendLen {
		return invalid(op, "%s[%d] is %d but the send buffer of rank %d has %d bytes",
			name, rank, counts[rank], rank, sendLen)
	}
	return nil
}

// checkLen reports a buffer shorter than need.
func checkLen(op, name string, have, need int) error {
	if have < need {
		return invalid(op, "%s buffer has %d elements, need %d", name, have, need)
	}
	return nil
}

// chunked reports whether a point-to-point buffer of n bytes travels as
// several messages. Messages of maxCount bytes or more always end with a
// short chunk, so the test is >=.
func chunked(n int) bool { return n >= maxCount }

// checkChunkedIrecv refuses a chunked Irecv that could match chunks of
// different messages: its chunks are posted together, so they need one
// named source and tag.
func checkChunkedIrecv(op string, n, source, tag int) error {
	if chunked(n) && (source == AnySource || tag == AnyTag) {
		return invalid(op, "a receive of %d bytes is split into chunks and needs a named source and tag", n)
	}
	return nil
}

// blockSize returns the size in bytes of the block in which every value
// (counts and displacements of one side of a collective) is expressed, so
// that no count handed to C exceeds maxCount: 1 when all values fit, else a
// block dividing every value. It fails when no block up to maxCount bytes
// keeps every quotient within maxCount.
func blockSize(op string, values ...[]int) (int, error) {
	largest, g := 0, 0
	for _, vs := range values {
		for _, v := range vs {
			largest = max(largest, v)
			g = gcd(g, v)
		}
	}
	if largest <= maxCount {
		return 1, nil
	}
	if g <= maxCount && largest/g <= maxCount {
		return g, nil
	}
	// g itself is too big for a C int: try g/k for small k dividing g. The
	// search is bounded; such layouts (one huge block) are not worth more.
	for k := (g + maxCount - 1) / maxCount; k <= 1<<12 && k <= g; k++ {
		if g%k == 0 && largest/(g/k) <= maxCount {
			return g / k, nil
		}
	}
	return 0, invalid(op, "count or displacement of %d bytes exceeds %d and the values share no block size (greatest common divisor %d) that brings them below it",
		largest, maxCount, g)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
