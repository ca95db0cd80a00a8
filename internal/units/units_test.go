package units

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"0", 0, true}, {"128KiB", 128 << 10, true}, {"128kib", 128 << 10, true},
		{"1MiB", 1 << 20, true}, {"1M", 1 << 20, true}, {"1MB", 1e6, true}, {"1.5GiB", 3 << 29, true},
		{" 64 KiB ", 64 << 10, true}, {"2B", 2, true}, {"1G", 1 << 30, true},
		{"", 0, false}, {"KiB", 0, false}, {"-1", 0, false}, {"1.5", 0, false}, {"x", 0, false},
		{"1e30", 0, false}, {"NaN", 0, false}, {"inf", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1GB/s", 1e9, true}, {"1GBps", 1e9, true}, {"500MiB/s", 500 << 20, true}, {"2e9", 2e9, true},
		{"unlimited", 0, true}, {"off", 0, true}, {"0", 0, true}, {"100 MB/s", 1e8, true},
		{"fast", 0, false}, {"-1GB/s", 0, false}, {"", 0, false}, {"/s", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormatSizeRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 4095, 4096, 128 << 10, 1 << 20, 3 << 29, 1<<30 + 1} {
		s := FormatSize(n)
		back, err := ParseSize(s)
		if err != nil || back != n {
			t.Errorf("FormatSize(%d) = %q parses to %d, %v", n, s, back, err)
		}
	}
}

func TestFormatRate(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{{0, "unlimited"}, {1e9, "1GB/s"}, {2.5e8, "250MB/s"}, {1500, "1.5KB/s"}, {10, "10B/s"}}
	for _, tt := range tests {
		if got := FormatRate(tt.in); got != tt.want {
			t.Errorf("FormatRate(%g) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
