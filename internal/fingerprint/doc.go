// Package fingerprint names a dataset by what the loader reads from it,
// not by where it lies or when it was written.
//
// # Overview
//
// Of hashes a source.Source's description of its records: for every record
// its key, label, value length and place in its block; for every block its
// stored pieces (file offsets and lengths) and decoded length; and the
// first bytes of the values of a few records spread over the dataset, read
// from the file. Resume states carry the result, so a state saved on one
// dataset continues only on the same records with the same bytes: a copy
// of the file at another path resumes, another dataset of the same shape
// and the same path rewritten with other records do not.
//
// The sample of values keeps the cost to a few small reads however large
// the dataset (for compressed blocks, a bounded number of decoded bytes): a
// file rewritten with the same keys, lengths and layout, whose only changes
// lie outside the sampled values, keeps its fingerprint.
//
// # Invariants
//
//   - Of is a pure function of the records a Source describes and of the
//     sampled bytes: the same source on equal file bytes gives the same
//     fingerprint, on any host, at any path.
//   - A fingerprint names its format and hash ("lmdb:sha256:...").
package fingerprint
