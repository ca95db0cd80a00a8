package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/pkg/loader"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// measureMode runs the loader in one mode on the step's ranks and, at rank
// 0, turns their samples into a result line.
func (r *benchRun) measureMode(s benchStep) {
	r.setCache(s.cache)
	g := r.groups[s.ranks]
	if g.topo == nil {
		return // not taking part: wait at the next step's barrier
	}
	lopt := s.mode.options(r.cfg.lopt)
	sample, err := measureLearner(r.cfg.path, g.topo, lopt, s.consumer, r.cfg.workload)
	sample.ProcessStartup, sample.ProgramStartup = r.processStartup, r.programStartup
	if err != nil {
		r.job.Fail(cli.WithPath(r.cfg.path, err))
	}
	r.lastSample = sample
	samples := r.gatherSamples(g, sample)
	if r.job.Topo.Rank != 0 {
		return
	}
	res := bench.Summarize(samples, r.cfg.workload.Enabled())
	res.Round, res.Mode, res.Ranks, res.Nodes, res.Cache = s.round, s.mode.name, s.ranks, g.topo.Nodes, s.cache
	res.Contender, res.Shuffle, res.Locality, res.Seed = s.mode.label, lopt.Shuffle.String(), lopt.Locality.String(), lopt.Seed
	res.Format, res.FileBytes = string(r.cfg.format), r.fileBytes
	res.RanksPerNode = (s.ranks + g.topo.Nodes - 1) / g.topo.Nodes
	res.Consumer, res.Workload, res.Batch, res.Epochs = s.consumer.String(), workloadName(r.cfg.workload), lopt.Batch, lopt.Epochs
	res.ComputePerBatch = r.cfg.workload.Compute.Seconds()
	res.Direct, res.Stagger, res.IODepth, res.WindowBytes, res.MaxSpanBytes = samples[0].Direct, lopt.Stagger, lopt.IODepth, lopt.Window, lopt.MaxSpan
	res.FractionOfLimit = r.fractionOfLimit(s.round, s.cache, res.MBPerS)
	hasDigest, digest := s.consumer == bench.SHA256, bench.DigestSum(samples)
	if hasDigest {
		res.Digest = bench.FormatDigest(digest)
	}
	r.out.result(res)
	for _, f := range bench.SummarizeEpochs(samples, r.fileBytes, lopt.Mode.PROV) {
		r.out.epoch(bench.Epoch{Type: bench.TypeEpoch, Kind: "mode", Round: s.round, Contender: res.Contender, Mode: res.Mode,
			Shuffle: res.Shuffle, Locality: res.Locality, Format: res.Format, Ranks: res.Ranks, Nodes: res.Nodes,
			RanksPerNode: res.RanksPerNode, Cache: s.cache, Consumer: res.Consumer, Epochs: res.Epochs, Cores: runtime.GOMAXPROCS(0),
			EpochFigures: f})
	}
	r.check(bench.Delivery{Name: fmt.Sprintf("%s on %d ranks (round %d, %s, %s)", s.mode.label, s.ranks, s.round, s.cache, s.consumer),
		Epochs: lopt.Epochs, Records: res.Samples, Bytes: res.Bytes, Digest: digest, HasDigest: hasDigest})
}

// gatherSamples collects every rank's sample of a measurement at rank 0
// (nil elsewhere).
func (r *benchRun) gatherSamples(g *benchGroup, sample bench.RankSample) []bench.RankSample {
	enc, _ := json.Marshal(sample)
	all, err := cli.GatherStrings(g.topo.World, string(enc), 0)
	if err != nil {
		r.job.Fail(fmt.Errorf("bench: %w", err))
	}
	if all == nil {
		return nil
	}
	samples := make([]bench.RankSample, len(all))
	for i, a := range all {
		if err := json.Unmarshal([]byte(a), &samples[i]); err != nil {
			r.job.Fail(fmt.Errorf("bench: rank %d's sample: %w", i, err))
		}
	}
	return samples
}

// measureSynthetic is DS-Analyzer's first run: every learner takes as many
// batches as it took from the loader in the previous measurement, of the
// same sizes, from memory: no storage, no loader, no consumer, only the
// workload's emulated compute. Its time is what the accelerators need
// when data is never late.
func (r *benchRun) measureSynthetic(s benchStep) {
	r.setCache(s.cache)
	g := r.groups[s.ranks]
	if g.topo == nil {
		return
	}
	last := r.lastSample
	perRecord := 0
	if last.Records > 0 {
		perRecord = int(last.Bytes / last.Records)
	}
	batch := make([]byte, r.cfg.lopt.Batch*perRecord) // the batch in memory, filled once
	for i := range batch {
		batch[i] = byte(i)
	}
	sample := bench.RankSample{Rank: g.topo.Rank, Leader: g.topo.Leader()}
	if err := g.topo.World.BarrierSleeping(cli.WaitPause); err != nil {
		r.job.Fail(fmt.Errorf("bench: %w", err))
	}
	t0 := time.Now()
	var compute, slept time.Duration
	for b := 0; b < last.Batches; b++ {
		records := min(int64(r.cfg.lopt.Batch), last.Records-sample.Records)
		view := batch[:records*int64(perRecord)]
		sample.Records += records
		sample.Bytes += int64(len(view))
		sample.Batches++
		compute += r.cfg.workload.Compute
		slept += emulateCompute(compute - slept)
	}
	sample.Wall, sample.Compute = time.Since(t0).Seconds(), compute.Seconds()
	samples := r.gatherSamples(g, sample)
	if r.job.Topo.Rank != 0 {
		return
	}
	res := bench.Summarize(samples, r.cfg.workload.Enabled())
	res.Round, res.Mode, res.Ranks, res.Nodes, res.Cache = s.round, syntheticMode, s.ranks, g.topo.Nodes, s.cache
	res.RanksPerNode = (s.ranks + g.topo.Nodes - 1) / g.topo.Nodes
	res.Consumer, res.Workload, res.Batch, res.Epochs = bench.NoConsumer.String(), workloadName(r.cfg.workload), r.cfg.lopt.Batch, 1
	res.ComputePerBatch = r.cfg.workload.Compute.Seconds()
	r.out.result(res)
}

// syntheticMode names the results of measureSynthetic.
const syntheticMode = "synthetic"

func workloadName(w bench.Workload) string {
	if !w.Enabled() {
		return "none"
	}
	return w.Name
}

// emulateCompute stands for an accelerator busy for d, and returns the time
// it really slept. Timers wake late (Go's by up to a millisecond, a third of
// cosmoflow's 3.5 ms batch), so the caller asks for what it still owes: the
// nominal compute so far minus the time slept so far. A late wake-up is then
// paid back on the next batch and the total stays at the nominal compute.
func emulateCompute(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	start := time.Now()
	time.Sleep(d)
	return time.Since(start)
}

// measureLearner is one learner's part of a measurement: meet the others,
// open the loader, read every epoch to the end doing the consumer's work
// (and the workload's emulated compute), close, and say what it saw. Its
// times count from before Open; the caller adds the process start-up.
func measureLearner(path string, topo *topology.Topology, lopt loader.Options, kind bench.ConsumerKind,
	w bench.Workload) (bench.RankSample, error) {
	s := bench.RankSample{Rank: topo.Rank, Leader: topo.Leader()}
	lopt.Topology = topo
	con := bench.NewConsumer(kind)
	_ = bench.ResetPeakRSS() // without it the peak would be the process's so far
	io0, ioErr := bench.SelfIO()
	ioEpoch := io0
	if err := topo.World.BarrierSleeping(cli.WaitPause); err != nil {
		return s, fmt.Errorf("bench: %w", err)
	}
	t0 := time.Now()
	ld, err := loader.Open(path, lopt)
	if err != nil {
		return s, err
	}
	s.Startup, s.Direct = time.Since(t0).Seconds(), ld.Direct()
	var stall, compute, slept time.Duration
	first := true
	ctx := context.Background()
	for epoch := 0; epoch < lopt.Epochs; epoch++ {
		e := bench.EpochSample{Epoch: ld.Epoch()}
		var epochStall time.Duration
		for {
			t := time.Now()
			b, err := ld.Next(ctx)
			wait := time.Since(t)
			stall += wait
			epochStall += wait
			if first {
				s.FirstBatch, first = time.Since(t0).Seconds(), false
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				ld.Close()
				return s, err
			}
			s.Batches++
			for i := range b.Keys {
				con.Consume(b.Keys[i], b.Values[i])
				e.Bytes += int64(len(b.Values[i]))
			}
			e.Records += int64(len(b.Keys))
			if w.Enabled() {
				compute += w.Compute
				slept += emulateCompute(compute - slept)
			}
		}
		e.End, e.Stall = time.Since(t0).Seconds(), epochStall.Seconds()
		if now, err := bench.SelfIO(); err == nil && ioErr == nil {
			e.ReadBytes = now.Sub(ioEpoch).ReadBytes
			ioEpoch = now
		}
		s.Epochs = append(s.Epochs, e)
	}
	s.Wall = time.Since(t0).Seconds()
	for i := range s.Epochs {
		e := &s.Epochs[i]
		st := ld.EpochStats(e.Epoch)
		e.StorageBytes, e.ExchangeBytes, e.CacheHits = st.StorageBytes, st.ExchangeBytes, st.CacheHits
		e.DecodedBytes, e.DecodeSeconds = st.DecodedBytes, st.DecodeSeconds
	}
	s.Shm, s.NodeCache = ld.ArenaBytes(), ld.CacheBytes()
	s.LoaderIO = ld.Stats().Reads
	tc := time.Now()
	if err := ld.Close(); err != nil {
		return s, err
	}
	s.Close = time.Since(tc).Seconds()
	s.Stall, s.Compute = stall.Seconds(), compute.Seconds()
	s.Records, s.Bytes, s.Digest = con.Records, con.Bytes, con.Digest
	if io1, err := bench.SelfIO(); err == nil && ioErr == nil {
		d := io1.Sub(io0)
		s.ReadBytes, s.ReadCalls = d.ReadBytes, d.ReadCalls
	}
	s.RSS, _ = bench.PeakRSS()
	return s, nil
}

// options are the loader's options for contender m: base with its mode,
// shuffle, locality and stagger.
func (m benchMode) options(base loader.Options) loader.Options {
	base.Mode, base.Shuffle, base.Locality, base.Stagger = m.mode, m.shuffle, m.locality, m.stagger
	return base
}
