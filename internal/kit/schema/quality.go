package schema

// ShuffleQuality is a "shuffle-quality" line of lmdbio-bench
// shuffle-quality: how far one shuffle's epochs are from an ideal uniform
// permutation, averaged over the epochs. It is computed from the loader's
// own sampler and assignment, without reading any data.
type ShuffleQuality struct {
	Type        string `json:"type"`
	Shuffle     string `json:"shuffle"`
	Locality    string `json:"locality"`
	Records     int    `json:"records"`
	RecordBytes int64  `json:"record_bytes"`
	Nodes       int    `json:"nodes"`
	Learners    int    `json:"learners"`
	Batch       int    `json:"batch"`
	GlobalBatch int    `json:"global_batch"`
	ChunkBytes  int64  `json:"chunk_bytes"`
	ChunkWindow int    `json:"chunk_window"`
	Seed        uint64 `json:"seed"`
	Epochs      int    `json:"epochs"`

	// SameBatch is the fraction of pairs of records adjacent in the file
	// that land in the same global batch; SameBatchIdeal is its expectation
	// under a uniform random permutation cut into the same global batches.
	SameBatch      float64 `json:"same_batch_adjacent"`
	SameBatchIdeal float64 `json:"same_batch_ideal"`
	// Displacement is the mean distance between a record's place in the
	// file and its place in the epoch's order (the global batches one after
	// another), as a fraction of the records; DisplacementIdeal is its
	// expectation under a uniform permutation, (n²-1)/(3n²), about 1/3.
	Displacement      float64 `json:"mean_displacement"`
	DisplacementIdeal float64 `json:"displacement_ideal"`
	// CrossNode is the fraction of records delivered to a learner on
	// another node than the one that reads and caches them: the share of the
	// bytes the exchange moves once the caches are full.
	CrossNode float64 `json:"cross_node"`
	// SameBatchNextEpoch is the fraction of pairs of records sharing a
	// global batch that share one again in the next epoch (0 with one
	// epoch); a uniform permutation gives about SameBatchIdeal.
	SameBatchNextEpoch float64 `json:"same_batch_next_epoch"`
}
