package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/lmdbio/lmdbio/internal/agent"
	"github.com/lmdbio/lmdbio/internal/cli"
)

// learnerPlace is where a node's learners stand in the job, and where
// torch.distributed finds its rendezvous: what torchrun tells its workers.
type learnerPlace struct {
	node, nodes, perNode int
	host                 string // the agent's, for messages
	masterAddr           string
	masterPort           int
	socket               string // the agent's
}

// learnerEnv is the environment of learner local: the agent's, without
// what would make the learner take itself for one of the agent's MPI ranks,
// and with torchrun's variables.
func learnerEnv(base []string, p learnerPlace, local int) []string {
	rank := p.node*p.perNode + local
	world := p.nodes * p.perNode
	env := cli.WithoutRankEnv(base)
	set := func(name string, v any) { env = append(env, fmt.Sprintf("%s=%v", name, v)) }
	set("RANK", rank)
	set("LOCAL_RANK", local)
	set("WORLD_SIZE", world)
	set("LOCAL_WORLD_SIZE", p.perNode)
	set("GROUP_RANK", p.node)
	set("GROUP_WORLD_SIZE", p.nodes)
	set("ROLE_RANK", rank)
	set("ROLE_WORLD_SIZE", world)
	set("MASTER_ADDR", p.masterAddr)
	set("MASTER_PORT", p.masterPort)
	set(agent.AgentSocketEnv, p.socket)
	if os.Getenv("OMP_NUM_THREADS") == "" && p.perNode > 1 {
		set("OMP_NUM_THREADS", 1) // as torchrun: learners that share a node do not each take every core
	}
	return env // exec keeps the last value of a name given twice
}

// learnerExit is how one learner process ended.
type learnerExit struct {
	local  int
	state  *os.ProcessState
	waitOK bool
}

// learners are the processes an agent started, each in a process group of
// its own, so that a signal reaches what a learner started too (DataLoader
// workers).
type learners struct {
	place learnerPlace
	procs []*exec.Cmd
	exits chan learnerExit // one per learner, as each ends
	mu    sync.Mutex
	alive []bool
	gone  sync.WaitGroup
}

// startLearners starts the node's learners of argv; ready gets them
// before the first starts (to know them by pid as they connect). On
// failure the ones already started are stopped.
func startLearners(argv []string, p learnerPlace, ready func(*learners)) (*learners, error) {
	ls := &learners{place: p, exits: make(chan learnerExit, p.perNode), alive: make([]bool, p.perNode)}
	ready(ls)
	for local := range p.perNode {
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = learnerEnv(os.Environ(), p, local)
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		c.Stdin = learnerStdin(p, local)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			ls.stop(syscall.SIGKILL, 0)
			ls.gone.Wait()
			if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
				return nil, cli.InputError(fmt.Errorf("lmdbio run --agent: cannot start the learners: %w", err))
			}
			return nil, fmt.Errorf("lmdbio run --agent: cannot start the learners: %w", err)
		}
		ls.mu.Lock()
		ls.procs = append(ls.procs, c)
		ls.alive[local] = true
		ls.mu.Unlock()
		ls.gone.Add(1)
		go ls.wait(local)
	}
	return ls, nil
}

// learnerStdin is what learner local reads as stdin: the job's stdin for
// the job's first learner, as torchrun passes it on (python3 - <script runs
// the script), nothing for the others. The launcher gives the job's stdin
// to the first agent only. A terminal is not passed on: the learner runs in
// a process group of its own, which the terminal would stop (SIGTTIN) at
// its first read.
func learnerStdin(p learnerPlace, local int) *os.File {
	if p.node != 0 || local != 0 || term.IsTerminal(int(os.Stdin.Fd())) {
		return nil
	}
	return os.Stdin
}

func (ls *learners) wait(local int) {
	defer ls.gone.Done()
	err := ls.procs[local].Wait()
	ls.mu.Lock()
	ls.alive[local] = false
	ls.mu.Unlock()
	ls.exits <- learnerExit{local: local, state: ls.procs[local].ProcessState, waitOK: err == nil}
}

// signal sends sig to the process group of every learner still running.
func (ls *learners) signal(sig syscall.Signal) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for local, c := range ls.procs {
		if ls.alive[local] {
			_ = syscall.Kill(-c.Process.Pid, sig)
		}
	}
}

// stop sends sig to the learners and, if any is still running after grace,
// kills them all.
func (ls *learners) stop(sig syscall.Signal, grace time.Duration) {
	ls.signal(sig)
	done := make(chan struct{})
	go func() { ls.gone.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		ls.signal(syscall.SIGKILL)
	}
}

// describe names learner local for messages: its rank, where it ran, its
// pid.
func (ls *learners) describe(local int) string {
	p := ls.place
	return fmt.Sprintf("learner rank %d (local rank %d of node %d on %s, pid %d)",
		p.node*p.perNode+local, local, p.node, p.host, ls.procs[local].Process.Pid)
}

// failure says how a learner failed, and the exit status the job takes
// from it, or ok when it exited 0.
func (e learnerExit) failure() (ok bool, code int, how string) {
	ws, _ := e.state.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		return false, cli.ExitFailure, fmt.Sprintf("was killed by signal %d (%s)", int(ws.Signal()), signalName(ws.Signal()))
	case ws.ExitStatus() == 0 && e.waitOK:
		return true, cli.ExitOK, ""
	case ws.ExitStatus() == cli.ExitUsage:
		return false, cli.ExitUsage, "exited with status 2"
	}
	return false, cli.ExitFailure, "exited with status " + strconv.Itoa(ws.ExitStatus())
}

// owner says which learner process pid is or belongs to: the learner's own
// process, one in its process group (each learner leads its own), or a
// descendant of one that left the group. ok is false for any other
// process, and for a learner not started yet.
func (ls *learners) owner(pid int) (local int, ok bool) {
	ls.mu.Lock()
	leaders := make(map[int]int, len(ls.procs))
	for local, c := range ls.procs {
		leaders[c.Process.Pid] = local
	}
	ls.mu.Unlock()
	for range maxAncestry {
		if local, ok := leaders[pid]; ok {
			return local, true
		}
		ppid, pgid, ok := procParent(pid)
		if !ok {
			return 0, false
		}
		if local, ok := leaders[pgid]; ok {
			return local, true
		}
		if ppid <= 1 {
			return 0, false
		}
		pid = ppid
	}
	return 0, false
}

// maxAncestry bounds the walk up a process's parents.
const maxAncestry = 64

// procParent reads the parent and the process group of pid from
// /proc/PID/stat: "pid (comm) state ppid pgrp ...", where comm may hold
// spaces and parentheses, so the fields are counted from its last ')'.
func procParent(pid int) (ppid, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	return ppid, pgid, err1 == nil && err2 == nil
}
