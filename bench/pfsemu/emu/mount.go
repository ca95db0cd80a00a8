package emu

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Server is a mounted emulated file system.
type Server struct {
	srv       *fuse.Server
	src, mnt  string
	opt       Options
	emu       *emulator
	start     time.Time
	bdi       string
	readahead int64

	once       sync.Once
	unmountErr error
}

// Mount serves the directory src read-only at the directory mnt with the
// cost model of opt, and returns once the kernel has accepted the mount.
// A stale FUSE mount at mnt (its server died) is detached first. As root the
// mount is made with mount(2) directly; otherwise fusermount is used, and
// only a readahead of at most 128 KiB can be set.
func Mount(src, mnt string, opt Options) (*Server, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	src, err := canonicalDir(src)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	mnt, err = canonicalMountpoint(mnt)
	if err != nil {
		return nil, fmt.Errorf("mount point: %w", err)
	}
	if _, err := cleanStale(mnt); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(mnt); err != nil {
		return nil, fmt.Errorf("mount point: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("mount point %s is not a directory", mnt)
	}

	e := &emulator{latency: opt.Latency, directIO: opt.DirectIO, now: time.Now}
	if opt.Bandwidth > 0 {
		// A burst of 10 ms of bandwidth, but at least one request: an idle
		// system answers a burst of requests a little faster, as real
		// storage with caches and queues does.
		burst := max(opt.MaxRequest, int64(opt.Bandwidth/100))
		e.bucket = NewBucket(opt.Bandwidth, burst, time.Now())
	}
	if opt.Servers > 0 {
		state, err := openState(opt)
		if err != nil {
			return nil, err
		}
		e.servers = NewServers(opt.layout(), opt.serverCost(), state)
		e.c.perServer = make([]atomic.Int64, opt.Servers)
	}
	// A shared state stays mapped while the process lives: requests of a
	// lazily detached mount may still be served after Unmount. Only a mount
	// that never happened unmaps it.
	mounted := false
	defer func() {
		if !mounted && e.servers != nil {
			e.servers.state.Close()
		}
	}()
	root, err := newRoot(src, e)
	if err != nil {
		return nil, err
	}
	root.LoopbackNode.RootData.RootNode = root

	second := time.Second
	asRoot := os.Geteuid() == 0
	mo := fuse.MountOptions{
		FsName:      src,
		Name:        "pfsemu",
		Options:     []string{"ro"},
		DirectMount: asRoot,
		AllowOther:  asRoot, // a benchmark may run as another user than the mount
		MaxWrite:    int(opt.MaxRequest),
		// The INIT reply can only lower the kernel's readahead; setReadahead
		// raises it afterwards if asked.
		MaxReadAhead: int(min(max(opt.readaheadBytes(), 4096), opt.MaxRequest)),
		// Passthrough would let the kernel read the source directly.
		DisabledCapabilities: fuse.CAP_PASSTHROUGH,
		// ASYNC_DIO: a large O_DIRECT read goes out as several requests in
		// flight at once, as a parallel file system client keeps several
		// RPCs in flight; without it they would be sent one after another.
		// DIRECT_IO_ALLOW_MMAP: with --direct-io, mmap readers still work.
		// The kernel grants each only if it offers it.
		ExtraCapabilities: fuse.CAP_ASYNC_DIO | fuse.CAP_DIRECT_IO_ALLOW_MMAP,
		Debug:             opt.Debug,
		// Replies that cannot be spliced are copied; saying so once
		// beats go-fuse's log line for every one of them.
		DisableSplice: !SpliceFits(opt.MaxRequest),
	}
	if opt.Debug {
		mo.Logger = log.New(os.Stderr, "pfsemu: ", log.Lmicroseconds)
	}
	srv, err := fs.Mount(mnt, root, &fs.Options{MountOptions: mo, EntryTimeout: &second, AttrTimeout: &second})
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", mnt, err)
	}
	s := &Server{srv: srv, src: src, mnt: mnt, opt: opt, emu: e, start: time.Now()}
	mounted = true
	if err := s.setup(); err != nil {
		if uerr := s.Unmount(); uerr != nil {
			err = fmt.Errorf("%w (and unmount: %v)", err, uerr)
		}
		return nil, err
	}
	return s, nil
}

// openState returns the servers' queues: the shared file if one is named,
// else process memory.
func openState(opt Options) (*ServerState, error) {
	if opt.ServerState == "" {
		return NewServerState(opt.Servers), nil
	}
	return OpenServerState(opt.ServerState, opt.layout(), opt.serverCost())
}

// setup finds the mount's bdi and sets its readahead.
func (s *Server) setup() error {
	bdi, err := bdiOf(s.mnt)
	if err != nil {
		return err
	}
	s.bdi = bdi
	s.readahead, err = setReadahead(bdi, s.opt.readaheadBytes())
	return err
}

// newRoot makes the root node of a loopback of src whose nodes are ours.
func newRoot(src string, e *emulator) (*node, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(src, &st); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	data := &fs.LoopbackRoot{Path: src, Dev: uint64(st.Dev)}
	return &node{LoopbackNode: &fs.LoopbackNode{RootData: data}, emu: e}, nil
}

// Stats returns the counters so far and the configuration.
func (s *Server) Stats() Stats {
	st := s.emu.c.snapshot(s.start, time.Now())
	st.Latency = s.opt.Latency.String()
	st.MaxRequest = s.opt.MaxRequest
	st.Readahead = s.readahead
	st.Bandwidth = s.opt.Bandwidth
	st.DirectIO = s.opt.DirectIO
	st.Splice = s.Splices()
	if s.opt.Servers > 0 {
		st.Servers = describeServers(s.opt.layout(), s.opt.serverCost())
	}
	st.Source = s.src
	st.Mountpoint = s.mnt
	return st
}

// Source returns the served directory (absolute).
func (s *Server) Source() string { return s.src }

// Mountpoint returns where the file system is mounted (absolute).
func (s *Server) Mountpoint() string { return s.mnt }

// Bdi returns the mount's backing-device name, "major:minor", as found under
// /sys/class/bdi.
func (s *Server) Bdi() string { return s.bdi }

// Splices reports whether the mount's replies go from the source's page
// cache to the FUSE device by splice(2), without a copy through this
// process (SpliceFits).
func (s *Server) Splices() bool { return SpliceFits(s.opt.MaxRequest) }

// Readahead returns the readahead in bytes the kernel applies to the mount.
func (s *Server) Readahead() int64 { return s.readahead }

// Wait returns when the file system stops being served: after Unmount, or
// when someone else unmounts it.
func (s *Server) Wait() { s.srv.Wait() }

// Unmount unmounts the file system. If it is busy (a process has a file open
// or its working directory in it), the mount is detached lazily instead, so
// no mount is left behind in the namespace; the busy processes get errors
// once this process exits. Unmount may be called more than once.
func (s *Server) Unmount() error {
	s.once.Do(func() {
		err := s.srv.Unmount()
		if err == nil {
			return
		}
		if derr := syscall.Unmount(s.mnt, syscall.MNT_DETACH); derr != nil && !errors.Is(derr, syscall.EINVAL) {
			s.unmountErr = fmt.Errorf("unmount %s: %v; lazy unmount: %w", s.mnt, strings.TrimSpace(err.Error()), derr)
		}
	})
	return s.unmountErr
}

// CleanStale detaches a stale FUSE mount at mnt: one whose server is gone,
// so that every access fails with ENOTCONN. It reports whether it detached
// one. A live mount, FUSE or not, is an error: it is not ours to take over.
// Mount calls it; a command may call it first to tell the user.
func CleanStale(mnt string) (bool, error) {
	mnt, err := canonicalMountpoint(mnt)
	if err != nil {
		return false, fmt.Errorf("mount point: %w", err)
	}
	return cleanStale(mnt)
}

// cleanStale is CleanStale for an absolute path free of symlinks.
func cleanStale(mnt string) (bool, error) {
	m, ok, err := MountAt(mnt)
	if err != nil || !ok {
		return false, err
	}
	serr := statWithin(mnt, 3*time.Second)
	stale := errors.Is(serr, syscall.ENOTCONN) || errors.Is(serr, syscall.ECONNABORTED) ||
		// A server that is stopped or hung never answers; only our own
		// kind is detached for that, someone else's may just be slow.
		(errors.Is(serr, errUnresponsive) && m.FSType == "fuse.pfsemu")
	switch {
	case stale && strings.HasPrefix(m.FSType, "fuse"):
		if err := syscall.Unmount(mnt, syscall.MNT_DETACH); err != nil {
			return false, fmt.Errorf("detach stale mount %s: %w", mnt, err)
		}
		return true, nil
	case serr != nil:
		return false, fmt.Errorf("mount point %s (%s): %w", mnt, m.FSType, serr)
	}
	return false, fmt.Errorf("%s is already a mount point (%s); unmount it first", mnt, m.FSType)
}

// errUnresponsive: a stat did not return in time.
var errUnresponsive = errors.New("file system does not answer")

// statWithin stats path, giving up after d. A stat of a FUSE mount whose
// server hangs blocks until the server answers; the goroutine left behind
// ends when the mount is detached or the process exits.
func statWithin(path string, d time.Duration) error {
	done := make(chan error, 1)
	go func() {
		var st syscall.Stat_t
		done <- syscall.Stat(path, &st)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		return fmt.Errorf("stat %s: %w within %v", path, errUnresponsive, d)
	}
}

// canonicalDir returns the absolute, symlink-free path of an existing
// directory.
func canonicalDir(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return "", err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return p, nil
}

// canonicalMountpoint resolves symlinks in the parent only: the mount point
// itself may be a dead FUSE mount that cannot be looked at, and the mount
// table names it by this path.
func canonicalMountpoint(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}
