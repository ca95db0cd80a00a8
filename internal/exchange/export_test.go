package exchange

// What the external tests need to size their traffic.
var PieceSize = pieceSize

const MaxPiece = maxPiece
