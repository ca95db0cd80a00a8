package schema

// The "type" of every JSON line `lmdbio-bench bench --json` prints.
const (
	TypeResult   = "result"    // one contender (a loader mode) in one measurement
	TypeLimit    = "limit"     // a sequential read of the data file
	TypePeer     = "peer"      // another loader, run as a subprocess
	TypeAUSearch = "au-search" // the most accelerators a workload keeps busy
	TypeSummary  = "summary"   // medians and spreads over rounds
	TypeRatio    = "ratio"     // one contender's median over another's
	TypeEpoch    = "epoch"     // one epoch of a result or a peer

	// lmdbio-bench shuffle-quality's lines.
	TypeShuffleQuality = "shuffle-quality" // one shuffle's quality (ShuffleQuality)
	// lmdbio-bench model's lines.
	TypeResidual   = "residual"   // a run's measured and predicted time (Residual)
	TypeFit        = "fit"        // the fit's summary (Fit)
	TypePrediction = "prediction" // a predicted configuration (Prediction)
)

// Result is a "result" line: one loader mode measured once. Times are in
// seconds, rates per second, MB are 10^6 bytes.
//
// Every contender's window runs from the start of its process to its last
// batch (start-up included), and start-up is also given on its own, so a
// result and a peer line with the same consumer measured the same work over
// the same window.
type Result struct {
	Type  string `json:"type"`
	Round int    `json:"round"`
	Mode  string `json:"mode"`
	// Contender names what was measured: the mode, with the shuffle, the
	// locality and the stagger when they are not the defaults
	// ("default/global/locality-off", "default/stagger-2").
	Contender    string `json:"contender"`
	Shuffle      string `json:"shuffle"`  // none, local, chunk or global
	Locality     string `json:"locality"` // on or off (matters for chunk and global)
	Seed         uint64 `json:"seed"`
	Format       string `json:"format"`     // lmdb or hdf5
	FileBytes    int64  `json:"file_bytes"` // size of the data file
	Ranks        int    `json:"ranks"`
	Nodes        int    `json:"nodes"`
	RanksPerNode int    `json:"ranks_per_node"` // the most learners on one node
	Cache        string `json:"cache"`
	Consumer     string `json:"consumer"` // what learners did with every record: touch or sha256 (or none)
	Workload     string `json:"workload"`
	Batch        int    `json:"batch"`
	Epochs       int    `json:"epochs"`
	// ComputePerBatch is the workload's emulated accelerator time per batch.
	ComputePerBatch float64 `json:"compute_s_per_batch"`

	// The loader's settings, for models fitted to these lines.
	Direct       bool  `json:"direct"`
	Stagger      int   `json:"stagger"`
	IODepth      int   `json:"io_depth"`
	WindowBytes  int64 `json:"window_bytes"`
	MaxSpanBytes int64 `json:"max_span_bytes"`

	Samples         int64   `json:"samples"`     // records delivered, all learners and epochs
	BatchesMax      int     `json:"batches_max"` // batches of the learner with the most
	Bytes           int64   `json:"bytes"`       // value bytes delivered
	Seconds         float64 `json:"seconds"`     // the slowest learner's window: program start to last batch
	SamplesPerS     float64 `json:"samples_per_s"`
	MBPerS          float64 `json:"mb_per_s"`
	FractionOfLimit float64 `json:"fraction_of_limit"` // mb_per_s over the round's best sequential read (Limit); 0 if unknown

	StartupS        float64 `json:"startup_s"`         // program start to Open returned, slowest learner
	ProcessStartupS float64 `json:"process_startup_s"` // process start to the program's start (exec, linking, runtime): outside the window
	CloseS          float64 `json:"close_s"`           // Close, after the window, slowest learner

	FirstBatchMin    float64 `json:"first_batch_s_min"` // program start to first batch
	FirstBatchMedian float64 `json:"first_batch_s_median"`
	FirstBatchMax    float64 `json:"first_batch_s_max"`
	StallS           float64 `json:"stall_s"`      // the most any learner waited inside Next
	StallMean        float64 `json:"stall_s_mean"` // mean over learners

	ReadBytes   int64  `json:"read_bytes"`   // bytes fetched from storage, all ranks (/proc/self/io)
	ReadCalls   int64  `json:"read_calls"`   // read system calls, all ranks (/proc/self/io syscr)
	LoaderReads int64  `json:"loader_reads"` // pread calls the node readers made (0 in the mmap modes)
	RSSMaxBytes int64  `json:"rss_max_bytes"`
	ShmBytes    int64  `json:"shm_bytes"` // shared-memory arenas, all nodes
	Digest      string `json:"digest"`    // 16 hex digits with consumer sha256, else ""
	// NodeCacheBytes is the node caches' shared memory, all nodes.
	NodeCacheBytes int64 `json:"node_cache_bytes"`
	// StorageBytes, ExchangeBytes and CacheHits add up the epochs' figures
	// (the "epoch" lines have them per epoch).
	StorageBytes  int64 `json:"storage_bytes"`
	ExchangeBytes int64 `json:"exchange_bytes"`
	CacheHits     int64 `json:"cache_hits"`

	AUMin  float64 `json:"au_min"` // with a workload: the least busy learner's utilisation
	AUMean float64 `json:"au_mean"`

	// Synthetic marks a line a model made from known parameters
	// (lmdbio-bench model synth), never measured: the report refuses it.
	// Measured lines leave it out.
	Synthetic bool `json:"synthetic,omitempty"`
}

// Limit is a "limit" line: one probe of the storage's sequential
// throughput, reading the whole data file the way a tuned reader would
// (Probe). The limit of a round is its fastest probe in each cache state.
type Limit struct {
	Type         string  `json:"type"`
	Round        int     `json:"round"`
	Cache        string  `json:"cache"`
	Probe        string  `json:"probe"` // Probe.String()
	Direct       bool    `json:"direct"`
	Streams      int     `json:"streams"`
	Depth        int     `json:"depth"`
	RequestBytes int64   `json:"request_bytes"`
	Hosts        int     `json:"hosts"` // clients that read a share each, at once
	Bytes        int64   `json:"bytes"`
	Seconds      float64 `json:"seconds"`
	MBPerS       float64 `json:"mb_per_s"`
}

// Peer is a "peer" line: another loader over the same dataset, timed like
// a Result: from its process start to its last batch.
type Peer struct {
	Type            string  `json:"type"`
	Round           int     `json:"round"`
	Peer            string  `json:"peer"`
	Epochs          int     `json:"epochs"`
	Ranks           int     `json:"ranks"` // processes, or DataLoader workers for a single-process peer
	Nodes           int     `json:"nodes"` // nodes the processes ran on
	Cache           string  `json:"cache"`
	Consumer        string  `json:"consumer"`
	Samples         int64   `json:"samples"`
	Bytes           int64   `json:"bytes"`
	Seconds         float64 `json:"seconds"` // the slowest process's window: process start to last batch
	SamplesPerS     float64 `json:"samples_per_s"`
	MBPerS          float64 `json:"mb_per_s"`
	FractionOfLimit float64 `json:"fraction_of_limit"`
	FirstBatchMax   float64 `json:"first_batch_s_max"` // process start to first batch, slowest process
	Digest          string  `json:"digest"`            // consumer sha256 only

	Processes         int     `json:"processes"`
	Workers           int     `json:"workers"`               // DataLoader workers per process (0: none)
	StartupMax        float64 `json:"startup_s_max"`         // process start to the start of the epoch loop, slowest process
	ProcessStartupMax float64 `json:"process_startup_s_max"` // process start to the script's own start (interpreter, imports)
	LoopMax           float64 `json:"loop_s_max"`            // the epoch loop alone, slowest process
	IndexMax          float64 `json:"index_s_max"`           // listing the keys before the epoch (torch), part of start-up
	TotalMax          float64 `json:"total_s_max"`           // process start to result, slowest process
	ProcessSeconds    float64 `json:"process_seconds"`       // subprocess wall time, interpreter start to exit
	ReadBytes         int64   `json:"read_bytes"`            // bytes fetched from storage by the peer's processes (rusage blocks in)
	RSSMaxBytes       int64   `json:"rss_max_bytes"`         // largest single process of the peer
	StorageBytes      int64   `json:"storage_bytes"`         // the epochs' storage bytes as the peer counted them (0 if it did not)
}

// Epoch is an "epoch" line: one epoch of one contender in one measurement,
// a loader mode (Kind "mode", with a "result" line for the whole run) or a
// peer (Kind "peer", with a "peer" line). Times in seconds, MB = 10^6
// bytes. Peers have neither exchange nor node cache (0), and count storage
// bytes as the kernel's block input of their processes, which file systems
// in user space may not report.
type Epoch struct {
	Type         string `json:"type"`
	Kind         string `json:"kind"` // mode or peer
	Round        int    `json:"round"`
	Contender    string `json:"contender"` // Result.Contender, or the peer's name
	Mode         string `json:"mode"`      // "" for a peer
	Peer         string `json:"peer"`      // "" for a mode
	Shuffle      string `json:"shuffle"`
	Locality     string `json:"locality"`
	Format       string `json:"format"`
	Ranks        int    `json:"ranks"`
	Nodes        int    `json:"nodes"`
	RanksPerNode int    `json:"ranks_per_node"`
	Cache        string `json:"cache"` // the page cache at the start: cold or warm
	Consumer     string `json:"consumer"`
	Epochs       int    `json:"epochs"` // epochs of the measurement
	Cores        int    `json:"cores"`  // CPUs the node reader's decoders could use
	EpochFigures
}

// AUSearch is an "au-search" line: the most emulated accelerators per node
// the workload keeps at or above its AU threshold (median over rounds).
type AUSearch struct {
	Type                   string  `json:"type"`
	Workload               string  `json:"workload"`
	Threshold              float64 `json:"threshold"`
	MaxAcceleratorsPerNode int     `json:"max_accelerators_per_node"` // 0: not even one
	Nodes                  int     `json:"nodes"`
	Mode                   string  `json:"mode"`
	Consumer               string  `json:"consumer"`
	Cache                  string  `json:"cache"`
	Ranks                  int     `json:"ranks"`  // learners in the passing run
	AUMin                  float64 `json:"au_min"` // of the passing run (median over rounds)
}

// Summary is a "summary" line: one contender's throughput over the rounds.
type Summary struct {
	Type         string  `json:"type"`
	Name         string  `json:"name"` // mode, peer, or the limit probe
	Kind         string  `json:"kind"` // "mode", "peer" or "limit"
	Ranks        int     `json:"ranks"`
	Cache        string  `json:"cache"`
	Consumer     string  `json:"consumer"` // "" for the limit
	MedianMBPerS float64 `json:"median_mb_per_s"`
	MinMBPerS    float64 `json:"min_mb_per_s"`
	MaxMBPerS    float64 `json:"max_mb_per_s"`
	Rounds       int     `json:"rounds"`

	MedianSamplesPerS     float64 `json:"median_samples_per_s"`
	MedianFractionOfLimit float64 `json:"median_fraction_of_limit"`
	MedianFirstBatchMax   float64 `json:"median_first_batch_s_max"`
	MedianStartup         float64 `json:"median_startup_s"`
	MedianStall           float64 `json:"median_stall_s"`

	// LimitMBPerS is the median over rounds of the best limit probe in
	// this cache state; AboveLimit says the contender's median exceeds it
	// by more than NoiseBand (a fraction): something is wrong with the
	// limit or with the contender's accounting (see LimitCheck).
	LimitMBPerS float64 `json:"limit_mb_per_s"`
	NoiseBand   float64 `json:"noise_band"`
	AboveLimit  bool    `json:"above_limit"`
}

// Ratio is a "ratio" line: the median throughput of one contender over
// another's that did the same work: the same consumer at the same rank
// count and cache state, over the same window. To "limit" compares with the
// storage's best sequential read.
type Ratio struct {
	Type     string  `json:"type"`
	Name     string  `json:"name"` // "default/lmdb", "default/torch-readahead", "default/limit"
	Of       string  `json:"of"`
	To       string  `json:"to"`
	Ranks    int     `json:"ranks"`
	Cache    string  `json:"cache"`
	Consumer string  `json:"consumer"`
	Ratio    float64 `json:"ratio"` // of the medians over rounds
	// Pairs rounds measured both; Paired is the geometric mean of their
	// per-round ratios, PairedLow and PairedHigh its 95% interval (see
	// stats.Paired).
	Pairs      int     `json:"pairs,omitempty"`
	Paired     float64 `json:"paired,omitempty"`
	PairedLow  float64 `json:"paired_low,omitempty"`
	PairedHigh float64 `json:"paired_high,omitempty"`
}

// EpochFigures are the measured fields of an "epoch" line: one epoch of
// one contender, all ranks together. The caller fills in what was measured
// (contender, round, ranks...).
type EpochFigures struct {
	Epoch   int     `json:"epoch"`
	Records int64   `json:"records"` // delivered to all learners
	Bytes   int64   `json:"bytes"`   // value bytes delivered
	Seconds float64 `json:"seconds"` // the epoch's share of the window (see SummarizeEpochs)
	EndS    float64 `json:"end_s"`   // program start to the epoch's last batch, slowest learner
	MBPerS  float64 `json:"mb_per_s"`

	StorageBytes      int64   `json:"storage_bytes"`      // read from the dataset file, all node readers (or as StorageCountedBy says)
	StorageCountedBy  string  `json:"storage_counted_by"` // "loader" (its node readers' reads) or "kernel" (block input of the processes)
	ExchangeBytes     int64   `json:"exchange_bytes"`     // values sent between nodes
	CacheHits         int64   `json:"cache_hits"`         // records served from a node cache filled in an earlier window
	CacheHitRate      float64 `json:"cache_hit_rate"`     // cache_hits / records
	FileBytes         int64   `json:"file_bytes"`         // size of the data file
	ReadAmplification float64 `json:"read_amplification"` // storage_bytes / file_bytes

	StallS    float64 `json:"stall_s"`      // the most any learner waited for data in the epoch
	StallMean float64 `json:"stall_s_mean"` // mean over learners

	DecodedBytes  int64   `json:"decoded_bytes"`   // HDF5 chunks decoded, all node readers
	DecodeSeconds float64 `json:"decode_seconds"`  // decoder time, summed over decoders
	DecodeMBPerS  float64 `json:"decode_mb_per_s"` // decoded bytes per decoder-second (one core's rate)
}
