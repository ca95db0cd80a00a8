package model

// Lustre returns a Lustre-like parameter set, from published figures where
// there are some and stated assumptions where there are none, with the
// sources and the assumptions. Fit replaces the machine-speed parameters
// with measured ones; this set is for predictions beyond what can be
// measured here (hundreds of nodes).
func Lustre() ParamsFile {
	return ParamsFile{
		Name: "lustre-like",
		Params: Params{
			Servers:         24,
			ServerBandwidth: 10e9 / 24,
			ServerOverhead:  24.0/65000 - 4096/(10e9/24),
			Contention:      0.02,
			Latency:         100e-6,
			Readahead:       1 << 20,
			MaxRequest:      1 << 20,
			InFlight:        2,
			NodeRead:        926e6,
			Cores:           36,
			MemCopy:         5e9,
			CursorStep:      1e-6,
			TouchRate:       20e9,
			SHA256Rate:      500e6,
			Startup:         1,
			ProcessCPU:      0.05,
			NetBandwidth:    12.5e9,
			NetLatency:      2e-6,
			Locality:        0,
		},
		Sources: []string{
			"servers 24, server_bandwidth 417 MB/s: a 24-OST Lustre system reads sequentially at up to about 10 GB/s " +
				"(Dell, \"Dell Storage for HPC with Intel Enterprise Edition for Lustre software\", white paper, IOzone N-to-N sequential reads)",
			"server_overhead_s 0.36 ms: the same system peaks at 65,000 random 4 KiB reads per second over its 24 OSTs, " +
				"0.37 ms per request and OST, less the 4 KiB transfer (same white paper, IOzone random reads)",
			"node_read 926 MB/s: one client of the same system reads at 926 MB/s (same white paper)",
			"readahead 1 MiB: Lustre reads ahead in RPC-sized 1 MB chunks, starting with 1 MB after the second sequential read " +
				"and growing only while reads stay sequential (Lustre 1.6 Operations Manual, 20.2.6 Mechanics of Lustre Readahead)",
			"max_request 1 MiB: 1 MB is the largest bulk I/O size and the one clients use for all I/O " +
				"(A. Dilger, lustre-discuss, 17 August 2010); max_pages_per_rpc 256 pages of 4 KiB",
			"in_flight 2 per stream, 8 with lmdbio's io-depth 4: a client keeps up to max_rpcs_in_flight = 8 RPCs in flight " +
				"to each OST by default (A. Dilger, lustre-discuss, 12 March 2015)",
			"cores 36: LMDBIO's largest run used 256 nodes of 36 cores, 9,216 cores (Pumma et al., ACM TOPC 6(2), 2019)",
		},
		Assumptions: []string{
			"the dataset is striped over all 24 OSTs (lfs setstripe -c -1); Lustre's default stripe count is 1, which would " +
				"put every request of every rank on one OST and make the baseline fall sooner",
			"contention 0.02: every further stream an OST serves adds 2% of its per-request overhead to each request " +
				"(interleaved streams break sequential access and contend for locks); no published figure, fit it from emulated runs",
			"latency_s 0.1 ms per request besides the server's service: network round trip and the client's RPC path",
			"in_flight 2: a reader that faults pages or reads buffered keeps its own request and one readahead in flight",
			"mem_copy 5 GB/s per core, cursor_step_s 1 µs per record, touch_rate 20 GB/s and sha256_rate 500 MB/s per core: " +
				"a CPU of LMDBIO's time (this machine measures memcpy at 18 GB/s and Go's SHA-256 at 1.3 GB/s per core)",
			"startup_s 1 s from the program's start to the loader ready, plus process_cpu_s 0.05 s of CPU per learner process " +
				"(runtime, MPI initialisation, opening the dataset) spread over its node's cores",
			"net_bandwidth 12.5 GB/s and net_latency_s 2 µs per node: a 100 Gb/s InfiniBand or Omni-Path network",
			"locality 0: a uniform shuffle, (N-1)/N of the samples cross nodes",
		},
	}
}

// CIFARWorkload is the default workload of predictions with Lustre():
// small records inline in LMDB's leaf pages, as in LMDBIO's CIFAR-10
// experiments, with assumed sizes and compute.
func CIFARWorkload() (Workload, []string) {
	return Workload{
			Bytes: 1e6 * 3100, Records: 1e6, Batch: 64, Epochs: 1, Consumer: "touch", Compute: 0.1, WalkFraction: 1,
		}, []string{
			"dataset: 1,000,000 records of 3,100 bytes (a 32×32×3 image in a Caffe Datum), 3.1 GB, inline in LMDB's leaf " +
				"pages, so a cursor walk past a record reads it (walk fraction 1)",
			"batch 64 records per learner, one epoch, cold caches, consumer touch",
			"compute 0.1 s per batch per learner (one core each)",
		}
}
