package lmdbwalk

import (
	"strings"
	"testing"
)

func TestParseMapping(t *testing.T) {
	tests := []struct {
		line    string
		want    mapping
		wantErr bool
	}{
		{
			line: "7f2522f50000-7f2523050000 r--s 00001000 fe:01 9978021                    /d/data.mdb",
			want: mapping{start: 0x7f2522f50000, end: 0x7f2523050000, offset: 0x1000, major: 0xfe, minor: 1, inode: 9978021},
		},
		{
			line: "7ffd1000-7ffd3000 rw-p 00000000 00:00 0",
			want: mapping{start: 0x7ffd1000, end: 0x7ffd3000},
		},
		{line: "7ffd1000-7ffd3000 rw-p 00000000 00:00", wantErr: true},
		{line: "7ffd1000+7ffd3000 rw-p 00000000 00:00 0", wantErr: true},
		{line: "7ffd1000-7ffd3000 rw-p 00000000 0000 0", wantErr: true},
		{line: "7ffd1000-7ffd3000 rw-p 0000zz00 00:00 0", wantErr: true},
		{line: "7ffd1000-7ffd3000 rw-p 00000000 00:00 12a", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseMapping(tt.line)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseMapping(%q) error = %v, want error %v", tt.line, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("parseMapping(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func TestFindMapping(t *testing.T) {
	const maps = "1000-2000 r--p 00000000 08:01 11 /a\n" +
		"3000-5000 r--s 00002000 08:01 12 /b\n"
	tests := []struct {
		addr   uintptr
		ok     bool
		offset int64
	}{
		{0x0fff, false, 0},
		{0x1000, true, 0},
		{0x1fff, true, 0},
		{0x2000, false, 0},
		{0x4000, true, 0x2000},
		{0x5000, false, 0},
	}
	for _, tt := range tests {
		m, ok, err := findMapping(strings.NewReader(maps), tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if ok != tt.ok || (ok && m.offset != tt.offset) {
			t.Errorf("findMapping(%#x) = %+v, %v; want ok %v offset %#x", tt.addr, m, ok, tt.ok, tt.offset)
		}
	}
	if _, _, err := findMapping(strings.NewReader("garbage\n"), 0); err == nil {
		t.Error("findMapping accepted a malformed line")
	}
}
