package main

// Result is one "result" line: one loader mode measured once (one round) at
// one rank count and cache state.
type Result struct {
	Storage          string  `json:"storage"`
	Round            int     `json:"round"`
	Mode             string  `json:"mode"`
	Ranks            int     `json:"ranks"`
	Nodes            int     `json:"nodes"`
	Cache            string  `json:"cache"`
	Consumer         string  `json:"consumer"`
	Workload         string  `json:"workload"`
	Batch            int     `json:"batch"`
	Samples          int64   `json:"samples"`
	Bytes            int64   `json:"bytes"`
	Seconds          float64 `json:"seconds"`
	SamplesPerS      float64 `json:"samples_per_s"`
	MBPerS           float64 `json:"mb_per_s"`
	FractionOfLimit  float64 `json:"fraction_of_limit"`
	StartupS         float64 `json:"startup_s"`
	FirstBatchMin    float64 `json:"first_batch_s_min"`
	FirstBatchMedian float64 `json:"first_batch_s_median"`
	FirstBatchMax    float64 `json:"first_batch_s_max"`
	StallS           float64 `json:"stall_s"`
	StallSMean       float64 `json:"stall_s_mean"`
	ReadBytes        int64   `json:"read_bytes"`
	ReadCalls        int64   `json:"read_calls"`
	RSSMaxBytes      int64   `json:"rss_max_bytes"`
	SHMBytes         int64   `json:"shm_bytes"`
	Digest           string  `json:"digest"`
	AUMin            float64 `json:"au_min"`
	AUMean           float64 `json:"au_mean"`
	// Synthetic marks lines made by a model from known parameters, never
	// measured: the report refuses them.
	Synthetic bool `json:"synthetic"`
}

// IsWorkload reports whether r ran an emulated accelerator workload, whose
// throughput is bounded by the emulated compute rather than by loading.
func (r Result) IsWorkload() bool { return r.Workload != "" && r.Workload != "none" }

// Limit is one "limit" line: one probe of the storage, reading the data
// file front to back as a tuned reader would (buffered or O_DIRECT, several
// streams, several requests in flight). The fastest probe of a round is the
// limit every contender is compared with.
type Limit struct {
	Storage string  `json:"storage"`
	Round   int     `json:"round"`
	Cache   string  `json:"cache"`
	Probe   string  `json:"probe"` // "direct:4x2:16MiB"; older runs had none (see parse.go)
	Direct  bool    `json:"direct"`
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	MBPerS  float64 `json:"mb_per_s"`
}

// Peer is one "peer" line: a loader users run today, measured in the same
// run on the same dataset.
type Peer struct {
	Storage         string  `json:"storage"`
	Round           int     `json:"round"`
	Peer            string  `json:"peer"`
	Ranks           int     `json:"ranks"`
	Cache           string  `json:"cache"`
	Consumer        string  `json:"consumer"` // older runs had none (see parse.go)
	Samples         int64   `json:"samples"`
	Bytes           int64   `json:"bytes"`
	Seconds         float64 `json:"seconds"`
	SamplesPerS     float64 `json:"samples_per_s"`
	MBPerS          float64 `json:"mb_per_s"`
	FractionOfLimit float64 `json:"fraction_of_limit"`
	FirstBatchMax   float64 `json:"first_batch_s_max"`
	StartupMax      float64 `json:"startup_s_max"`
	Digest          string  `json:"digest"`
}

// AUSearch is one "au-search" line: the largest number of emulated
// accelerators per node that kept utilisation at or above Threshold.
type AUSearch struct {
	Storage                string  `json:"storage"`
	Workload               string  `json:"workload"`
	Threshold              float64 `json:"threshold"`
	MaxAcceleratorsPerNode int     `json:"max_accelerators_per_node"` // 0: not even one
	Nodes                  int     `json:"nodes"`
	Mode                   string  `json:"mode"`
	Consumer               string  `json:"consumer"`
	Cache                  string  `json:"cache"`
	Ranks                  int     `json:"ranks"`  // learners in the passing run
	AUMin                  float64 `json:"au_min"` // of the passing run
}

// Machine is one "machine" line, kept as its fields because runs on
// different machines describe themselves differently.
type Machine struct {
	Storage string
	Fields  map[string]any
}

// Dataset is everything read from the inputs, in input order.
type Dataset struct {
	Results    []Result
	Limits     []Limit
	Peers      []Peer
	AUSearches []AUSearch
	Machines   []Machine
	// Inputs names each input and its label, for the report's header.
	Inputs []string
	// Notes say how lines from older runs were read.
	Notes []string
}
