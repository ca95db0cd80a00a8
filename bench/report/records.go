package main

// Result is one "result" line: one loader mode measured once (one round) at
// one rank count and cache state. Mode is the contender's name: the line's
// "contender" where it has one (a mode with its shuffle, locality or
// stagger, "default/global/locality-off"), else its "mode".
type Result struct {
	Storage          string  `json:"storage"`
	Round            int     `json:"round"`
	Mode             string  `json:"mode"`
	Contender        string  `json:"contender"`
	Shuffle          string  `json:"shuffle"`
	Epochs           int     `json:"epochs"`
	Format           string  `json:"format"`
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
	// Run is the input the line came from: with Round, which contenders
	// were measured side by side.
	Run string `json:"-"`
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
	Hosts   int     `json:"hosts"` // clients that read a share each at once; older runs: one
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	MBPerS  float64 `json:"mb_per_s"`
	Run     string  `json:"-"` // as Result.Run
}

// Peer is one "peer" line: a loader users run today, measured in the same
// run on the same dataset.
type Peer struct {
	Storage         string  `json:"storage"`
	Round           int     `json:"round"`
	Peer            string  `json:"peer"`
	Epochs          int     `json:"epochs"` // older runs read one and did not say
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
	Run             string  `json:"-"` // as Result.Run
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

// Epoch is one "epoch" line: one epoch of a mode (Kind "mode") or of a
// peer (Kind "peer") in one measurement.
type Epoch struct {
	Storage           string  `json:"storage"`
	Kind              string  `json:"kind"`
	Round             int     `json:"round"`
	Contender         string  `json:"contender"`
	Shuffle           string  `json:"shuffle"`
	Format            string  `json:"format"`
	Ranks             int     `json:"ranks"`
	Nodes             int     `json:"nodes"`
	Cache             string  `json:"cache"`
	Consumer          string  `json:"consumer"`
	Epochs            int     `json:"epochs"`
	Cores             int     `json:"cores"`
	Epoch             int     `json:"epoch"`
	Records           int64   `json:"records"`
	Bytes             int64   `json:"bytes"`
	Seconds           float64 `json:"seconds"`
	MBPerS            float64 `json:"mb_per_s"`
	StorageBytes      int64   `json:"storage_bytes"`
	StorageCountedBy  string  `json:"storage_counted_by"`
	ExchangeBytes     int64   `json:"exchange_bytes"`
	CacheHitRate      float64 `json:"cache_hit_rate"`
	FileBytes         int64   `json:"file_bytes"`
	ReadAmplification float64 `json:"read_amplification"`
	StallS            float64 `json:"stall_s"`
	DecodedBytes      int64   `json:"decoded_bytes"`
	DecodeSeconds     float64 `json:"decode_seconds"`
	DecodeMBPerS      float64 `json:"decode_mb_per_s"`
}

// Quality is one "shuffle-quality" line of lmdbio shuffle-quality.
type Quality struct {
	Shuffle            string  `json:"shuffle"`
	Locality           string  `json:"locality"`
	Records            int     `json:"records"`
	Nodes              int     `json:"nodes"`
	Learners           int     `json:"learners"`
	GlobalBatch        int     `json:"global_batch"`
	Epochs             int     `json:"epochs"`
	SameBatch          float64 `json:"same_batch_adjacent"`
	SameBatchIdeal     float64 `json:"same_batch_ideal"`
	Displacement       float64 `json:"mean_displacement"`
	DisplacementIdeal  float64 `json:"displacement_ideal"`
	SameBatchNextEpoch float64 `json:"same_batch_next_epoch"`
	CrossNode          float64 `json:"cross_node"`
}

// Residual is one "residual" line of lmdbio model fit --json: a run's
// measured and predicted time, fitted on or held out.
type Residual struct {
	Set          string  `json:"set"`
	HoldOut      string  `json:"hold_out"` // the fit's hold-out selectors
	Source       string  `json:"source"`   // FILE:LINE of the bench line
	Stagger      int     `json:"stagger"`
	Contender    string  `json:"contender"`
	Nodes        int     `json:"nodes"`
	RanksPerNode int     `json:"ranks_per_node"`
	Consumer     string  `json:"consumer"`
	Measured     float64 `json:"measured_s"`
	Predicted    float64 `json:"predicted_s"`
	Error        float64 `json:"error"`
}

// Fit is the "fit" line of lmdbio model fit --json.
type Fit struct {
	Observations  int      `json:"observations"`
	Free          []string `json:"free"`
	RMS           float64  `json:"rms"`
	HoldOut       []string `json:"hold_out"`
	HeldOut       int      `json:"held_out"`
	HeldOutWithin int      `json:"held_out_within_15_percent"`
	// HeldOutConfigs are the configurations held out; the median run of
	// HeldOutConfigsWithin of them was predicted within 15%.
	HeldOutConfigs       int     `json:"held_out_configurations"`
	HeldOutConfigsWithin int     `json:"held_out_configurations_within_15_percent"`
	HeldOutWorst         float64 `json:"held_out_worst_error"`
	Synthetic            bool    `json:"synthetic"`
}

// Prediction is one "prediction" line of lmdbio model predict --json.
type Prediction struct {
	Contender    string  `json:"contender"`
	Nodes        int     `json:"nodes"`
	RanksPerNode int     `json:"ranks_per_node"`
	MBPerS       float64 `json:"mb_per_s"`
	Bottleneck   string  `json:"bottleneck"`
}

// Dataset is everything read from the inputs, in input order.
type Dataset struct {
	Results     []Result
	Limits      []Limit
	Peers       []Peer
	AUSearches  []AUSearch
	Machines    []Machine
	Epochs      []Epoch
	Qualities   []Quality
	Residuals   []Residual
	Fits        []Fit
	Predictions []Prediction
	// Inputs names each input and its label, for the report's header.
	Inputs []string
	// Notes say how lines from older runs were read.
	Notes []string
}
