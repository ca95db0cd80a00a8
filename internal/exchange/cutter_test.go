package exchange

import (
	"slices"
	"testing"
)

// TestPieceSize: pieces are 1 MiB among few nodes and shrink with more, so
// that a piece from every peer fits the inbox, down to minPiece; always a
// whole number of minPiece.
func TestPieceSize(t *testing.T) {
	for nodes, want := range map[int]int{1: maxPiece, 2: maxPiece, 9: maxPiece, 17: 512 << 10, 100: 64 << 10, 5000: minPiece} {
		got := pieceSize(nodes)
		if got != want || got%minPiece != 0 {
			t.Errorf("pieceSize(%d) = %d, want %d", nodes, got, want)
		}
	}
}

// TestCutter: a stream is cut into the messages both ends expect: values
// from directFrom on alone, in pieces of at most a piece; smaller ones
// packed, at most a piece a message; every byte once, in order.
func TestCutter(t *testing.T) {
	const piece = 64 << 10
	for _, tc := range []struct {
		name string
		lens []int
		want []message
	}{
		{"control word alone", []int{8}, []message{{first: 0, last: 1, n: 8}}},
		{"small values packed up to a piece", []int{8, 15000, 0, 15000, 15000, 15000, 10000},
			[]message{{first: 0, last: 6, n: 60008}, {first: 6, last: 7, n: 10000}}},
		{"a large value alone, in pieces", []int{8, directFrom, 150000, 100},
			[]message{{first: 0, last: 1, n: 8}, {first: 1, last: 2, n: directFrom, direct: true},
				{first: 2, last: 2, n: piece, direct: true}, {first: 2, offset: piece, last: 2, n: piece, direct: true},
				{first: 2, offset: 2 * piece, last: 3, n: 150000 - 2*piece, direct: true}, {first: 3, last: 4, n: 100}}},
		{"an empty value after a large one", []int{8, 20000, 0},
			[]message{{first: 0, last: 1, n: 8}, {first: 1, last: 2, n: 20000, direct: true}, {first: 2, last: 3, n: 0}}},
	} {
		c := cutter{lens: tc.lens, piece: piece}
		var got []message
		for m, ok := c.next(); ok; m, ok = c.next() {
			got = append(got, m)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: messages %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
