package meminfo

import (
	"bufio"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := "MemTotal:       24597096 kB\nMemAvailable:   20000000 kB\nHugePages_Total:       0\nbroken line\nShmem: x kB\n"
	got, err := parse(bufio.NewScanner(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if got["MemTotal"] != 24597096<<10 || got["MemAvailable"] != 20000000<<10 || got["HugePages_Total"] != 0 {
		t.Errorf("parsed %v", got)
	}
	if _, ok := got["Shmem"]; ok {
		t.Errorf("a figure that is not a number was kept: %v", got)
	}
	if _, err := parse(bufio.NewScanner(strings.NewReader("MemTotal: 1 kB\n"))); err == nil {
		t.Error("no MemAvailable: want an error")
	}
}

// TestRead: this machine's figures are there and plausible.
func TestRead(t *testing.T) {
	m, err := Read()
	if err != nil {
		t.Skip(err)
	}
	if m["MemAvailable"] > m["MemTotal"] {
		t.Errorf("MemAvailable %d above MemTotal %d", m["MemAvailable"], m["MemTotal"])
	}
}
