package loader

import "testing"

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
