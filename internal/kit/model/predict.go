package model

import (
	"math"
)

// overlap is the exponent that combines stage times: a pipeline whose
// stages overlap perfectly takes the longest stage (an infinite exponent);
// real ones lose a little where stages meet. 4 puts two equal stages at
// 1.19 times either.
const overlap = 4

// Prediction is the model's answer for one configuration.
type Prediction struct {
	Seconds float64 // from the learners' process start to the last batch of the last epoch
	MBPerS  float64 // value bytes of all epochs over Seconds, 10^6 bytes
	// The time of the first epoch and of every later one (they differ for
	// the exchange, whose later epochs read nothing from storage).
	FirstEpoch, LaterEpoch float64
	// Bottleneck is the longest stage of the first epoch: "storage",
	// "servers", "clients" (the storage side, by which bound), "reader"
	// (a node reader's serial work), "learner" (consume and compute),
	// "cores" (all of a node's work over its cores), "exchange".
	Bottleneck string
	// Storage side of the first epoch.
	Streams       float64 // concurrent streams on storage
	RequestBytes  float64 // bytes per request
	StorageBytes  float64 // bytes read from storage in the epoch
	StorageMBPerS float64 // rate storage delivers at
}

// ioPlan is how a contender meets storage in one epoch.
type ioPlan struct {
	streams    float64 // concurrent reading streams
	active     float64 // nodes whose clients read at once
	request    float64 // bytes per request
	inFlight   float64 // requests each stream keeps in flight
	bytes      float64 // bytes read from storage
	readerCPU  float64 // a node reader's serial work, seconds
	learnerCPU float64 // one learner's consumer and cursor work, seconds
}

// plan works out a contender's storage traffic and CPU work per epoch.
func plan(p Params, c Config) ioPlan {
	n, r := float64(c.Nodes), float64(c.RanksPerNode)
	consume, _ := consumeRate(p, c.Consumer)
	perNode := c.Bytes / n
	pl := ioPlan{streams: n, active: n, request: p.Readahead, inFlight: p.InFlight, bytes: c.Bytes}
	if consume > 0 {
		pl.learnerCPU = perNode / r / consume
	}
	// Without an index every reader walks the cursor over every record, and
	// the walk faults in the leaf pages between its own records: each node
	// reads its share plus WalkFraction of everybody else's.
	walk := c.Contender.stage() < PROV.stage()
	if walk {
		pl.bytes = c.Bytes * (1 + c.WalkFraction*(n-1))
	}
	if c.Contender == Caffe {
		pl.streams = n * r // every rank faults its own pages
		pl.learnerCPU += c.Records * p.CursorStep
		return pl
	}
	// One reader per node copies the node's records into shared memory
	// (with O_DIRECT the device writes them there itself).
	if !(c.Direct && c.Contender.stage() >= DIO.stage()) {
		pl.readerCPU = perNode / p.MemCopy
	}
	if walk {
		pl.readerCPU += c.Records * p.CursorStep
	}
	if c.Contender == LMM {
		return pl // page faults: readahead-sized requests
	}
	// Explicit reads: a batch's byte range, or with COAL a window's spans,
	// split by the client into requests of the readahead (buffered) or of
	// its largest request (direct).
	span := float64(c.Batch) * c.Bytes / c.Records
	if c.Contender.stage() >= COAL.stage() {
		span = math.Min(c.Window, c.MaxSpan)
		pl.inFlight = float64(c.IODepth) * p.InFlight
	}
	unit := p.Readahead
	if c.Direct {
		unit = p.MaxRequest
	}
	pl.request = math.Min(span, unit)
	if c.Contender.stage() >= STAG.stage() {
		pl.streams = math.Min(n, float64(c.Stagger))
		pl.active = pl.streams
	}
	return pl
}

// storageRate is the rate storage delivers a plan's requests at, and which
// bound sets it. Each request costs a server its overhead, grown by the
// contention of the streams the server serves, plus its transfer; each
// stream waits for the request's latency besides. Three bounds: what the
// streams ask for (their requests in flight over the round trip), what the
// servers can serve, and what the active nodes' clients can take.
func storageRate(p Params, pl ioPlan) (float64, string) {
	perServer := pl.streams / p.Servers
	service := p.ServerOverhead*(1+p.Contention*math.Max(0, perServer-1)) + pl.request/p.ServerBandwidth
	demand := pl.streams * pl.inFlight * pl.request / (p.Latency + service)
	servers := p.Servers * pl.request / service
	clients := pl.active * p.NodeRead
	rate := smoothMin(demand, servers, clients)
	switch math.Min(demand, math.Min(servers, clients)) {
	case servers:
		return rate, "servers"
	case clients:
		return rate, "clients"
	}
	return rate, "storage"
}

// coreTime is the time a node's CPU work takes on its cores: a reader's
// and r learners' work spread over the cores they can use, and where nodes
// share one machine's cores, all nodes' work over those.
func coreTime(p Params, reader, learner, n, r float64) float64 {
	work, workers := reader+r*learner, r
	if reader > 0 {
		workers++
	}
	t := work / math.Min(p.Cores, workers)
	if p.SharedCores > 0 {
		t = math.Max(t, n*work/math.Min(p.SharedCores, n*workers))
	}
	return t
}

// startupTime is the time from the start of the learners' window to their
// loaders being ready: a fixed part (launch, the collective open) plus every
// process's own start-up CPU, spread over the cores the processes share: a
// node's cores, and where nodes share one machine, the machine's.
func startupTime(p Params, n, r float64) float64 {
	return p.Startup + math.Max(sharedTime(p.Cores, r, p.ProcessCPU), sharedTime(p.SharedCores, n*r, p.ProcessCPU))
}

// sharedTime is how long procs processes, each needing cpu seconds of CPU,
// take on cores cores: at most one core each. No cores (real nodes do not
// share a machine) take no time.
func sharedTime(cores, procs, cpu float64) float64 {
	if cores <= 0 {
		return 0
	}
	return procs * cpu / math.Min(cores, procs)
}

// exchangeTime is the time a node spends sending the samples other nodes
// need: the cross-node share of its bytes over its network, plus one
// message to every other node per window.
func exchangeTime(p Params, c Config) float64 {
	n := float64(c.Nodes)
	if n < 2 {
		return 0
	}
	perNode := c.Bytes / n
	cross := (1 - p.Locality) * (n - 1) / n
	windows := math.Ceil(perNode / c.Window)
	return cross*perNode/p.NetBandwidth + windows*(n-1)*p.NetLatency
}

// Predict gives the time and throughput of a configuration under the
// parameters. Both must be valid (Params.Validate, Config.Validate).
func Predict(p Params, c Config) Prediction {
	pl := plan(p, c)
	rate, bound := storageRate(p, pl)
	n, r := float64(c.Nodes), float64(c.RanksPerNode)
	rounds := math.Ceil(c.Records / (n * r * float64(c.Batch)))
	learner := pl.learnerCPU + rounds*c.Compute
	cores := coreTime(p, pl.readerCPU, pl.learnerCPU, n, r)
	stages := []stage{{bound, pl.bytes / rate}, {"reader", pl.readerCPU}, {"learner", learner}, {"cores", cores}}
	if c.Contender == Exchange {
		stages = append(stages, stage{"exchange", exchangeTime(p, c)})
	}
	first, neck := combine(stages)
	later := first
	if c.Contender == Exchange {
		// Later epochs: the node's share is in memory; samples move between
		// nodes and into the learners' shared memory, nothing is read.
		cross := (1 - p.Locality) * (n - 1) / n * c.Bytes / n
		reader := cross / p.MemCopy
		later, _ = combine([]stage{{"exchange", exchangeTime(p, c)}, {"reader", reader}, {"learner", learner},
			{"cores", coreTime(p, reader, pl.learnerCPU, n, r)}})
	}
	total := startupTime(p, n, r) + first + float64(c.Epochs-1)*later
	return Prediction{
		Seconds: total, MBPerS: c.Bytes * float64(c.Epochs) / total / 1e6,
		FirstEpoch: first, LaterEpoch: later, Bottleneck: neck,
		Streams: pl.streams, RequestBytes: pl.request, StorageBytes: pl.bytes, StorageMBPerS: rate / 1e6,
	}
}

// stage is one part of an epoch's work, which overlaps with the others.
type stage struct {
	name    string
	seconds float64
}

// combine is the time of overlapping stages and the name of the longest.
func combine(stages []stage) (float64, string) {
	var sum, longest float64
	neck := ""
	for _, s := range stages {
		sum += math.Pow(s.seconds, overlap)
		if s.seconds > longest {
			longest, neck = s.seconds, s.name
		}
	}
	return math.Pow(sum, 1.0/overlap), neck
}

// smoothMin is the smooth minimum of rates: the harmonic p-norm, so a
// pipeline limited by one bound is slowed a little by the others near it.
func smoothMin(rates ...float64) float64 {
	var sum float64
	for _, v := range rates {
		sum += math.Pow(v, -overlap)
	}
	return math.Pow(sum, -1.0/overlap)
}
