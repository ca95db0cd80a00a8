package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lmdbio/lmdbio/bench/pfsemu/emu"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // a runtime failure: mount, unmount, stats file
	exitUsage   = 2 // bad flags or arguments
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	cfg, err := parseArgs(args, os.Stdout) // where --help goes
	switch {
	case errors.Is(err, pflag.ErrHelp):
		return exitOK
	case err != nil:
		fmt.Fprintf(os.Stderr, "pfsemu: %v\n", err)
		return exitUsage
	}
	spliceOrRestart(cfg.opt.MaxRequest)
	if err := serve(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "pfsemu: %v\n", err)
		if errors.Is(err, emu.ErrOption) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// restartedEnv marks the process that spliceOrRestart started, so that it
// never starts another.
const restartedEnv = "PFSEMU_RESTARTED"

// spliceOrRestart makes room for spliced replies. go-fuse reads how large a
// pipe may grow when the process starts; when the largest reply would not
// fit and pfsemu runs as root, it raises the limit and starts pfsemu again
// in this process's place. It returns when pfsemu goes on as it is: then
// replies that do not fit are copied, as the serving line says.
func spliceOrRestart(maxRequest int64) {
	if emu.SpliceFits(maxRequest) || os.Geteuid() != 0 || os.Getenv(restartedEnv) != "" {
		return
	}
	limit, err := emu.RaisePipeMax(maxRequest)
	if err == nil {
		fmt.Fprintf(os.Stderr, "pfsemu: raised the largest pipe to %d bytes, so that replies can be spliced\n", limit)
		os.Setenv(restartedEnv, "1")
		err = syscall.Exec("/proc/self/exe", os.Args, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "pfsemu: replies will be copied, not spliced: %v\n", err)
}

// serve mounts, reports until told to stop, and unmounts on every path out.
func serve(cfg config) (err error) {
	// Listen before mounting: a SIGTERM that arrives while the mount is
	// being set up must still lead to an unmount, not a stale mount.
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1)
	defer signal.Stop(sig)

	// Mount would detach a stale mount too; doing it first lets us say so.
	if stale, err := emu.CleanStale(cfg.mnt); err != nil {
		return err
	} else if stale {
		fmt.Fprintf(os.Stderr, "pfsemu: detached a stale FUSE mount at %s\n", cfg.mnt)
	}
	srv, err := emu.Mount(cfg.src, cfg.mnt, cfg.opt)
	if err != nil {
		return err
	}
	defer func() {
		uerr := srv.Unmount()
		st := srv.Stats()
		fmt.Println(statsLine(st))
		if cfg.statsFile != "" {
			if serr := writeStats(cfg.statsFile, st); serr != nil && err == nil {
				err = serr
			}
		}
		if cfg.readyFile != "" {
			os.Remove(cfg.readyFile) // not mounted any more
		}
		if uerr != nil && err == nil {
			err = uerr
		}
	}()

	if cfg.statsFile != "" {
		if err := writeStats(cfg.statsFile, srv.Stats()); err != nil {
			return err
		}
	}
	if cfg.readyFile != "" {
		if err := os.WriteFile(cfg.readyFile, []byte(srv.Mountpoint()+"\n"), 0o644); err != nil {
			return fmt.Errorf("ready file: %w", err)
		}
	}
	fmt.Printf("pfsemu: serving %s at %s (%s, bdi %s)\n", srv.Source(), srv.Mountpoint(), describe(cfg.opt, srv), srv.Bdi())

	gone := make(chan struct{})
	go func() { srv.Wait(); close(gone) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGUSR1 {
				fmt.Println(statsLine(srv.Stats()))
				continue
			}
			return nil
		case <-gone:
			return fmt.Errorf("%s was unmounted by someone else", srv.Mountpoint())
		case <-tick.C:
			if cfg.statsFile != "" {
				if err := writeStats(cfg.statsFile, srv.Stats()); err != nil {
					return err
				}
			}
		}
	}
}

// describe is the configuration as the kernel applied it.
func describe(opt emu.Options, srv *emu.Server) string {
	opt.Readahead = srv.Readahead()
	if opt.Readahead == 0 {
		opt.Readahead = emu.NoReadahead
	}
	how := "replies copied"
	if srv.Splices() {
		how = "replies spliced"
	}
	return opt.String() + ", " + how
}
