package loader

import "sync"

// EpochStats are one epoch's figures on a node reader; zero on other ranks.
type EpochStats struct {
	StorageBytes  int64 // bytes read from the dataset file
	StorageReads  int64 // reads that brought them (one per span: StorageBytes/StorageReads is the mean read size)
	ExchangeBytes int64 // bytes of values sent to other nodes, counted as the exchanges are laid out
	CacheHits     int64 // records produced from the cache, read from storage in an earlier window
	// DecodedBytes and DecodeSeconds are the blocks decoded (HDF5 chunks)
	// and the time the decoders spent on them, summed over the decoders.
	DecodedBytes  int64
	DecodeSeconds float64
}

// runStats keeps the figures of every epoch.
type runStats struct {
	mu     sync.Mutex
	epochs map[int]*epochCounters
}

func newRunStats() *runStats { return &runStats{epochs: map[int]*epochCounters{}} }

// epoch returns epoch e's counters.
func (s *runStats) epoch(e int) *epochCounters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.epochs[e]
	if c == nil {
		c = new(epochCounters)
		s.epochs[e] = c
	}
	return c
}

// get returns epoch e's figures so far.
func (s *runStats) get(e int) EpochStats {
	c := s.epoch(e)
	return EpochStats{StorageBytes: c.storageBytes.Load(), StorageReads: c.storageReads.Load(), ExchangeBytes: c.exchangeBytes.Load(), CacheHits: c.cacheHits.Load(),
		DecodedBytes: c.decodedBytes.Load(), DecodeSeconds: float64(c.decodeNanos.Load()) / 1e9}
}
