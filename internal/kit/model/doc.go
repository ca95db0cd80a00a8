// Package model predicts how long a data loader takes to deliver a dataset
// to N nodes × R learners per node, for the Caffe-MPI baseline, each of
// LMDBIO's stacked optimisations as lmdbio implements them, and the
// shuffling cache with its exchange, and fits the model's parameters to
// measured runs by least squares.
//
// # Overview
//
// Predict turns Params (the storage, the nodes, the network) and a Config
// (contender, nodes, learners per node, Workload, Loader settings) into a
// Prediction: seconds from the learners' process start to the last batch,
// MB/s delivered, and which stage bounds the run. Fit adjusts the free
// parameters so that predicted times match observed ones; observations come
// from lmdbio-bench bench --json "result" lines (ReadObservations) or from known
// parameters (Synthesize, for testing the fit). HoldOut and Selector split
// observations into those fitted on and those predicted, to validate.
// Lustre returns a parameter set from published Lustre figures, with its
// sources and assumptions; Sweep and SweepFigures predict and plot a range
// of node counts.
//
// # The model
//
// An epoch is a pipeline of stages that overlap; its time is the p-norm
// (p = 4) of the stage times, a smooth maximum:
//
//   - storage: the bytes read from storage over the rate storage delivers
//     them at. Each request costs a server its overhead o, grown by the
//     contention curve to o·(1 + γ·max(0, c/S − 1)) for c concurrent
//     streams on S servers, plus its transfer q/b. The rate is the smooth
//     minimum of three bounds: what the streams ask for, c·k·q/(L + service)
//     with k requests in flight and latency L; what the servers serve,
//     S·q/service; what the reading nodes' clients take, a·NodeRead.
//   - reader: a node reader's serial work: copying its node's share into
//     shared memory, and, without an index, stepping the cursor over every
//     record of the dataset.
//   - learner: one learner's consumer work plus its emulated compute, in
//     series as lmdbio-bench bench runs them.
//   - cores: all of a node's CPU work over its cores (and, for nodes
//     emulated on one machine, all nodes' work over the machine's cores).
//   - exchange (shuffling cache only): the cross-node share of a node's
//     bytes over its network, plus one message per other node per window.
//
// Before the epochs comes the start-up: a fixed part (launch, the
// collective open) plus every learner process's own start-up CPU, spread
// over the cores its node gives the processes (at most one each); for
// nodes emulated on one machine, all nodes' processes share the machine's
// cores, so the start-up grows with the number of nodes there and not on
// real nodes.
//
// The contenders differ in how they meet storage:
//
//   - caffe: N·R streams (every rank faults its own pages through its
//     node's client), readahead-sized requests, each rank walks the cursor
//     over every record (CPU), and each node's walk faults in WalkFraction of
//     the other nodes' bytes: storage reads D·(1 + w·(N − 1)).
//   - lmm: N streams (one reader per node), the same faults and walk, plus
//     a copy into shared memory.
//   - lmm+dio: explicit reads of each batch's byte range, split by the
//     client into readahead-sized (buffered) or MaxRequest-sized (direct)
//     requests.
//   - lmm+dio+prov: no cursor walk: storage reads the dataset once.
//   - lmm+dio+prov+coal: windows read in spans of up to MaxSpan with
//     IODepth reads in flight.
//   - default (+stag): only Stagger node readers on storage at once.
//   - exchange: the default's reads in the first epoch, then only the
//     exchange; Locality is the share of cross-node samples that
//     locality-aware assignment keeps local.
//
// # Invariants
//
//   - Predict is a pure function of its inputs; Fit is deterministic for a
//     given seed.
//   - Fit works on the logarithms of the parameters, so fitted rates and
//     times stay positive, and on relative errors, so a 10 s run and a 1 s
//     run weigh the same.
//   - Layout parameters (servers, cores, shared cores) and fractions are
//     never fitted; parameters no observation depends on are left out of
//     the fit and keep their given values.
//   - The model knows cold caches only: warm-cache results are skipped.
package model
