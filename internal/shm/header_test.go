package shm

import (
	"errors"
	"testing"
	"time"
)

func TestHeaderRoundTrip(t *testing.T) {
	b := make([]byte, HeaderSize)
	in := Info{Job: "12345", CreatorPID: 4242, CreatorStart: 987654, Size: 1 << 40, Created: time.Unix(0, 1700000000123456789)}
	marshalHeader(b, in)
	out, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.Job != in.Job || out.CreatorPID != in.CreatorPID || out.CreatorStart != in.CreatorStart ||
		out.Size != in.Size || !out.Created.Equal(in.Created) {
		t.Fatalf("got %+v, want %+v", out, in)
	}
}

func TestParseNameAndName(t *testing.T) {
	tests := []struct {
		name   string
		job    string
		pid    int
		suffix string
		ok     bool
	}{
		{"lmdbio.123.456.arena", "123", 456, "arena", true},
		{"lmdbio.local.7.ring.0", "local", 7, "ring.0", true},
		{"lmdbio.123.0.x", "", 0, "", false},
		{"lmdbio.123.abc.x", "", 0, "", false},
		{"lmdbio.123.456", "", 0, "", false},
		{"lmdbio..456.x", "", 0, "", false},
		{"other.123.456.x", "", 0, "", false},
	}
	for _, tt := range tests {
		job, pid, suffix, ok := parseName(tt.name)
		if job != tt.job || pid != tt.pid || suffix != tt.suffix || ok != tt.ok {
			t.Errorf("parseName(%q) = %q %d %q %v", tt.name, job, pid, suffix, ok)
		}
	}
	n := Name("prterun-host-1@1/x.y", "a/b.c")
	job, _, suffix, ok := parseName(n)
	if !ok || job != "prterun-host-1_1_x_y" || suffix != "a_b.c" {
		t.Fatalf("Name gave %q: %q %q %v", n, job, suffix, ok)
	}
	if Name("", "s")[:13] != "lmdbio.local." {
		t.Fatalf("Name with no job: %q", Name("", "s"))
	}
}

func TestJobID(t *testing.T) {
	t.Setenv(JobIDEnv, "")
	t.Setenv("SLURM_JOB_ID", "")
	t.Setenv("PMIX_NAMESPACE", "")
	t.Setenv("OMPI_MCA_orte_ess_jobid", "")
	if got := JobID(); got != "local" {
		t.Fatalf("JobID() = %q without job variables", got)
	}
	t.Setenv("OMPI_MCA_orte_ess_jobid", "1234")
	t.Setenv("PMIX_NAMESPACE", "prterun.x@1")
	if got := JobID(); got != "prterun_x_1" {
		t.Fatalf("JobID() = %q, want the PMIx namespace", got)
	}
	t.Setenv("SLURM_JOB_ID", "99")
	if got := JobID(); got != "99" {
		t.Fatalf("JobID() = %q, want SLURM_JOB_ID", got)
	}
	t.Setenv(JobIDEnv, "run-1f2e")
	if got := JobID(); got != "run-1f2e" {
		t.Fatalf("JobID() = %q, want lmdbio run's id", got)
	}
}

// FuzzHeader checks that the header parser never panics and that whatever
// it accepts survives a round trip.
func FuzzHeader(f *testing.F) {
	good := make([]byte, HeaderSize)
	marshalHeader(good, Info{Job: "42", CreatorPID: 1, CreatorStart: 2, Size: 3})
	f.Add(good)
	f.Add(good[:headerLen])
	f.Add(good[:headerLen-1])
	f.Add([]byte{})
	f.Add(make([]byte, HeaderSize))
	f.Add(append([]byte("LMDBIOSM"), make([]byte, 200)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		inf, err := parseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrBadHeader) {
				t.Fatalf("error %v does not wrap ErrBadHeader", err)
			}
			return
		}
		again := make([]byte, headerLen)
		marshalHeader(again, inf)
		inf2, err := parseHeader(again)
		if err != nil || inf2.Job != inf.Job || inf2.CreatorPID != inf.CreatorPID ||
			inf2.CreatorStart != inf.CreatorStart || inf2.Size != inf.Size || !inf2.Created.Equal(inf.Created) {
			t.Fatalf("round trip: %+v -> %+v, %v", inf, inf2, err)
		}
	})
}
