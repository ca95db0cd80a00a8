package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/lmdbfmt"
	"github.com/lmdbio/lmdbio/internal/reader"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/failure"
	"github.com/lmdbio/lmdbio/pkg/index"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// benchGroup is the first n ranks of the job as a job of their own.
type benchGroup struct {
	n    int
	comm *mpi.Comm          // nil on ranks outside the group
	topo *topology.Topology // Discover over comm; nil outside
}

// benchRun is one rank's state during lmdbio-bench bench.
type benchRun struct {
	cfg       benchConfig
	job       *cli.Job
	dataPath  string // the data file, for the limit (rank 0) and warming the cache (leaders)
	fileBytes int64  // its size, for the read amplification
	ranks     []int
	groups    map[int]*benchGroup
	canDrop   bool // every node can drop its page cache
	noDirect  bool // the file system refused O_DIRECT for the limit
	// The hosts, for the limit: each reads a share of the file through its
	// own client, on the lowest rank of the host.
	hosts, host int
	hostLead    bool
	// processStartup is this rank's time from its process start to the
	// program's start (outside the windows); programStartup from there to
	// the job's start, less MPI's start-up (MPI_Init and the topology),
	// which a training job pays with any loader (Caffe-MPI initialises MPI
	// for its own gradients): what a fresh learner pays before Open.
	processStartup, programStartup float64
	// lastSample is this rank's sample of its latest loader measurement,
	// which a synthetic run repeats from memory.
	lastSample bench.RankSample

	// rank 0 only
	out      *benchOutput
	progress *benchProgress
	limits   map[benchLimitKey]float64 // the fastest probe's MB/s per round and cache
	agree    bench.Agreement
	mismatch error
}

type benchLimitKey struct {
	round int
	cache string
}

func runBench(cfg benchConfig) error {
	r, err := startBench(cfg, "bench")
	if err != nil {
		return err
	}
	r.runSteps(benchSchedule(r.cfg, r.ranks, r.job.Topo.Size))
	if r.job.Topo.Rank == 0 {
		r.out.finish(r.ranks)
		err = r.mismatch
	}
	return r.end(err)
}

// startBench starts the job of a measuring command (command names it in
// messages): MPI, the rank counts, the data file and its index, whether
// caches can be dropped, the groups of ranks. On failure the job has
// ended and the error is the one to return.
func startBench(cfg benchConfig, command string) (*benchRun, error) {
	job, err := cli.StartJob()
	if err != nil {
		return nil, err
	}
	r := &benchRun{cfg: cfg, job: job, groups: map[int]*benchGroup{}, limits: map[benchLimitKey]float64{}}
	r.processStartup = processStartup()
	r.programStartup = max(0, time.Since(programStart).Seconds()-job.Startup.Seconds())
	world := job.Topo.World
	if r.ranks, err = benchRanks(cfg, world.Size()); err != nil { // the same on every rank
		return nil, job.Finish(err)
	}
	if r.dataPath, err = lmdbfmt.DataPath(cfg.path); err != nil {
		err = cli.WithPath(cfg.path, err)
	} else if st, serr := os.Stat(r.dataPath); serr != nil {
		err = cli.WithPath(cfg.path, serr)
	} else if r.fileBytes = st.Size(); world.Rank() == 0 {
		for _, w := range cfg.warnings {
			fmt.Fprintf(os.Stderr, "%s %s: %s\n", cli.Program, command, w)
		}
		err = r.prepareIndex()
	}
	if err = job.Agree(err); err != nil {
		return nil, job.Finish(err)
	}
	if err := r.checkCold(); err != nil {
		return nil, job.Finish(err)
	}
	if err := r.findHosts(); err != nil {
		return nil, job.Finish(err)
	}
	err = r.makeGroups()
	if err = job.Agree(err); err != nil {
		r.freeGroups()
		return nil, job.Finish(err)
	}
	if world.Rank() == 0 {
		r.out = newBenchOutput(os.Stdout, r.cfg)
	}
	return r, nil
}

// runSteps performs the steps on this rank, with a progress line on rank 0.
func (r *benchRun) runSteps(steps []benchStep) {
	if r.job.Topo.Rank == 0 {
		r.progress = newBenchProgress(len(steps))
		r.out.progress = r.progress
	}
	for _, s := range steps {
		r.progress.step(s)
		r.runStep(s)
	}
	r.progress.clear()
}

// end frees the groups and ends the job, every rank agreeing on err.
func (r *benchRun) end(err error) error {
	r.freeGroups()
	return r.job.Finish(failure.Mark(err, failure.Runtime)) // a failure of the bench, whatever it met
}

// processStartup is how long this process ran before the program started:
// the exec, the dynamic linking, the runtime and the packages'
// initialisation; 0 with a warning where the kernel does not say.
func processStartup() float64 {
	age, err := bench.ProcessAge()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lmdbio-bench bench: %v: the learners' process start-up not reported\n", err)
		return 0
	}
	return max(0, (age - time.Since(programStart)).Seconds())
}

// prepareIndex makes sure the index exists, so that building it is not
// timed as part of the first measurement (rank 0).
func (r *benchRun) prepareIndex() error {
	if r.cfg.format != source.LMDB {
		return nil // HDF5 files carry their own layout
	}
	for _, m := range r.cfg.modes {
		if m.mode.PROV {
			if _, _, err := index.Load(r.cfg.path, r.cfg.lopt.Index); err != nil {
				return cli.WithPath(r.cfg.path, err)
			}
			break
		}
	}
	return nil
}

// checkCold finds out whether every node's leader can drop the page cache.
// If one cannot, cold measurements would not be cold: they are made and
// reported as warm, with one warning. Collective.
func (r *benchRun) checkCold() error {
	can := int64(1)
	if r.job.Topo.Leader() && !bench.CanDropCaches() {
		can = 0
	}
	all := make([]int64, 1)
	if err := r.job.Topo.World.AllreduceInt64([]int64{can}, all, mpi.Min); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.canDrop = all[0] == 1
	if r.canDrop {
		return nil
	}
	var caches []string
	warned := false
	for _, c := range r.cfg.caches {
		if c == "cold" {
			if r.job.Topo.Rank == 0 && !warned {
				fmt.Fprintln(os.Stderr, "lmdbio-bench bench: cannot drop the page cache (needs root and a writable /proc/sys/vm/drop_caches): cold measurements are made and reported as warm")
				warned = true
			}
			c = "warm"
		}
		if len(caches) == 0 || caches[len(caches)-1] != c {
			caches = append(caches, c)
		}
	}
	if len(caches) == 2 && caches[0] == caches[1] {
		caches = caches[:1]
	}
	r.cfg.caches = caches
	return nil
}

// makeGroups splits off the first n ranks for every rank count measured and
// discovers their topology. Collective; errors are this rank's only.
func (r *benchRun) makeGroups() error {
	world := r.job.Topo.World
	var firstErr error
	for _, n := range r.ranks {
		color := mpi.Undefined
		if world.Rank() < n {
			color = 0
		}
		comm, err := world.Split(color, world.Rank())
		if err != nil {
			return fmt.Errorf("bench: the first %d ranks: %w", n, err)
		}
		g := &benchGroup{n: n, comm: comm}
		r.groups[n] = g
		if comm == nil {
			continue
		}
		if g.topo, err = topology.Discover(comm); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("bench: the first %d ranks: %w", n, err)
		}
	}
	return firstErr
}

func (r *benchRun) freeGroups() {
	for _, g := range r.groups {
		if g.topo != nil {
			g.topo.Free()
		}
		if g.comm != nil {
			_ = g.comm.Free()
		}
	}
	r.groups = nil
}

// runStep performs one step on this rank. A failure ends the whole job
// (ranks outside the step cannot be asked to agree on it).
func (r *benchRun) runStep(s benchStep) {
	switch s.kind {
	case stepLimit:
		r.measureLimit(s)
	case stepMode:
		r.measureMode(s)
	case stepPeer:
		r.measurePeer(s)
	case stepWarmUp:
		r.warmUp()
	case stepSynthetic:
		r.measureSynthetic(s)
	}
}

// setCache starts a measurement: all ranks meet, every node's leader drops
// its page cache for a cold one, and all meet again, so nothing of the
// previous measurement is still running and no node starts early.
func (r *benchRun) setCache(cache string) {
	t := r.job.Topo
	if err := t.World.BarrierSleeping(cli.WaitPause); err != nil {
		r.job.Fail(fmt.Errorf("bench: %w", err))
	}
	if cache == "cold" && r.canDrop && t.Leader() {
		if err := bench.DropCaches(); err != nil {
			r.job.Fail(err)
		}
	}
	if err := t.World.BarrierSleeping(cli.WaitPause); err != nil {
		r.job.Fail(fmt.Errorf("bench: %w", err))
	}
}

// measureLimit reads the data file with every limit probe, each from the
// cache state of the step, through every host's client at once (one share
// each; one host on a single machine), and keeps the fastest as the
// round's limit: several hosts' clients together reach more of a parallel
// file system than one. For the warm state an untimed read first brings
// the file into the page cache (also when no probe is measured: warm
// contenders need it). Collective.
func (r *benchRun) measureLimit(s benchStep) {
	if s.cache == "warm" {
		r.warmUp()
	}
	for _, p := range r.cfg.probes {
		r.setCache(s.cache)
		if p.Direct && r.noDirect {
			continue
		}
		got, unsupported := r.probeHosts(p)
		if unsupported != nil {
			r.noDirect = true
			if r.job.Topo.Rank == 0 {
				r.progress.clear()
				fmt.Fprintf(os.Stderr, "lmdbio-bench bench: %s: no O_DIRECT limit probes: %v\n", r.cfg.path, unsupported)
			}
			continue
		}
		if r.job.Topo.Rank != 0 {
			continue
		}
		key := benchLimitKey{s.round, s.cache}
		r.limits[key] = max(r.limits[key], got.MBPerS())
		r.out.limit(bench.Limit{Type: bench.TypeLimit, Round: s.round, Cache: s.cache, Probe: p.String(), Direct: p.Direct,
			Streams: p.Streams, Depth: p.Depth, RequestBytes: int64(got.Probe.Request), Hosts: r.hosts,
			Bytes: got.Bytes, Seconds: got.Seconds, MBPerS: got.MBPerS()})
	}
}

// probeHosts reads the data file with probe p, every host's lead rank its
// share at once, and returns what they read together (on rank 0): every
// share's bytes over the slowest host's time. A file system that refuses
// O_DIRECT on some host gives that error on every rank; any other failure
// ends the job. Collective.
func (r *benchRun) probeHosts(p bench.Probe) (bench.LimitSample, error) {
	var got bench.LimitSample
	var err error
	if r.hostLead {
		got, err = bench.SequentialReadShare(r.dataPath, p, r.host, r.hosts)
	}
	refused := int64(0)
	if p.Direct && errors.Is(err, reader.ErrDirectUnsupported) {
		refused = 1
	} else if err != nil {
		r.job.Fail(cli.WithPath(r.cfg.path, err))
	}
	bytes := make([]int64, 1)
	slowest := make([]int64, 2)
	w := r.job.Topo.World
	if e := w.AllreduceInt64([]int64{got.Bytes}, bytes, mpi.Sum); e != nil {
		r.job.Fail(fmt.Errorf("bench: %w", e))
	}
	if e := w.AllreduceInt64([]int64{int64(got.Seconds * 1e9), refused}, slowest, mpi.Max); e != nil {
		r.job.Fail(fmt.Errorf("bench: %w", e))
	}
	if slowest[1] != 0 {
		return bench.LimitSample{}, cmp.Or(err, error(reader.ErrDirectUnsupported))
	}
	return bench.LimitSample{Probe: got.Probe, Bytes: bytes[0], Seconds: float64(slowest[0]) / 1e9}, nil
}

// findHosts numbers the distinct hosts of the job, in the order of their
// lowest ranks, and elects that rank to read the host's share of a limit
// probe. Collective.
func (r *benchRun) findHosts() error {
	t := r.job.Topo
	names, err := t.World.AllgatherBytes([]byte(t.Host))
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	first := map[string]int{}
	for rank, h := range names {
		if _, ok := first[string(h)]; !ok {
			first[string(h)] = len(first)
			if rank == t.Rank {
				r.hostLead = true
			}
		}
	}
	r.hosts, r.host = len(first), first[t.Host]
	return nil
}

// warmUp reads the data file once on every node's leader (untimed), so
// that warm measurements find it in the page cache.
func (r *benchRun) warmUp() {
	r.setCache("warm")
	if r.job.Topo.Leader() {
		if _, err := bench.SequentialRead(r.dataPath, bench.LimitProbes[0]); err != nil {
			r.job.Fail(cli.WithPath(r.cfg.path, err))
		}
	}
}

// fractionOfLimit is mb/s over the round's limit (its fastest probe) in the
// same cache state; 0 when there is none.
func (r *benchRun) fractionOfLimit(round int, cache string, mbps float64) float64 {
	return nan0(bench.Quotient(mbps, r.limits[benchLimitKey{round, cache}]))
}

// check records what a contender delivered and remembers the first
// disagreement; the run goes on so every line is printed, and fails at the
// end with it.
func (r *benchRun) check(d bench.Delivery) {
	if err := r.agree.Check(d); err != nil && r.mismatch == nil {
		r.mismatch = cli.WithPath(r.cfg.path, err)
	}
}
