package reader

import "errors"

// Sentinel errors, for errors.Is.
var (
	// ErrDirectUnsupported: the file system refused direct I/O (O_DIRECT)
	// for this file. Read without direct I/O instead.
	ErrDirectUnsupported = errors.New("reader: the file system does not support direct I/O (O_DIRECT)")
	// ErrUnaligned: a direct-I/O read was asked for with a buffer address,
	// length or file offset that is not a multiple of Alignment.
	ErrUnaligned = errors.New("reader: direct I/O needs buffer address, length and offset aligned to 4096 bytes")
	// ErrProtocol: a Stagger token did not say what it should (the wrong
	// window or size): the readers disagree on the window sequence, or
	// another part of the program uses StaggerTag.
	ErrProtocol = errors.New("reader: stagger protocol violation")
)
