package loader

import (
	"fmt"
	"strings"
)

// Mode is a set of LMDBIO's optimisations, each building on the previous.
type Mode struct {
	LMDB bool // the baseline, mode lmdb: every rank walks liblmdb's cursor over its own mmap, as Caffe-MPI does
	LMM  bool // one reader per node hands records to its learners through shared memory
	DIO  bool // the reader uses pread instead of faulting in an mmap
	PROV bool // record places come from the index, not from a cursor walk
	COAL bool // several batches' records are read in few large requests
	STAG bool // node readers take turns on storage
}

// modeNames lists the modes in stacking order.
var modeNames = []string{"lmdb", "lmm", "lmm+dio", "lmm+dio+prov", "lmm+dio+prov+coal", "lmm+dio+prov+coal+stag"}

// DefaultMode is the fastest mode: every optimisation on.
var DefaultMode = Mode{LMM: true, DIO: true, PROV: true, COAL: true, STAG: true}

// ModeNames lists the modes ParseMode accepts, from plain LMDB to the full stack.
func ModeNames() []string { return append([]string(nil), modeNames...) }

// ParseMode reads a mode name; "" and "default" give DefaultMode.
func ParseMode(s string) (Mode, error) {
	if s == "" || s == "default" {
		return DefaultMode, nil
	}
	for i, name := range modeNames {
		if s == name {
			return stacked(i), nil
		}
	}
	return Mode{}, fmt.Errorf("mode %q: want one of %s, or default", s, strings.Join(modeNames, ", "))
}

// stacked returns the mode with the first n optimisations on.
func stacked(n int) Mode {
	return Mode{LMDB: n == 0, LMM: n >= 1, DIO: n >= 2, PROV: n >= 3, COAL: n >= 4, STAG: n >= 5}
}

func (m Mode) String() string {
	for i := range modeNames {
		if stacked(i) == m {
			return modeNames[i]
		}
	}
	return fmt.Sprintf("mode%+v", struct{ LMDB, LMM, DIO, PROV, COAL, STAG bool }(m))
}
