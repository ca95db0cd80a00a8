package schema

// The lines of lmdbio-bench model, which the report reads.

// Residual is a "residual" line of lmdbio-bench model fit --json: one
// run's measured and predicted time, fitted on or held out.
type Residual struct {
	Type         string  `json:"type"`
	Set          string  `json:"set"`                // "fit" or "held-out"
	HoldOut      string  `json:"hold_out,omitempty"` // the fit's --hold-out selectors, joined by "; "
	Source       string  `json:"source"`
	Contender    string  `json:"contender"`
	Nodes        int     `json:"nodes"`
	RanksPerNode int     `json:"ranks_per_node"`
	Consumer     string  `json:"consumer"`
	Stagger      int     `json:"stagger"`
	Direct       bool    `json:"direct"`
	Measured     float64 `json:"measured_s"`
	Predicted    float64 `json:"predicted_s"`
	Error        float64 `json:"error"` // (predicted - measured) / measured
}

// Fit is the "fit" summary line of lmdbio-bench model fit --json.
type Fit struct {
	Type          string             `json:"type"`
	Observations  int                `json:"observations"`
	Skipped       map[string]int     `json:"skipped"`
	Free          []string           `json:"free"`
	StdErr        map[string]float64 `json:"std_err"` // relative; -1 when the runs do not constrain it
	RMS           float64            `json:"rms"`
	HoldOut       []string           `json:"hold_out"`
	HeldOut       int                `json:"held_out"`
	HeldOutWithin int                `json:"held_out_within_15_percent"`
	HeldOutWorst  float64            `json:"held_out_worst_error"`
	HeldOutRMS    float64            `json:"held_out_rms"`
	// Configurations held out, and those whose median run is predicted
	// within 15%.
	HeldOutConfigs       int  `json:"held_out_configurations"`
	HeldOutConfigsWithin int  `json:"held_out_configurations_within_15_percent"`
	Synthetic            bool `json:"synthetic"` // some runs were made up by model synth
}

// Prediction is a "prediction" line of lmdbio-bench model predict --json.
type Prediction struct {
	Type         string  `json:"type"`
	Contender    string  `json:"contender"`
	Nodes        int     `json:"nodes"`
	RanksPerNode int     `json:"ranks_per_node"`
	Seconds      float64 `json:"seconds"`
	MBPerS       float64 `json:"mb_per_s"`
	FirstEpoch   float64 `json:"first_epoch_s"`
	LaterEpoch   float64 `json:"later_epoch_s"`
	Bottleneck   string  `json:"bottleneck"`
	Streams      float64 `json:"streams"`
	RequestBytes float64 `json:"request_bytes"`
	StorageBytes float64 `json:"storage_bytes"`
	StorageMBPS  float64 `json:"storage_mb_per_s"`
}
