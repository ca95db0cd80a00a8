package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
	"github.com/lmdbio/lmdbio/pkg/assign"
	"github.com/spf13/cobra"
)

// stallOptions are the flags of lmdbio stall.
type stallOptions struct {
	loader    loaderFlags
	workload  string
	compute   time.Duration
	threshold float64
	consumer  string
	rounds    int
	probes    string
	fractions string
	json      bool
}

func newStallCommand() *cobra.Command {
	opt := stallOptions{workload: "resnet50", consumer: "touch", rounds: 1, probes: "buffered:1x1:16MiB,direct:1x8:4MiB",
		fractions: "0,0.25,0.5,0.75,1"}
	cmd := &cobra.Command{
		Use:   "stall [flags] PATH",
		Short: "Measure a workload's data stalls: fetch stall, prep stall, and what would remove them",
		Long: `

Run it as an MPI program: lmdbio run -n 4 -- lmdbio stall PATH. DS-Analyzer's
differential method (Mohan et al., VLDB 2021) with lmdbio as the loader and a
workload's emulated accelerators (--workload, or --compute and --batch): every
round makes three runs of one epoch on every rank of the job, each timed from
Open (or, for run 1, the first batch) to the last batch of the slowest learner:

  run 1  synthetic data in memory: the same batches, no loading, no consumer,
         only the emulated compute: the accelerators' maximum ingestion rate
  run 2  the real data, page cache dropped: fetch + prep + compute
  run 3  the real data, fully cached: prep + compute

prep stall = T3 - T1; fetch stall = T2 - T3; fetch rate = samples / (T2 - T3).
Then what would remove them: the fraction of the dataset a cache must hold
for AU to reach the workload's threshold (DS-Analyzer's what-if: an epoch
with a fraction f cached takes T3 + (1 - f)(T2 - T3)), the storage rate that
would hide the fetch behind prep and compute and whether the storage's limit
(--limit-probes, measured cold) allows it, the nodes that would deliver it
if each node's client is the bound, and the cores per learner that would hide
the prep behind the compute. Medians over --rounds. Needs root to drop the
page cache.

--json prints one object per line: result (the runs; run 1 has mode
"synthetic"), limit, stall (the analysis), what-if (one per --cache-fractions).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFloatFlags(cmd.Flags()); err != nil {
				return err
			}
			cfg, fractions, err := opt.config(args[0])
			if err != nil {
				return err
			}
			return runStall(cfg, fractions)
		},
	}
	f := cmd.Flags()
	opt.loader.register(f, "") // always keep: every record once
	f.StringVar(&opt.workload, "workload", opt.workload, "emulated accelerators: "+strings.Join(bench.WorkloadNames(), ", ")+", or custom with --compute and --batch")
	f.DurationVar(&opt.compute, "compute", 0, "emulated compute per batch (a custom workload; with --batch and --threshold)")
	f.Float64Var(&opt.threshold, "threshold", 0.9, "AU a custom workload must keep")
	f.StringVar(&opt.consumer, "consumer", opt.consumer, "what learners do with each record: touch, sha256 or none")
	f.IntVar(&opt.rounds, "rounds", opt.rounds, "rounds of the three runs")
	f.StringVar(&opt.probes, "limit-probes", opt.probes, "how the storage limit is measured (as lmdbio bench), or none")
	f.StringVar(&opt.fractions, "cache-fractions", opt.fractions, "cached fractions of the dataset to predict, comma-separated")
	f.BoolVar(&opt.json, "json", false, "print one JSON object per line")
	return cmd
}

// config checks the flags before the job starts and makes the bench
// configuration the three runs share.
func (o *stallOptions) config(path string) (benchConfig, []float64, error) {
	keep := assign.Keep
	lopt, err := o.loader.options(&keep)
	if err != nil {
		return benchConfig{}, nil, err
	}
	cfg := benchConfig{path: path, lopt: lopt, modes: []benchMode{singleBenchMode(o.loader.modeName(), lopt)},
		caches: []string{"cold", "warm"}, rounds: o.rounds, json: o.json, wholeJob: true}
	if o.rounds < 1 {
		return cfg, nil, usagef("--rounds %d: want at least 1", o.rounds)
	}
	k, err := bench.ParseConsumer(o.consumer)
	if err != nil {
		return cfg, nil, usageError(err)
	}
	cfg.consumers = []bench.ConsumerKind{k}
	if cfg.probes, err = parseProbes(o.probes); err != nil {
		return cfg, nil, err
	}
	if o.compute < 0 {
		return cfg, nil, usagef("--compute %v: want a time per batch >= 0 (0: the --workload's)", o.compute)
	}
	if o.compute > 0 {
		if !(o.threshold > 0 && o.threshold <= 1) { // NaN too
			return cfg, nil, usagef("--threshold %v: want 0 < AU <= 1", o.threshold)
		}
		cfg.workload = bench.Workload{Name: "custom", Batch: lopt.Batch, Compute: o.compute, Threshold: o.threshold}
	} else {
		if cfg.workload, err = bench.ParseWorkload(o.workload); err != nil {
			return cfg, nil, usageError(err)
		}
		if !cfg.workload.Enabled() {
			return cfg, nil, usagef("--workload %s: stall needs emulated compute (a workload, or --compute)", o.workload)
		}
		cfg.lopt.Batch = cfg.workload.Batch
	}
	fractions, err := bench.ParseFractions(splitList(o.fractions))
	if err != nil {
		return cfg, nil, usageError(err)
	}
	return cfg, fractions, nil
}

// stallSchedule lists one round's runs: the storage limit cold, the loader
// cold, the page cache warmed, the loader warm, the same batches from
// memory.
func stallSchedule(cfg benchConfig, ranks int) []benchStep {
	var steps []benchStep
	mode, consumer := cfg.modes[0], cfg.consumers[0]
	for round := 1; round <= cfg.rounds; round++ {
		if len(cfg.probes) > 0 {
			steps = append(steps, benchStep{kind: stepLimit, round: round, cache: "cold", ranks: 1})
		}
		steps = append(steps,
			benchStep{kind: stepMode, round: round, cache: "cold", ranks: ranks, mode: mode, consumer: consumer},
			benchStep{kind: stepWarmUp, round: round, cache: "warm", ranks: ranks},
			benchStep{kind: stepMode, round: round, cache: "warm", ranks: ranks, mode: mode, consumer: consumer},
			benchStep{kind: stepSynthetic, round: round, cache: "memory", ranks: ranks})
	}
	return steps
}

func runStall(cfg benchConfig, fractions []float64) error {
	r, err := startBench(cfg, "stall")
	if err != nil {
		return err
	}
	if !r.canDrop {
		return r.end(errors.New("stall: cannot drop the page cache (needs root and a writable /proc/sys/vm/drop_caches): run 2 would not be cold"))
	}
	// Stalls are differences of the loader's time: the processes' own
	// start-up is the same in every run and is left out.
	r.processStartup, r.programStartup = 0, 0
	r.runSteps(stallSchedule(r.cfg, r.ranks[0]))
	if r.job.topo.Rank == 0 {
		err = r.reportStall(fractions)
		if err == nil {
			err = r.mismatch
		}
	}
	return r.end(err)
}

// reportStall analyses the runs (rank 0).
func (r *benchRun) reportStall(fractions []float64) error {
	var t1, t2, t3 []float64
	var cold bench.Result
	for _, res := range r.out.results {
		switch {
		case res.Mode == syntheticMode:
			t1 = append(t1, res.Seconds)
		case res.Cache == "cold":
			t2, cold = append(t2, res.Seconds), res
		case res.Cache == "warm":
			t3 = append(t3, res.Seconds)
		}
	}
	if len(t1) == 0 || len(t2) == 0 || len(t3) == 0 {
		return fmt.Errorf("stall: a run is missing (%d synthetic, %d cold, %d warm)", len(t1), len(t2), len(t3))
	}
	epochs := int64(max(cold.Epochs, 1))
	runs := bench.StallRuns{Synthetic: stats.Median(t1), Cold: stats.Median(t2), Warm: stats.Median(t3),
		Samples: cold.Samples / epochs, Bytes: cold.Bytes / epochs, Batches: cold.BatchesMax, Compute: r.cfg.workload.Compute.Seconds(),
		Nodes: cold.Nodes, Threshold: r.cfg.workload.Threshold}
	if best := r.out.bestLimits("cold"); len(best) > 0 {
		runs.Limit = stats.Median(best)
	}
	s := runs.Analyze()
	if r.cfg.json {
		r.out.emit(s)
		for _, f := range fractions {
			r.out.emit(runs.WhatIf(f))
		}
		return nil
	}
	printStall(os.Stdout, r.cfg, cold, runs, s, fractions)
	return nil
}

// printStall writes the analysis for people.
func printStall(w io.Writer, cfg benchConfig, cold bench.Result, runs bench.StallRuns, s bench.Stall, fractions []float64) {
	wl := cfg.workload
	fmt.Fprintf(w, "\nstall analysis (DS-Analyzer's differential method), workload %s: %v compute per batch of %d, AU threshold %.2f\n",
		wl.Name, wl.Compute, cfg.lopt.Batch, wl.Threshold)
	fmt.Fprintf(w, "%d learners on %d node(s), mode %s, consumer %s, %d batches per learner, medians of %d round(s)\n",
		cold.Ranks, cold.Nodes, cold.Mode, cold.Consumer, s.Batches, cfg.rounds)
	fmt.Fprintf(w, "  run 1 synthetic data in memory   T1 = %7.3f s  ingestion %.0f samples/s\n", s.Synthetic, s.IngestRate)
	fmt.Fprintf(w, "  run 2 real data, cold cache      T2 = %7.3f s  AU %.3f, %.0f MB/s delivered\n", s.Cold, s.AUCold, s.ColdMBPerS)
	fmt.Fprintf(w, "  run 3 real data, fully cached    T3 = %7.3f s  AU %.3f\n", s.Warm, s.AUWarm)
	fmt.Fprintf(w, "  prep stall  T3 - T1 = %.3f s (%.2f ms per batch)\n", s.PrepStall, 1e3*s.PrepPerBatch)
	fmt.Fprintf(w, "  fetch stall T2 - T3 = %.3f s", s.FetchStall)
	if s.FetchStall > 0 {
		fmt.Fprintf(w, "; fetch rate %.0f samples/s (%.0f MB/s)", s.FetchRate, s.FetchMBPerS)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "what would remove them:")
	switch {
	case s.CacheFraction < 0:
		fmt.Fprintf(w, "  cache: none: even fully cached, prep keeps AU at %.3f, below %.2f\n", s.AUWarm, s.Threshold)
	case s.CacheFraction == 0:
		fmt.Fprintf(w, "  cache: none needed: the cold run keeps AU at %.3f >= %.2f\n", s.AUCold, s.Threshold)
	default:
		fmt.Fprintf(w, "  cache: %.0f %% of the dataset in memory brings AU to %.2f\n", 100*s.CacheFraction, s.Threshold)
	}
	if s.FetchStall > 0 {
		fmt.Fprintf(w, "  storage: %.0f MB/s would hide the fetch behind prep and compute (%.0f MB/s delivered cold", s.NeededMBPerS, s.ColdMBPerS)
		if s.LimitMBPerS > 0 {
			fmt.Fprintf(w, "; the storage's limit is %.0f MB/s", s.LimitMBPerS)
		}
		fmt.Fprintln(w, ")")
		if s.NodesNeeded < 0 {
			fmt.Fprintln(w, "  nodes: no node count helps: the storage's limit is below the rate needed")
		} else {
			fmt.Fprintf(w, "  nodes: %d (from %d), if each node's client bounds the rate\n", s.NodesNeeded, s.Nodes)
		}
	}
	if s.PrepStall > 0 {
		fmt.Fprintf(w, "  prep: %.2f ms per batch against %.0f ms of compute: prep overlapped with compute on %d core(s) per learner hides it\n",
			1e3*s.PrepPerBatch, 1e3*s.ComputeBatch, s.PrepCores)
	}
	fmt.Fprintln(w, "what-if, fraction of the dataset cached:")
	for _, f := range fractions {
		wi := runs.WhatIf(f)
		fmt.Fprintf(w, "  %4.0f %%  %7.3f s  AU %.3f\n", 100*f, wi.Seconds, wi.AU)
	}
}
