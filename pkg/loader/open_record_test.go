package loader

import (
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/lmdbio/lmdbio/mpi"
	"github.com/lmdbio/lmdbio/pkg/topology"
)

// openRecorder logs the collectives Open's steps make, per communicator,
// for TestMPIOpenCollectives. Before each one it checks, with an Allreduce
// of its own, that every member of the communicator is about to make the
// same one: a collective made on some ranks only then fails at once on
// the ranks that diverge, naming the step, instead of pairing with another
// collective; a rank left waiting on a communicator the others left ends
// the job after openPatience, saying where it waits. Open's steps make
// their collectives from one goroutine.
type openRecorder struct {
	logs     map[string][]openCall // by communicator: world, leaders, local
	diverged error                 // the first collective the members did not all make
}

// openCall is one collective as a rank saw it.
type openCall struct {
	kind  string
	root  int    // -1 where there is none
	count int    // bytes or elements; -1 where it may differ between ranks
	from  string // the loader's functions on the stack, innermost first
}

func (c openCall) String() string {
	return fmt.Sprintf("%s root=%d count=%d from %s", c.kind, c.root, c.count, c.from)
}

// recordingComm is a communicator of Open whose collectives r logs.
type recordingComm struct {
	r     *openRecorder
	name  string
	inner collective
}

func (c recordingComm) Rank() int { return c.inner.Rank() }
func (c recordingComm) Size() int { return c.inner.Size() }

func (c recordingComm) Bcast(buf []byte, root int) error {
	if err := c.r.check(c, openCall{kind: "bcast", root: root, count: len(buf)}); err != nil {
		return err
	}
	return c.inner.Bcast(buf, root)
}

func (c recordingComm) AllreduceInt64(send, recv []int64, op mpi.Op) error {
	if err := c.r.check(c, openCall{kind: fmt.Sprintf("allreduce(%v)", op), root: -1, count: len(send)}); err != nil {
		return err
	}
	return c.inner.AllreduceInt64(send, recv, op)
}

func (c recordingComm) GatherBytes(mine []byte, root int) ([][]byte, error) {
	if err := c.r.check(c, openCall{kind: "gatherbytes", root: root, count: -1}); err != nil {
		return nil, err
	}
	return c.inner.GatherBytes(mine, root)
}

func (c recordingComm) Split(color, key int) (*mpi.Comm, error) {
	if err := c.r.check(c, openCall{kind: "split", root: -1, count: -1}); err != nil {
		return nil, err
	}
	return c.inner.Split(color, key)
}

// wrap is openComms with every communicator recorded.
func (r *openRecorder) wrap(t *topology.Topology) comms {
	c := comms{world: recordingComm{r, "world", t.World}, local: recordingComm{r, "local", t.Local}}
	if t.Leaders != nil {
		c.leaders = recordingComm{r, "leaders", t.Leaders}
	}
	return c
}

// check logs call on c's communicator and makes sure every member makes
// the same one: the largest and the smallest hash of it agree.
func (r *openRecorder) check(c recordingComm, call openCall) error {
	call.from = callers()
	n := len(r.logs[c.name])
	h := hashOf(call.String())
	out := make([]int64, 2)
	stuck := time.AfterFunc(openPatience, func() { r.stuck(c.name, n, call) })
	err := c.inner.AllreduceInt64([]int64{h, -h}, out, mpi.Max)
	stuck.Stop()
	if err != nil {
		return err
	}
	if out[0] != h || -out[1] != h {
		err := fmt.Errorf("collective %d on %s: not every member makes it; this rank makes %v", n, c.name, call)
		if r.diverged == nil {
			r.diverged = err
		}
		return err
	}
	r.logs[c.name] = append(r.logs[c.name], call)
	return nil
}

// openPatience bounds the wait for the other members of a communicator at
// a collective of Open on a test's small datasets; past it, a rank is
// taken to wait for members that left the steps, or that wait on another
// communicator.
const openPatience = 30 * time.Second

// stuck ends the job when this rank waited openPatience for the other
// members at collective n on comm, saying what this rank made so far.
func (r *openRecorder) stuck(comm string, n int, call openCall) {
	var b strings.Builder
	fmt.Fprintf(&b, "rank %d: waited %v for the other members of %s at its collective %d, %v: they left Open's steps or wait on another communicator. This rank made:\n",
		mpi.World().Rank(), openPatience, comm, n, call)
	for _, name := range []string{"world", "leaders", "local"} {
		for i, c := range r.logs[name] {
			fmt.Fprintf(&b, "  %s %d: %v\n", name, i, c)
		}
	}
	fmt.Fprint(os.Stderr, b.String())
	mpi.Abort(1)
}

// callers names the loader's functions on the stack above the recorder,
// innermost first, up to the entry point (Open, Serve).
func callers() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	const pkg = "github.com/lmdbio/lmdbio/pkg/loader."
	var names []string
	for {
		f, more := frames.Next()
		name, ours := strings.CutPrefix(f.Function, pkg)
		if ours && !strings.Contains(name, "recordingComm") {
			names = append(names, name)
		}
		if !more || name == "Open" || name == "Serve" {
			break
		}
	}
	return strings.Join(names, "<")
}

// hashOf is s's hash, positive so that its negation is one too.
func hashOf(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64() >> 1)
}

// compare checks that every member of each of t's communicators logged the
// same sequence of collectives, and returns how many this rank logged on
// each. Collective over t's communicators.
func (r *openRecorder) compare(t *topology.Topology) (map[string]int, error) {
	comms := map[string]*mpi.Comm{"world": t.World, "local": t.Local}
	if t.Leaders != nil {
		comms["leaders"] = t.Leaders
	}
	counts := map[string]int{}
	err := r.diverged
	for _, name := range []string{"world", "leaders", "local"} {
		c, ok := comms[name]
		if !ok {
			continue
		}
		var seq strings.Builder
		for _, call := range r.logs[name] {
			fmt.Fprintln(&seq, call)
		}
		counts[name] = len(r.logs[name])
		h, n := hashOf(seq.String()), int64(counts[name])
		out := make([]int64, 4)
		if e := c.AllreduceInt64([]int64{h, -h, n, -n}, out, mpi.Max); e != nil {
			return nil, e
		}
		if (out[0] != h || -out[1] != h || out[2] != n || -out[3] != n) && err == nil {
			err = fmt.Errorf("the members of %s made different collectives in Open; this rank made %d:\n%s", name, n, seq.String())
		}
	}
	return counts, err
}
