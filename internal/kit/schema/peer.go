package schema

// PeerReport is the one JSON line a peer program (bench/peers/*.py) prints
// on its standard output: its share of the dataset, with times counted from
// the start of its process. consumer, records, bytes and seconds are
// required (pointers, so that a missing one is told from a zero); the
// other times are optional.
type PeerReport struct {
	Type           string         `json:"type"` // "peer"
	Peer           string         `json:"peer"` // the peer's name
	Consumer       *string        `json:"consumer"`
	Records        *int64         `json:"records"`
	Bytes          *int64         `json:"bytes"`
	Digest         string         `json:"digest"` // 16 hex digits with consumer sha256, else ""
	Seconds        *float64       `json:"seconds"`
	FirstBatch     float64        `json:"first_batch_s"`
	Startup        float64        `json:"startup_s"`
	ProcessStartup float64        `json:"process_startup_s"`
	Loop           float64        `json:"loop_s"`
	Index          float64        `json:"index_s"` // listing the keys before the loop (torch peers)
	Total          float64        `json:"total_s"`
	SamplesPerS    float64        `json:"samples_per_s"`
	MBPerS         float64        `json:"mb_per_s"`
	Epochs         []PeerEpoch    `json:"epochs"` // peers that log their epochs
	Config         map[string]any `json:"config"` // the peer's own settings, as it names them
}

// PeerEpoch is one epoch as a peer reports it (peers that read one epoch
// and predate the per-epoch report have none). Times count from the start
// of the peer's process.
type PeerEpoch struct {
	Epoch        int     `json:"epoch"`
	Records      int64   `json:"records"`
	Bytes        int64   `json:"bytes"`
	Seconds      float64 `json:"seconds"`       // from the end of the epoch before (the first: the loop's start) to its last record
	End          float64 `json:"end_s"`         // process start to the epoch's last record
	Stall        float64 `json:"stall_s"`       // the consumer's wait for batches
	StorageBytes int64   `json:"storage_bytes"` // the kernel's block input of the peer's processes in the epoch
}
