package bench

// EpochSample is what one rank measured of one epoch. Times count from
// before the loader's Open, as RankSample's do. The storage, exchange,
// cache and decode figures are the loader's own (loader.EpochStats): non-zero
// on node readers only, so summing them over the ranks gives the job's.
type EpochSample struct {
	Epoch   int     `json:"epoch"`
	Records int64   `json:"records"`
	Bytes   int64   `json:"bytes"`
	End     float64 `json:"end_s"`   // from before Open to the epoch's last batch consumed
	Stall   float64 `json:"stall_s"` // time spent inside Next during the epoch

	StorageBytes  int64   `json:"storage_bytes"`
	ExchangeBytes int64   `json:"exchange_bytes"`
	CacheHits     int64   `json:"cache_hits"`
	DecodedBytes  int64   `json:"decoded_bytes"`
	DecodeSeconds float64 `json:"decode_seconds"`
	// ReadBytes is what the kernel counted as fetched from storage for
	// this process during the epoch (/proc/self/io read_bytes), for
	// loaders that do not count their own reads.
	ReadBytes int64 `json:"read_bytes"`
}

// SummarizeEpochs turns the samples of one measurement into one
// EpochFigures per epoch, in the order of the first sample's epochs.
// loaderCounts says the loader counted its reads from storage (the modes
// with node readers that read by the index); otherwise the storage bytes
// are what the kernel counted for the learners' processes, which also
// covers page faults of an mmap.
//
// An epoch's seconds are its share of the window: from the moment the last
// learner finished the epoch before (for the first epoch: the moment the
// last learner's Open returned) to the moment the last learner finished this
// one, every time counted from its program's start. The epochs' seconds and
// the start-up then add up to the result's window.
func SummarizeEpochs(samples []RankSample, fileBytes int64, loaderCounts bool) []EpochFigures {
	if len(samples) == 0 {
		return nil
	}
	var prev float64 // the job's start-up: the last learner ready
	for _, s := range samples {
		prev = max(prev, s.ProgramStartup+s.Startup)
	}
	out := make([]EpochFigures, 0, len(samples[0].Epochs))
	for i, e := range samples[0].Epochs {
		f := EpochFigures{Epoch: e.Epoch, FileBytes: fileBytes, StorageCountedBy: "loader"}
		if !loaderCounts {
			f.StorageCountedBy = "kernel"
		}
		var stallSum float64
		n := 0
		for _, s := range samples {
			if i >= len(s.Epochs) {
				continue
			}
			se := s.Epochs[i]
			n++
			f.Records += se.Records
			f.Bytes += se.Bytes
			f.EndS = max(f.EndS, s.ProgramStartup+se.End)
			f.StallS = max(f.StallS, se.Stall)
			stallSum += se.Stall
			if loaderCounts {
				f.StorageBytes += se.StorageBytes
			} else {
				f.StorageBytes += se.ReadBytes
			}
			f.ExchangeBytes += se.ExchangeBytes
			f.CacheHits += se.CacheHits
			f.DecodedBytes += se.DecodedBytes
			f.DecodeSeconds += se.DecodeSeconds
		}
		f.Seconds = max(f.EndS-prev, 0)
		prev = max(prev, f.EndS)
		f.StallMean = stallSum / float64(max(n, 1))
		fillRates(&f)
		out = append(out, f)
	}
	return out
}

// fillRates computes f's rates and fractions from its counts.
func fillRates(f *EpochFigures) {
	f.MBPerS = Rate(float64(f.Bytes), f.Seconds) / 1e6
	f.CacheHitRate = Rate(float64(f.CacheHits), float64(f.Records))
	f.ReadAmplification = Rate(float64(f.StorageBytes), float64(f.FileBytes))
	f.DecodeMBPerS = Rate(float64(f.DecodedBytes), f.DecodeSeconds) / 1e6
}

// PeerEpochFigures turns a peer's epochs into epoch figures. A peer has no
// exchange and no node cache; its storage bytes are what the kernel counted
// as read from storage for its processes.
func PeerEpochFigures(p PeerLine, fileBytes int64) []EpochFigures {
	out := make([]EpochFigures, 0, len(p.Epochs))
	for _, e := range p.Epochs {
		f := EpochFigures{Epoch: e.Epoch, Records: e.Records, Bytes: e.Bytes, Seconds: e.Seconds, EndS: e.End,
			StorageBytes: e.StorageBytes, StorageCountedBy: "kernel", FileBytes: fileBytes, StallS: e.Stall, StallMean: e.Stall}
		fillRates(&f)
		out = append(out, f)
	}
	return out
}
