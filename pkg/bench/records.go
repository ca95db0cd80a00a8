package bench

import "fmt"

// The "type" of every JSON line `lmdbio bench --json` prints.
const (
	TypeResult   = "result"    // one contender (a loader mode) in one measurement
	TypeLimit    = "limit"     // a sequential read of the data file
	TypePeer     = "peer"      // another loader, run as a subprocess
	TypeAUSearch = "au-search" // the most accelerators a workload keeps busy
	TypeSummary  = "summary"   // medians and spreads over rounds
	TypeRatio    = "ratio"     // one contender's median over another's
)

// Result is a "result" line: one loader mode measured once. Times are in
// seconds, rates per second, MB are 10^6 bytes.
type Result struct {
	Type     string `json:"type"`
	Round    int    `json:"round"`
	Mode     string `json:"mode"`
	Ranks    int    `json:"ranks"`
	Nodes    int    `json:"nodes"`
	Cache    string `json:"cache"`
	Consumer string `json:"consumer"`
	Workload string `json:"workload"`
	Batch    int    `json:"batch"`
	Epochs   int    `json:"epochs"`

	Samples         int64   `json:"samples"` // records delivered, all learners and epochs
	Bytes           int64   `json:"bytes"`   // value bytes delivered
	Seconds         float64 `json:"seconds"` // the slowest learner's wall time
	SamplesPerS     float64 `json:"samples_per_s"`
	MBPerS          float64 `json:"mb_per_s"`
	FractionOfLimit float64 `json:"fraction_of_limit"` // mb_per_s over the round's buffered sequential read; 0 if unknown
	// FractionOfBestLimit is mb_per_s over the faster of the round's
	// buffered and O_DIRECT sequential reads; 0 if unknown.
	FractionOfBestLimit float64 `json:"fraction_of_best_limit"`

	FirstBatchMin    float64 `json:"first_batch_s_min"`
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

	AUMin  float64 `json:"au_min"` // with a workload: the least busy learner's utilisation
	AUMean float64 `json:"au_mean"`

	digest uint64 // the sum behind Digest
}

// DigestSum is the digest summed over the samples that made the result.
func (r Result) DigestSum() uint64 { return r.digest }

// Limit is a "limit" line: one sequential read of the data file.
type Limit struct {
	Type    string  `json:"type"`
	Round   int     `json:"round"`
	Cache   string  `json:"cache"`
	Direct  bool    `json:"direct"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	MBPerS  float64 `json:"mb_per_s"`
}

// Peer is a "peer" line: another loader over the same dataset.
type Peer struct {
	Type            string  `json:"type"`
	Round           int     `json:"round"`
	Peer            string  `json:"peer"`
	Ranks           int     `json:"ranks"` // processes, or DataLoader workers for a single-process peer
	Cache           string  `json:"cache"`
	Samples         int64   `json:"samples"`
	Bytes           int64   `json:"bytes"`
	Seconds         float64 `json:"seconds"` // the slowest process's epoch time, as the peer measured it
	SamplesPerS     float64 `json:"samples_per_s"`
	MBPerS          float64 `json:"mb_per_s"`
	FractionOfLimit float64 `json:"fraction_of_limit"`
	FirstBatchMax   float64 `json:"first_batch_s_max"`
	// FractionOfBestLimit: as in Result.
	FractionOfBestLimit float64 `json:"fraction_of_best_limit"`
	Digest              string  `json:"digest"`

	Processes      int     `json:"processes"`
	Workers        int     `json:"workers"`         // DataLoader workers per process (0: none)
	StartupMax     float64 `json:"startup_s_max"`   // script start (imports) to first batch, slowest process
	IndexMax       float64 `json:"index_s_max"`     // listing the keys before the epoch (torch), not in seconds
	TotalMax       float64 `json:"total_s_max"`     // script start to result, slowest process
	ProcessSeconds float64 `json:"process_seconds"` // subprocess wall time, interpreter start to exit
	ReadBytes      int64   `json:"read_bytes"`      // bytes fetched from storage by the peer's processes (rusage blocks in)
	RSSMaxBytes    int64   `json:"rss_max_bytes"`   // largest single process of the peer
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
	Cache                  string  `json:"cache"`
	Ranks                  int     `json:"ranks"`  // learners in the passing run
	AUMin                  float64 `json:"au_min"` // of the passing run (median over rounds)
}

// Summary is a "summary" line: one contender's throughput over the rounds.
type Summary struct {
	Type         string  `json:"type"`
	Name         string  `json:"name"` // mode, peer, "limit" or "limit-direct"
	Kind         string  `json:"kind"` // "mode", "peer" or "limit"
	Ranks        int     `json:"ranks"`
	Cache        string  `json:"cache"`
	MedianMBPerS float64 `json:"median_mb_per_s"`
	MinMBPerS    float64 `json:"min_mb_per_s"`
	MaxMBPerS    float64 `json:"max_mb_per_s"`
	Rounds       int     `json:"rounds"`

	MedianSamplesPerS     float64 `json:"median_samples_per_s"`
	MedianFractionOfLimit float64 `json:"median_fraction_of_limit"`
	MedianFractionOfBest  float64 `json:"median_fraction_of_best_limit"`
	MedianFirstBatchMax   float64 `json:"median_first_batch_s_max"`
	MedianStall           float64 `json:"median_stall_s"`
}

// Ratio is a "ratio" line: the median throughput of one contender over
// another's, at the same rank count and cache.
type Ratio struct {
	Type  string  `json:"type"`
	Name  string  `json:"name"` // "default/lmdb", "default/torch-readahead", "default/limit"
	Of    string  `json:"of"`
	To    string  `json:"to"`
	Ranks int     `json:"ranks"`
	Cache string  `json:"cache"`
	Ratio float64 `json:"ratio"`
}

// FormatDigest prints a digest sum as lmdbio digest does: 16 hex digits.
func FormatDigest(d uint64) string { return fmt.Sprintf("%016x", d) }
