package launch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/internal/startup"
	"golang.org/x/sys/unix"
)

// rankDeath is what the launcher said about a rank that died by a signal.
type rankDeath struct {
	rank   int // -1 when the launcher did not name it
	pid    int // 0 when unknown
	host   string
	signal syscall.Signal
}

func (d rankDeath) String() string {
	who := "a rank"
	if d.rank >= 0 {
		who = "rank " + strconv.Itoa(d.rank)
	}
	if d.pid > 0 {
		who += " (pid " + strconv.Itoa(d.pid) + ")"
	}
	if d.host != "" {
		who += " on " + d.host
	}
	return fmt.Sprintf("%s was killed by signal %d (%s)", who, int(d.signal), signalName(d.signal))
}

func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// The lines launchers print when a rank dies by a signal. Open MPI (and
// PRRTE), on stderr: "mpirun noticed that process rank 2 with PID 123 on
// node n1 exited on signal 9 (Killed)." (for ranks that called MPI_Init).
// srun, on stderr: "srun: error: n1: task 2: Killed". MPICH's Hydra, on
// stdout: "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal
// 9)"; the pid in its box above that line is often another rank's, one
// Hydra killed while cleaning up, so only the signal is taken from it.
var (
	ompiDeath   = regexp.MustCompile(`process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+)`)
	hydraSignal = regexp.MustCompile(`EXIT STRING: .*\(signal (\d+)\)`)
	srunDeath   = regexp.MustCompile(`^srun: error: (\S+): tasks? (\d+)(?:-\d+)?: (.+)$`)
)

// deathScanner reads the launcher's stderr line by line and remembers the
// first rank it reports dead by a signal, and when a rank first said its
// start-up outlasted its limit. Its methods may be called from several
// goroutines.
type deathScanner struct {
	mu      sync.Mutex
	partial []byte
	first   *rankDeath
	seen    time.Time // when first was read
	// timedOut is when a rank's line said its start-up outlasted its
	// limit (the rank exits right after it), zero if none did.
	timedOut time.Time
}

// Write takes the next bytes of the launcher's stderr.
func (s *deathScanner) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, b...)
	for {
		i := strings.IndexByte(string(s.partial), '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > 64<<10 { // no line is that long; do not grow without bound
		s.partial = s.partial[:0]
	}
	return len(b), nil
}

func (s *deathScanner) line(l string) {
	if s.timedOut.IsZero() && strings.HasPrefix(l, startup.Message) {
		s.timedOut = time.Now()
	}
	if s.first != nil {
		return
	}
	defer func() {
		if s.first != nil {
			s.seen = time.Now()
		}
	}()
	if m := ompiDeath.FindStringSubmatch(l); m != nil {
		s.first = &rankDeath{rank: atoi(m[1], -1), pid: atoi(m[2], 0), host: m[3], signal: syscall.Signal(atoi(m[4], 0))}
		return
	}
	if m := hydraSignal.FindStringSubmatch(l); m != nil {
		s.first = &rankDeath{rank: -1, signal: syscall.Signal(atoi(m[1], 0))}
		return
	}
	if m := srunDeath.FindStringSubmatch(l); m != nil {
		if sig := signalByDescription(m[3]); sig != 0 {
			s.first = &rankDeath{rank: atoi(m[2], -1), host: m[1], signal: sig}
		}
	}
}

// death returns the first rank death seen, if any, and when it was read.
func (s *deathScanner) death() (rankDeath, time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		return rankDeath{}, time.Time{}, false
	}
	return *s.first, s.seen, true
}

// startupTimedOut returns when the first of the scanners read that a
// rank's start-up outlasted its limit.
func startupTimedOut(scanners ...*deathScanner) (time.Time, bool) {
	for _, s := range scanners {
		s.mu.Lock()
		at := s.timedOut
		s.mu.Unlock()
		if !at.IsZero() {
			return at, true
		}
	}
	return time.Time{}, false
}

// firstDeath returns the death the first of the scanners saw.
func firstDeath(scanners ...*deathScanner) (rankDeath, time.Time, bool) {
	for _, s := range scanners {
		if d, at, ok := s.death(); ok {
			return d, at, true
		}
	}
	return rankDeath{}, time.Time{}, false
}

// signalByDescription finds the signal whose description (strsignal, as
// srun prints it: "Killed", "Segmentation fault") is desc; 0 if none.
func signalByDescription(desc string) syscall.Signal {
	desc = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(desc), "(core dumped)"))
	for s := syscall.Signal(1); s < 32; s++ {
		if strings.EqualFold(s.String(), desc) {
			return s
		}
	}
	return 0
}

func atoi(s string, otherwise int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return otherwise
	}
	return n
}
