package main

// End-to-end test of lmdbio-bench bench: a tiny benchmark under mpirun, checked for
// the JSON lines it promises and for every contender agreeing on the data.
// It asserts nothing about speed.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchEnv is the environment of the test without an enclosing job's MPI,
// Slurm or lmdbio settings, plus what Open MPI needs as root in a container.
func benchEnv(cacheDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SLURM_") || strings.HasPrefix(name, "PMIX_") || strings.HasPrefix(name, "PMI_") ||
			strings.HasPrefix(name, "OMPI_") || strings.HasPrefix(name, "LMDBIO_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl_vader_single_copy_mechanism=none", "LMDBIO_CACHE_DIR="+cacheDir)
}

// benchExec runs a command to its end within a deadline and returns stdout.
func benchExec(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = env
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %s: %v (timed out: %v)\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err,
			ctx.Err() != nil, out, stderr.String())
	}
	return string(out)
}

// benchFields are the fields every line of a type must carry (the contract
// the report generator reads).
var benchFields = map[string][]string{
	"result": {"round", "mode", "contender", "shuffle", "locality", "seed", "format", "file_bytes",
		"ranks", "nodes", "ranks_per_node", "cache", "consumer", "workload", "batch",
		"direct", "stagger", "io_depth", "window_bytes", "max_span_bytes", "samples", "bytes",
		"seconds", "samples_per_s", "mb_per_s", "fraction_of_limit", "startup_s", "process_startup_s",
		"first_batch_s_min", "first_batch_s_median",
		"first_batch_s_max", "stall_s", "stall_s_mean", "read_bytes", "read_calls", "rss_max_bytes", "shm_bytes",
		"digest", "au_min", "au_mean", "node_cache_bytes", "storage_bytes", "exchange_bytes", "cache_hits"},
	"epoch": {"kind", "round", "contender", "mode", "peer", "shuffle", "locality", "format", "ranks", "nodes", "ranks_per_node",
		"cache", "consumer", "epochs", "cores", "epoch", "records", "bytes", "seconds", "end_s", "mb_per_s", "storage_bytes",
		"storage_counted_by", "exchange_bytes", "cache_hits", "cache_hit_rate", "file_bytes", "read_amplification", "stall_s",
		"stall_s_mean", "decoded_bytes", "decode_seconds", "decode_mb_per_s"},
	"limit":   {"round", "cache", "probe", "direct", "streams", "depth", "request_bytes", "hosts", "bytes", "seconds", "mb_per_s"},
	"summary": {"name", "ranks", "cache", "consumer", "median_mb_per_s", "min_mb_per_s", "max_mb_per_s", "rounds", "above_limit"},
	"ratio":   {"name", "of", "to", "ranks", "cache", "consumer", "ratio"},
}

func TestE2EBenchJSON(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH")
	}
	dir := t.TempDir()
	env := benchEnv(filepath.Join(dir, "cache"))
	db := filepath.Join(dir, "db")
	benchExec(t, env, productBin, "gen", "--records", "200", "--size", "20KiB,4KiB", "--datum", "--out", db)

	var want struct {
		Records int64  `json:"records"`
		Bytes   int64  `json:"bytes"`
		Digest  string `json:"digest"`
	}
	if err := json.Unmarshal([]byte(benchExec(t, env, mpirun, "-np", "1", productBin, "digest", "--json", db)), &want); err != nil {
		t.Fatalf("digest --json: %v", err)
	}

	out := benchExec(t, env, mpirun, "-np", "2", "--oversubscribe", kitBin, "bench", "--rounds", "1", "--ranks", "1,2",
		"--page-cache", "warm", "--consumer", "sha256,touch", "--limit-probes", "buffered:1x1:1MiB,buffered:2x2:64KiB",
		"--batch", "16", "--json", db)
	count := map[string]int{}
	modes := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		typ, _ := m["type"].(string)
		count[typ]++
		for _, f := range benchFields[typ] {
			if _, ok := m[f]; !ok {
				t.Errorf("%s line without %q: %s", typ, f, line)
			}
		}
		if typ != "result" {
			continue
		}
		modes[m["mode"].(string)] = true
		consumer := m["consumer"]
		if m["cache"] != "warm" || (consumer != "sha256" && consumer != "touch") || m["workload"] != "none" || m["batch"] != 16.0 {
			t.Errorf("result line does not say what was measured: %s", line)
		}
		// The window starts at the process start: start-up and first batch
		// lie inside it.
		if s, fb, sec := m["startup_s"].(float64), m["first_batch_s_max"].(float64), m["seconds"].(float64); !(0 < s && s <= fb && fb <= sec) {
			t.Errorf("start-up %v, first batch %v, window %v out of order: %s", s, fb, sec, line)
		}
		wantDigest := want.Digest
		if consumer == "touch" {
			wantDigest = ""
		}
		if m["samples"] != float64(want.Records) || m["bytes"] != float64(want.Bytes) || m["digest"] != wantDigest {
			t.Errorf("result delivered %v records, %v bytes, digest %v; lmdbio digest says %d, %d, %s: %s",
				m["samples"], m["bytes"], m["digest"], want.Records, want.Bytes, want.Digest, line)
		}
		if r := m["ranks"].(float64); r != 1 && r != 2 {
			t.Errorf("result for %v ranks; asked for 1 and 2", r)
		}
	}
	// Every default mode once per rank count; "default" stands for the full stack.
	if len(modes) != 6 || !modes["lmdb"] || !modes["default"] || modes["lmm+dio+prov+coal+stag"] {
		t.Errorf("modes measured: %v", modes)
	}
	if count["result"] != 24 || count["epoch"] != 24 || count["limit"] != 2 || count["summary"] < 24 || count["ratio"] < 2 {
		t.Errorf("line counts %v; want 24 results and their epochs, 2 limit probes, summaries and ratios", count)
	}
}

// TestE2EBenchEpochs: shuffled contenders over two epochs on two virtual
// nodes: an epoch line per epoch, every record every epoch, and a second
// epoch that reads nothing from storage (the node caches hold the dataset).
func TestE2EBenchEpochs(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH")
	}
	dir := t.TempDir()
	env := append(benchEnv(filepath.Join(dir, "cache")), "LMDBIO_RANKS_PER_NODE=1")
	db := filepath.Join(dir, "db")
	benchExec(t, env, productBin, "gen", "--records", "120", "--size", "20KiB,4KiB", "--datum", "--out", db)
	out := benchExec(t, env, mpirun, "-np", "2", "--oversubscribe", kitBin, "bench", "--rounds", "1", "--modes", "default",
		"--shuffle", "none,global", "--locality", "on,off", "--epochs", "2", "--page-cache", "warm", "--consumer", "touch",
		"--limit-probes", "none", "--batch", "8", "--json", db)
	epochs := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		if m["type"] == "epoch" {
			c := m["contender"].(string)
			epochs[c] = append(epochs[c], m)
		}
	}
	for _, c := range []string{"default", "default/global", "default/global/locality-off"} {
		es := epochs[c]
		if len(es) != 2 || es[0]["epoch"] != 0.0 || es[1]["epoch"] != 1.0 {
			t.Fatalf("%s: epoch lines %v", c, es)
		}
		for _, e := range es {
			if e["records"] != 120.0 || e["nodes"] != 2.0 || e["storage_counted_by"] != "loader" {
				t.Errorf("%s: %v", c, e)
			}
		}
		if a := es[0]["read_amplification"].(float64); a <= 0 || es[1]["storage_bytes"] != 0.0 || es[1]["cache_hit_rate"] != 1.0 {
			t.Errorf("%s: epoch 0 read %v of the file; epoch 1 read %v bytes, cache hits %v", c, a, es[1]["storage_bytes"],
				es[1]["cache_hit_rate"])
		}
	}
}
