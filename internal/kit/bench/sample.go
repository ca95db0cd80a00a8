package bench

import (
	"slices"

	"github.com/lmdbio/lmdbio/internal/kit/bench/stats"
)

// RankSample is what one rank measured in one measurement. It travels from
// every rank to rank 0 as JSON.
type RankSample struct {
	Rank   int  `json:"rank"`
	Leader bool `json:"leader"` // reads for its node (the arena is counted once per node)
	Direct bool `json:"direct"` // its node reader read with O_DIRECT (loader.Loader.Direct)

	Records int64  `json:"records"`
	Batches int    `json:"batches"`
	Bytes   int64  `json:"bytes"`  // value bytes delivered to this learner
	Digest  uint64 `json:"digest"` // consumer sha256 only

	// Times, in seconds. The window of a measurement starts when the
	// learner's program started (ProgramStartup before the loader's Open, as
	// if each contender were a fresh process) and ends with its last batch.
	ProcessStartup float64 `json:"process_startup_s"` // process start to the program's start (exec, linking, runtime): outside the window
	ProgramStartup float64 `json:"program_startup_s"` // the program's start to the job's start, less MPI's start-up (the same for every measurement)
	Startup        float64 `json:"startup_s"`         // Open: from before Open until it returned
	FirstBatch     float64 `json:"first_batch_s"`     // from before Open to the first batch in hand
	Wall           float64 `json:"wall_s"`            // from before Open to the last batch consumed
	Close          float64 `json:"close_s"`           // Close, after the last batch
	Stall          float64 `json:"stall_s"`           // time spent inside Next
	Compute        float64 `json:"compute_s"`         // emulated accelerator time: batches × the workload's compute time

	ReadBytes int64 `json:"read_bytes"`       // /proc/self/io read_bytes delta
	ReadCalls int64 `json:"read_calls"`       // /proc/self/io syscr delta
	LoaderIO  int64 `json:"loader_reads"`     // pread calls of this rank's node reader (0 unless it reads for its node with DIO)
	RSS       int64 `json:"rss_bytes"`        // peak RSS during the measurement
	Shm       int64 `json:"shm_bytes"`        // the node's arena, as this rank maps it
	NodeCache int64 `json:"node_cache_bytes"` // the node's cache, as this rank maps it

	Epochs []EpochSample `json:"epochs"` // per epoch, in the order read
}

// Summarize turns the samples of one measurement (one per rank) into the
// measured fields of a result line; the caller fills in what was measured
// (round, mode, ranks...). Throughput is what all learners received over the
// slowest learner's window, from its program's start to its last batch: the
// job is as fast as its last learner. Start-up and first batch count from
// the program's start too. AU (compute over the loader's time, Open to the
// last batch: the job's own start-up is not the storage's doing) is filled
// only when withAU is set.
func Summarize(samples []RankSample, withAU bool) Result {
	r := Result{Type: TypeResult}
	if len(samples) == 0 {
		return r
	}
	firsts := make([]float64, 0, len(samples))
	aus := make([]float64, 0, len(samples))
	var stallSum float64
	for _, s := range samples {
		r.Samples += s.Records
		r.BatchesMax = max(r.BatchesMax, s.Batches)
		r.Bytes += s.Bytes
		r.Seconds = max(r.Seconds, s.ProgramStartup+s.Wall)
		r.StartupS = max(r.StartupS, s.ProgramStartup+s.Startup)
		r.ProcessStartupS = max(r.ProcessStartupS, s.ProcessStartup)
		r.CloseS = max(r.CloseS, s.Close)
		firsts = append(firsts, s.ProgramStartup+s.FirstBatch)
		r.StallS = max(r.StallS, s.Stall)
		stallSum += s.Stall
		r.ReadBytes += s.ReadBytes
		r.ReadCalls += s.ReadCalls
		r.LoaderReads += s.LoaderIO
		r.RSSMaxBytes = max(r.RSSMaxBytes, s.RSS)
		if s.Leader {
			r.ShmBytes += s.Shm
			r.NodeCacheBytes += s.NodeCache
		}
		for _, e := range s.Epochs {
			r.StorageBytes += e.StorageBytes
			r.ExchangeBytes += e.ExchangeBytes
			r.CacheHits += e.CacheHits
		}
		aus = append(aus, AU(s.Compute, s.Wall))
	}
	r.SamplesPerS = Rate(float64(r.Samples), r.Seconds)
	r.MBPerS = Rate(float64(r.Bytes), r.Seconds) / 1e6
	fb := stats.SpreadOf(firsts)
	r.FirstBatchMin, r.FirstBatchMedian, r.FirstBatchMax = fb.Min, fb.Median, fb.Max
	r.StallMean = stallSum / float64(len(samples))
	if withAU {
		r.AUMin = slices.Min(aus)
		var sum float64
		for _, a := range aus {
			sum += a
		}
		r.AUMean = sum / float64(len(aus))
	}
	return r
}
