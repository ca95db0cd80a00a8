// Command report turns the JSON lines printed by `lmdbio-bench bench --json` into
// a Markdown report and plots.
//
// Usage:
//
//	go run ./bench/report -in results.jsonl -out DIR
//	go run ./bench/report -in local.jsonl:local -in pfs.jsonl:pfsemu -out DIR
//	go run ./bench/report -paired -in a.jsonl:A -in b.jsonl:B
//
// Flags: -machine TEXT describes the machine instead of the inputs'
// "machine" lines; -study-ranks N fixes the rank count of the stacked study;
// -no-plots writes results.md only. -in - reads standard input. -paired
// prints one table instead of a report: the first input's results over the
// second's, per consumer, paired by round number (series of one-round runs
// taken in turns, numbered by pair).
//
// # Overview
//
// The input is one JSON object per line with a "type" field: "result" (one
// mode at one rank count, consumer, cache state and round), "limit" (one
// probe of the storage: the data file read front to back buffered or with
// O_DIRECT, by several streams with several requests in flight; the
// fastest probe of a round is its limit), "peer" (a peer loader such as
// PyTorch's DataLoader, with its consumer), "au-search" (the largest number of
// emulated accelerators per node that stays above the utilisation
// threshold), "epoch" (one epoch of a mode or a peer: its time, storage and
// exchange bytes, cache hits, stall, HDF5 decoding), "shuffle-quality"
// (lmdbio-bench shuffle-quality), "fit", "residual" and "prediction" (lmdbio
// model fit and predict --json) and "machine" (where and when the run
// happened). Other types
// and unknown fields are ignored, and a "summary" line is ignored too:
// every figure is recomputed from the individual rounds. Several runs may be
// concatenated or given as several -in files; a run on another storage
// carries "storage" (for example "local" or "pfsemu"), which -in
// FILE:LABEL sets or overrides. Results and peers are grouped by storage and
// consumer and never pooled or compared across groups: every table heading
// names its consumer, and a ratio stands only between contenders that did
// the same work over the same window (the start of the loader to its last batch). Lines
// from older runs are read as they were measured and the report says so:
// limit lines without a probe were one stream of 16 MiB requests, peer lines
// without a consumer hashed (sha256). Lines marked "synthetic" (made by
// lmdbio-bench model synth) are refused.
//
// The program has three layers, each in its own files: parsing
// (records.go, parse.go) turns lines into typed records; the tables
// (report.go, group.go, stats.go, study.go, peers.go, scaling.go, au.go,
// machine.go, epochs.go, model.go) are pure
// functions from records to rows of numbers; rendering writes those rows as
// Markdown (markdown.go, markdown_epochs.go, format.go) and as gonum/plot
// figures in SVG and PNG (plots.go, plots_epochs.go, bars.go;
// internal/kit/bench/figure writes them).
//
// Results and peers of runs of several epochs stay out of the one-epoch
// tables: they have their own (shuffled epochs, per epoch), and a result's
// "contender" (a mode with its shuffle, locality or stagger) names its row.
//
// Written to DIR: results.md; throughput_vs_ranks_{cold,warm}[_STORAGE[_CONSUMER]],
// stacked_study[_STORAGE[_CONSUMER]] (the consumer when a storage ran several),
// first_batch_vs_ranks and epochs_STORAGE_CONSUMER_RANKS_CACHE, each as .svg
// and .png.
//
// # Invariants
//
// Every figure is a median over the rounds found for one (storage,
// consumer, cache, mode, ranks) cell, with the min–max spread beside it. A
// figure above the storage's limit by more than the noise band (the larger
// of both spreads and 10 %, internal/kit/bench/stats) is marked †. Ratios "paired"
// are the geometric mean, with its 95 % interval, of the ratios within each
// round of each run, the limit's too: what drifts between rounds cancels.
// Results of an accelerator workload (workload other than "none") only
// feed the accelerator-utilisation table: their throughput is bounded by
// emulated compute, not by the loader.
//
// # Exit status
//
// 0 success; 1 the report could not be written; 2 bad usage or a bad input
// line (the error names the file and the line number).
package main
