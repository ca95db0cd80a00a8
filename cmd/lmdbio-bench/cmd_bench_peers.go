package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/cli"
	"github.com/lmdbio/lmdbio/internal/kit/bench"
	"github.com/lmdbio/lmdbio/internal/source"
	"github.com/lmdbio/lmdbio/pkg/sampler"
)

// benchPeerNames are the other loaders bench can run beside lmdbio's modes.
var benchPeerNames = []string{"torch-readahead", "torch-noreadahead", "torch-ddp", "caffe", "torch-lmdbio",
	"torch-h5py", "torch-h5py-noshuffle"}

// benchPeerScript is the script in the peers directory that runs peer p.
func benchPeerScript(p string) string {
	switch p {
	case "caffe":
		return "caffe_lmdb.py"
	case "torch-h5py", "torch-h5py-noshuffle":
		return "torch_h5py.py"
	case "torch-lmdbio":
		return "torch_lmdbio.py"
	}
	return "torch_lmdb.py"
}

// benchPeerFormat is the format of the datasets peer p reads.
func benchPeerFormat(p string) source.Format {
	if benchPeerScript(p) == "torch_h5py.py" {
		return source.HDF5
	}
	return source.LMDB
}

// benchPeerEpochs reports whether peer p reads several epochs (--epochs).
func benchPeerEpochs(p string) bool { return p != "caffe" && p != "torch-lmdbio" }

// checkPeers refuses peers that cannot read the dataset's format or the
// run's epochs: they would not do the contenders' work.
func checkPeers(peers []string, format source.Format, epochs int) error {
	for _, p := range peers {
		if f := benchPeerFormat(p); f != format {
			return cli.Usagef("--peers %s reads %s files; the dataset is %s", p, f, format)
		}
		if epochs > 1 && !benchPeerEpochs(p) {
			return cli.Usagef("--peers %s reads one epoch; leave it out with --epochs %d", p, epochs)
		}
	}
	return nil
}

// benchPeerPerRank reports whether a peer runs one process per rank (as
// Caffe-MPI and PyTorch DDP jobs do), measured at every rank count, rather
// than one process.
func benchPeerPerRank(p string) bool { return p == "caffe" || p == "torch-ddp" }

// peerRun is one peer process's report and what the kernel says it did.
type peerRun struct {
	Line      bench.PeerLine `json:"line"`
	Wall      float64        `json:"wall_s"`     // interpreter start to exit
	ReadBytes int64          `json:"read_bytes"` // fetched from storage, with its children
	RSS       int64          `json:"rss_bytes"`  // largest of it and its children
}

// peerArgs is the command line of peer p with consumer c, for rank of world
// when it runs per rank.
func (r *benchRun) peerArgs(p string, c bench.ConsumerKind, rank, world int) []string {
	args := []string{filepath.Join(r.cfg.peersDir, benchPeerScript(p))}
	switch p {
	case "caffe":
		args = append(args, "--rank", strconv.Itoa(rank), "--world", strconv.Itoa(world))
	case "torch-readahead", "torch-noreadahead":
		ra := "on"
		if p == "torch-noreadahead" {
			ra = "off"
		}
		args = append(args, "--workers", strconv.Itoa(r.cfg.peerWorkers), "--readahead", ra)
	case "torch-ddp":
		args = append(args, "--rank", strconv.Itoa(rank), "--world", strconv.Itoa(world),
			"--workers", strconv.Itoa(r.ddpWorkers(world)), "--readahead", "on")
	case "torch-h5py", "torch-h5py-noshuffle":
		shuffle := "on"
		if p == "torch-h5py-noshuffle" {
			shuffle = "off"
		}
		args = append(args, "--workers", strconv.Itoa(r.cfg.peerWorkers), "--shuffle", shuffle)
		if r.cfg.lopt.Dataset != "" {
			args = append(args, "--dataset", r.cfg.lopt.Dataset)
		}
		if r.cfg.lopt.Labels != "" {
			args = append(args, "--labels", r.cfg.lopt.Labels)
		}
	case "torch-lmdbio": // learners through lmdbio run --agent, on as many nodes as the job's ranks
		self, _ := os.Executable()
		nodes, perNode := r.agentLearners()
		// In the file's order, as the default mode it is compared with:
		// the binding's cost, not a shuffle's.
		args = append(args, "--lmdbio", self, "--nodes", strconv.Itoa(nodes), "--learners-per-node", strconv.Itoa(perNode),
			"--shuffle", sampler.None.String())
	}
	if benchPeerEpochs(p) {
		args = append(args, "--epochs", strconv.Itoa(r.cfg.lopt.Epochs))
	}
	return append(args, "--consumer", c.String(), "--batch", strconv.Itoa(r.cfg.lopt.Batch), r.cfg.path)
}

// ddpWorkers is the DataLoader workers of each process of a torch-ddp job
// of world ranks: a node's processes share --peer-workers between them, so
// that a node runs as many workers as the single-process torch peers.
func (r *benchRun) ddpWorkers(world int) int {
	perNode := 1
	if g := r.groups[world]; g != nil && g.topo != nil {
		perNode = max(g.topo.LocalSize, 1)
	}
	return max(1, r.cfg.peerWorkers/perNode)
}

// measurePeer runs a peer from the step's cache state: one process on rank 0,
// or one process on each of the step's ranks at the same time.
func (r *benchRun) measurePeer(s benchStep) {
	r.setCache(s.cache)
	var runs []peerRun
	if benchPeerPerRank(s.peer) {
		g := r.groups[s.ranks]
		if g.topo == nil {
			return
		}
		if err := g.topo.World.BarrierSleeping(cli.WaitPause); err != nil { // start together
			r.job.Fail(fmt.Errorf("bench: %w", err))
		}
		run, err := runPeerProcess(r.cfg.python, r.peerArgs(s.peer, s.consumer, g.topo.Rank, s.ranks))
		if err != nil {
			r.job.Fail(fmt.Errorf("peer %s, rank %d of %d: %w", s.peer, g.topo.Rank, s.ranks, err))
		}
		enc, _ := json.Marshal(run)
		all, err := cli.GatherStrings(g.topo.World, string(enc), 0)
		if err != nil {
			r.job.Fail(fmt.Errorf("bench: %w", err))
		}
		for i, a := range all {
			var pr peerRun
			if err := json.Unmarshal([]byte(a), &pr); err != nil {
				r.job.Fail(fmt.Errorf("bench: rank %d's peer run: %w", i, err))
			}
			runs = append(runs, pr)
		}
	} else if r.job.Topo.Rank == 0 {
		run, err := runPeerProcess(r.cfg.python, r.peerArgs(s.peer, s.consumer, 0, 1))
		if err != nil {
			r.job.Fail(fmt.Errorf("peer %s: %w", s.peer, err))
		}
		runs = []peerRun{run}
	}
	if r.job.Topo.Rank != 0 {
		return
	}
	nodes := 1
	if g := r.groups[s.ranks]; benchPeerPerRank(s.peer) && g.topo != nil {
		nodes = g.topo.Nodes
	}
	p, epochs := r.peerLine(s, nodes, runs)
	r.out.peer(p)
	perNode := (p.Ranks + max(p.Nodes, 1) - 1) / max(p.Nodes, 1)
	for _, f := range epochs {
		r.out.epoch(bench.Epoch{Type: bench.TypeEpoch, Kind: "peer", Round: s.round, Contender: s.peer, Peer: s.peer,
			Shuffle: benchPeerShuffle(s.peer), Format: string(r.cfg.format), Ranks: p.Ranks, Nodes: p.Nodes,
			RanksPerNode: perNode, Cache: s.cache, Consumer: p.Consumer, Epochs: p.Epochs, EpochFigures: f})
	}
}

// agentLearners places the torch-lmdbio peer's learners like the job's ranks.
func (r *benchRun) agentLearners() (nodes, perNode int) {
	t := r.job.Topo
	return t.Nodes, (t.Size + t.Nodes - 1) / t.Nodes
}

// benchPeerShuffle is the order peer p reads in: global (DataLoader's
// shuffle=True), or none (the file's order).
func benchPeerShuffle(p string) string {
	switch p {
	case "caffe", "torch-h5py-noshuffle":
		return "none"
	}
	return "global"
}

// peerLine adds up the processes of one peer measurement, and its epochs.
// Its window is the slowest process's, from its start to its last batch,
// as for the modes.
func (r *benchRun) peerLine(s benchStep, nodes int, runs []peerRun) (bench.Peer, []bench.EpochFigures) {
	lines := make([]bench.PeerLine, len(runs))
	p := bench.Peer{Type: bench.TypePeer, Round: s.round, Peer: s.peer, Ranks: s.ranks, Nodes: nodes, Cache: s.cache,
		Consumer: s.consumer.String(), Processes: len(runs)}
	for i, run := range runs {
		lines[i] = run.Line.FromReady()
		p.ProcessSeconds = max(p.ProcessSeconds, run.Wall)
		p.ReadBytes += run.ReadBytes
		p.RSSMaxBytes = max(p.RSSMaxBytes, run.RSS)
	}
	switch {
	case s.peer == "torch-ddp":
		p.Workers = r.ddpWorkers(s.ranks) // per process
	case s.peer == "torch-lmdbio": // the learners read, through their agents
		nodes, perNode := r.agentLearners()
		p.Workers, p.Ranks, p.Nodes = 0, nodes*perNode, nodes
	case !benchPeerPerRank(s.peer):
		p.Workers = r.cfg.peerWorkers
		p.Ranks = max(r.cfg.peerWorkers, 1) // the processes that read
	}
	t := bench.SumPeers(lines)
	p.Samples, p.Bytes, p.Seconds = t.Records, t.Bytes, t.Seconds
	p.SamplesPerS = bench.Rate(float64(t.Records), t.Seconds)
	p.MBPerS = bench.Rate(float64(t.Bytes), t.Seconds) / 1e6
	p.FractionOfLimit = r.fractionOfLimit(s.round, s.cache, p.MBPerS)
	p.FirstBatchMax, p.StartupMax, p.ProcessStartupMax = t.FirstBatch, t.Startup, t.ProcessStartup
	p.LoopMax, p.IndexMax, p.TotalMax = t.Loop, t.Index, t.Total
	hasDigest := s.consumer == bench.SHA256
	if hasDigest {
		p.Digest = bench.FormatDigest(t.Digest)
	}
	if t.Consumer != s.consumer.String() {
		r.job.Fail(fmt.Errorf("peer %s: ran consumer %q, asked for %s (an old peer script?)", s.peer, t.Consumer, s.consumer))
	}
	p.Epochs = t.EpochCount()
	if want := r.cfg.lopt.Epochs; benchPeerEpochs(s.peer) && p.Epochs != want {
		r.job.Fail(fmt.Errorf("peer %s: read %d epochs, asked for %d (an old peer script?)", s.peer, p.Epochs, want))
	}
	epochs := bench.PeerEpochFigures(t, r.fileBytes)
	for _, e := range epochs {
		p.StorageBytes += e.StorageBytes
	}
	r.check(bench.Delivery{Name: fmt.Sprintf("peer %s on %d ranks (round %d, %s, %s)", s.peer, s.ranks, s.round, s.cache, s.consumer),
		Epochs: p.Epochs, Records: t.Records, Bytes: t.Bytes, Digest: t.Digest, HasDigest: hasDigest})
	return p, epochs
}

// runPeerProcess runs one peer process to its end. Its standard error goes
// to ours; its standard output holds the result line.
func runPeerProcess(python string, args []string) (peerRun, error) {
	var out bytes.Buffer
	cmd := exec.Command(python, args...)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	cmd.Env = cli.WithoutRankEnv(os.Environ())
	start := time.Now()
	err := cmd.Run()
	run := peerRun{Wall: time.Since(start).Seconds()}
	if err != nil {
		return run, fmt.Errorf("%s %s: %w", python, strings.Join(args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.ReadBytes = ru.Inblock * 512 // blocks of 512 bytes, the unit of read_bytes/512
		run.RSS = ru.Maxrss * 1024       // kilobytes
	}
	if run.Line, err = bench.ParsePeerLine(out.Bytes()); err != nil {
		return run, fmt.Errorf("%s %s: %w", python, strings.Join(args, " "), err)
	}
	return run, nil
}
