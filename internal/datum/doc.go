// Package datum encodes and decodes Caffe's Datum protocol-buffer message,
// the value format of Caffe's LMDB image datasets, without generated code.
//
// # Overview
//
// caffe.proto declares (proto2):
//
//	message Datum {
//	  optional int32 channels = 1;
//	  optional int32 height = 2;
//	  optional int32 width = 3;
//	  optional bytes data = 4;      // the pixels, channel-major, or an encoded image
//	  optional int32 label = 5;
//	  repeated float float_data = 6;
//	  optional bool encoded = 7 [default = false];
//	}
//
// Unmarshal accepts anything a protobuf parser accepts for that message:
// fields in any order, repeated scalars (the last one wins), float_data
// packed or not, and unknown fields, which it skips. Marshal writes what
// Caffe's own tools write, so datasets lmdbio generates are byte-for-byte
// like those of convert_imageset.
//
// # Invariants
//
//   - A Datum from Unmarshal aliases its input: Data is a sub-slice of the
//     bytes given, so it is valid as long as they are (for a value read
//     through liblmdb's map, until the transaction ends).
//   - Malformed input yields an error matching ErrCorrupt, never a panic.
package datum
