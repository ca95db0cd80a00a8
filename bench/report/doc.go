// Command report turns the JSON lines printed by `lmdbio bench --json` into
// a Markdown report and plots.
//
// Usage:
//
//	go run ./bench/report -in results.jsonl -out DIR
//	go run ./bench/report -in local.jsonl:local -in pfs.jsonl:pfsemu -out DIR
//
// Flags: -machine TEXT describes the machine instead of the inputs'
// "machine" lines; -study-ranks N fixes the rank count of the stacked study;
// -no-plots writes results.md only. -in - reads standard input.
//
// # Overview
//
// The input is one JSON object per line with a "type" field: "result" (one
// mode at one rank count, cache state and round), "limit" (a plain
// sequential read of the data file, buffered or O_DIRECT), "peer" (a peer
// loader such as PyTorch's DataLoader), "au-search" (the largest number of
// emulated accelerators per node that stays above the utilisation
// threshold) and "machine" (where and when the run happened). Other types
// and unknown fields are ignored, and a "summary" line is ignored too:
// every figure is recomputed from the individual rounds. Several runs may be
// concatenated or given as several -in files; a run on another storage
// carries "storage" (for example "local" or "pfsemu"), which -in
// FILE:LABEL sets or overrides. Results are grouped by storage and consumer
// and never pooled across groups.
//
// The program has three layers, each in its own files: parsing
// (records.go, parse.go) turns lines into typed records; the tables
// (report.go, group.go, stats.go, study.go, peers.go, scaling.go, au.go,
// machine.go) are pure
// functions from records to rows of numbers; rendering writes those rows as
// Markdown (markdown.go, format.go) and as gonum/plot figures in SVG and PNG
// (plots.go, bars.go, render.go).
//
// Written to DIR: results.md; throughput_vs_ranks_{cold,warm}[_STORAGE],
// stacked_study[_STORAGE] and first_batch_vs_ranks, each as .svg and .png.
//
// # Invariants
//
// Every figure is a median over the rounds found for one (storage,
// consumer, cache, mode, ranks) cell, with the min–max spread beside it.
// Results of an accelerator workload (workload other than "none") only
// feed the accelerator-utilisation table: their throughput is bounded by
// emulated compute, not by the loader.
//
// # Exit status
//
// 0 success; 1 the report could not be written; 2 bad usage or a bad input
// line (the error names the file and the line number).
package main
