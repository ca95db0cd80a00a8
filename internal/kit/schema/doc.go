// Package schema declares the JSON lines of lmdbio's benchmark kit, once:
// what lmdbio-bench bench --json prints (result, limit, peer, epoch,
// au-search, summary and ratio lines), and the line a peer program
// (bench/peers/*.py) prints for the bench to read (PeerReport).
//
// # Overview
//
// The bench (internal/kit/bench and cmd/lmdbio-bench) writes these types;
// the report (bench/report) and the model (internal/kit/model) read them.
// The Python peers write PeerReport with their own code; a test runs that
// code and decodes its line here.
//
// # Invariants
//
//   - A field's JSON name never changes: recorded runs (bench/results) and
//     the report read them.
//   - Every line carries "type", one of the Type constants.
//   - A peer's line has no field PeerReport does not declare and lacks none
//     it declares (TestPeerLineDecodes).
package schema
