package planner

// TotalBytes returns the number of bytes the spans read.
func TotalBytes(spans []Span) int64 {
	var n int64
	for _, s := range spans {
		n += s.Length
	}
	return n
}

// Stats summarises a plan for reports and benchmarks.
type Stats struct {
	// Reads is the number of spans, that is of read calls.
	Reads int
	// Records is the number of placements (duplicates count each time).
	Records int
	// BytesRead is the sum of span lengths.
	BytesRead int64
	// BytesWanted is the sum of placed record lengths; a record requested
	// twice counts twice, since the learners receive it twice.
	BytesWanted int64
}

// Summarize computes the Stats of a plan.
func Summarize(spans []Span) Stats {
	st := Stats{Reads: len(spans)}
	for _, s := range spans {
		st.BytesRead += s.Length
		st.Records += len(s.Records)
		for _, p := range s.Records {
			st.BytesWanted += p.Length
		}
	}
	return st
}

// Amplification returns BytesRead/BytesWanted: 1 means nothing unwanted was
// read. It returns 0 when nothing was wanted.
func (s Stats) Amplification() float64 {
	if s.BytesWanted == 0 {
		return 0
	}
	return float64(s.BytesRead) / float64(s.BytesWanted)
}
