# lmdbio — make targets. `make demo` and `make test` do all set-up themselves.
GO      ?= go
BIN     := bin
PREFIX  ?= /usr/local
DESTDIR ?=
# MPITAGS picks the MPI: empty finds it (pkg-config mpi, else what
# scripts/mpi-flags.sh finds: pkg-config ompi-c, ompi or mpich, or mpicc,
# built with the tag mpiflags); mpich links MPICH; mpiflags always asks the
# script; nompi builds without MPI.
MPITAGS ?=
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

# MPIENV starts a recipe line that builds against MPI. It runs when the line
# runs, after deps has installed what was missing, and sets MPITAGS (and,
# for the mpiflags tag, CGO_CFLAGS and CGO_LDFLAGS): use "$$MPITAGS" after it.
MPIENV = eval "$$(scripts/mpi-flags.sh --env '$(MPITAGS)')" &&
# H5ENV follows MPIENV where bin/lmdbio is linked: libhdf5 from its static
# archive when one is installed, which spares every process the 31 shared
# libraries the distribution's libhdf5 pulls in (scripts/hdf5-flags.sh;
# HDF5_STATIC=no links the shared library). Only there: its CGO_LDFLAGS,
# inherited, would give the C library (make lib, also run by tests) an
# archive it cannot link.
H5ENV = eval "$$(scripts/hdf5-flags.sh $(abspath $(BIN))/.hdf5)" &&

# The Slurm tests run under CI or with LMDBIO_SLURM_TESTS=1; only then does
# make test need Slurm.
SLURM_DEPS = $(if $(or $(CI),$(filter 1,$(LMDBIO_SLURM_TESTS))),--slurm)

.PHONY: all deps build lib examples install test test-unit test-mpi test-multihost test-slurm test-nompi test-mpich test-bindings test-peers demo bench bench-campaign lint clean

all: build

# deps: what make test needs (scripts/deps.sh installs only what is missing).
deps:
	@scripts/deps.sh $(strip --test $(SLURM_DEPS))

build:
	$(MPIENV) $(H5ENV) $(GO) build -tags "$$MPITAGS" -ldflags '$(LDFLAGS)' -o $(BIN)/lmdbio ./cmd/lmdbio
	$(MPIENV) $(H5ENV) $(GO) build -tags "$$MPITAGS" -o $(BIN)/lmdbio-bench ./cmd/lmdbio-bench
	$(GO) build -o $(BIN)/pfsemu ./bench/pfsemu

# lib: the C library, lib/liblmdbio.so, for include/lmdbio.h, with
# lib/pkgconfig/lmdbio.pc (cgo's own header is not for users: removed).
lib:
	$(MPIENV) $(GO) build -tags "$$MPITAGS" -buildmode=c-shared -o lib/liblmdbio.so ./cmd/liblmdbio
	@rm -f lib/liblmdbio.h
	@mkdir -p lib/pkgconfig
	sed 's/@VERSION@/$(shell sed -n 's/^#define LMDBIO_VERSION "\(.*\)"/\1/p' include/lmdbio.h)/' cmd/liblmdbio/lmdbio.pc.in >lib/pkgconfig/lmdbio.pc

# examples: the programs over the C library (bin/caffe-mpi-example, bin/c-digest-example).
examples: lib
	$(MAKE) -C examples BIN=$(abspath $(BIN))

# install: the command and its shell completions, the C library, its header
# and its pkg-config file under $(DESTDIR)$(PREFIX).
install: build lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN)/lmdbio $(DESTDIR)$(PREFIX)/bin/lmdbio
	install -m 755 $(BIN)/lmdbio-bench $(DESTDIR)$(PREFIX)/bin/lmdbio-bench
	install -m 755 lib/liblmdbio.so $(DESTDIR)$(PREFIX)/lib/liblmdbio.so
	install -m 644 include/lmdbio.h $(DESTDIR)$(PREFIX)/include/lmdbio.h
	install -m 644 lib/pkgconfig/lmdbio.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/lmdbio.pc
	$(BIN)/lmdbio completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/lmdbio
	$(BIN)/lmdbio completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_lmdbio
	$(BIN)/lmdbio completion fish >$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/lmdbio.fish

# test: unit tests, the build without MPI, multi-rank tests under mpirun, and
# the Slurm tests when CI or LMDBIO_SLURM_TESTS=1 is set.
test: deps build lint test-unit test-nompi test-mpi test-multihost test-bindings test-slurm
	@echo "make test: all passed"

test-unit:
	$(MPIENV) $(GO) test -tags "$$MPITAGS" -count=1 ./...

test-nompi:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/lmdbio ./cmd/lmdbio-bench
	$(GO) test -tags nompi -count=1 ./mpi/... ./pkg/topology/...

test-mpi: build
	MPITAGS='$(MPITAGS)' scripts/mpi-tests.sh

# test-bindings: the C library, the Caffe-MPI example and the Python binding
# under mpirun (see examples/test.sh).
test-bindings: build examples
	examples/test.sh

# test-multihost: a job on 2 emulated hosts (scripts/multihost.sh), skipped
# where this machine does not allow namespaces.
test-multihost: build
	scripts/multihost-tests.sh

test-slurm: build
	@if [ -n "$$CI" ] || [ "$$LMDBIO_SLURM_TESTS" = 1 ]; then scripts/slurm-tests.sh; \
	else echo "test-slurm: skipped (set LMDBIO_SLURM_TESTS=1 or CI=true)"; fi

# test-mpich builds and tests against MPICH instead of OpenMPI.
test-mpich:
	scripts/deps.sh --test --mpich
	$(MAKE) build test-unit test-mpi MPITAGS=mpich

# demo needs what building and running need, no test tools and no Slurm.
demo:
	@scripts/deps.sh
	$(MAKE) build
	scripts/demo.sh

# bench: the Go micro-benchmarks (page parser, index build, planner, span
# reads, shared-memory hand-off, MPI collectives). bench-campaign: the whole
# comparison behind bench/results (about 70 minutes; BENCH_PARTS picks parts:
# local pfs python hosts stagger pagerpc shuffle amp hdf5 model report; see
# bench/README.md).
bench: deps build
	$(MPIENV) $(GO) test -tags "$$MPITAGS" -run '^$$' -bench . -benchtime 20x ./pkg/... ./internal/... ./mpi/...

bench-campaign: deps build
	bench/run.sh $(BENCH_PARTS)

# test-peers: the benchmark's peer baselines read every record exactly once
# (bench/peers/selftest.sh; installs PyTorch and mpi4py).
test-peers: build lib
	scripts/deps.sh --peers
	bench/peers/selftest.sh

lint:
	$(MPIENV) $(GO) vet -tags "$$MPITAGS" ./...
	@out=$$(gofmt -l cmd pkg internal mpi bench scripts 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf $(BIN) lib examples/.build
