package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lmdbio/lmdbio/bench/pfsemu/emu"
)

// writeStats replaces path with the counters as one JSON line. It writes a
// temporary file and renames it, so a reader never sees half a file.
func writeStats(path string, st emu.Stats) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("stats file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := firstErr(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("stats file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("stats file: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// statsLine is the counters as one JSON line.
func statsLine(st emu.Stats) string {
	b, err := json.Marshal(st)
	if err != nil { // Stats holds only numbers and strings
		panic(err)
	}
	return string(b)
}
