// Package planner turns the records a node needs next into a short list of
// large, coalesced read spans.
//
// # Overview
//
// A training step needs many small records scattered over a large file.
// Reading each one on its own costs a system call and, on a parallel file
// system, a round trip per record; reading the whole file costs too many
// bytes. Plan sits between the two: it sorts the wanted records by file
// offset and merges neighbours into one span while the bytes read through
// between them stay small (Options.MaxGap) and the span stays bounded
// (Options.MaxSpan). Windows groups the batches of several training
// iterations so that each plan covers enough bytes (at least 4 MiB is a good
// target) for the merging to pay off.
//
// Plan is a pure function of its inputs: it touches no file and keeps no
// state, so it is tested from tables and expected-output files under
// testdata/ (go test -update rewrites them), by a property test over random
// inputs and by a fuzz test. Verify checks every invariant below; the reader
// may call it under a debug build.
//
// # Invariants
//
// For spans := Plan(src, records, opt):
//
//   - Every element of records appears in exactly one Placed of exactly one
//     span; a record listed k times is placed k times (possibly in the same
//     span), each placement pointing at the same file bytes.
//   - A placed record's bytes lie inside its span:
//     0 <= p.Offset and p.Offset+p.Length <= span.Length, and
//     span.Offset+p.Offset is the record's file offset.
//   - Spans are sorted by Offset and do not overlap: the end of one span is
//     at most the Offset of the next. Within a span, records are in file
//     order (ties keep the caller's order).
//   - With Align > 0, every span Offset and Length is a multiple of Align.
//   - Inside a span, wherever consecutive records leave bytes unread (after
//     rounding to Align), the gap is at most MaxGap.
//   - With MaxSpan > 0, a span is longer than MaxSpan only when it cannot be
//     split: its records, widened to Align boundaries, form one chain in
//     which each record overlaps the bytes of the ones before it. Without
//     Align and without overlapping records, that is a single record larger
//     than MaxSpan. With Align, rounding a lone record out to block
//     boundaries can add up to 2*Align-2 bytes, so such a span may exceed
//     MaxSpan by less than 2*Align; records that share one Align block must
//     share a span, since two O_DIRECT reads may not cover the same block.
//
// A span that holds only zero-length records has Length 0 when Align is 0
// (readers should skip the read, not fail on it).
package planner
