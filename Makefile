# lmdbio — make targets. `make demo` and `make test` do all set-up themselves.
GO      ?= go
BIN     := bin
MPITAGS ?=
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: all deps build lib examples test test-unit test-mpi test-multihost test-slurm test-nompi test-mpich test-bindings demo bench bench-campaign lint clean

all: build

deps:
	@scripts/deps.sh

build:
	$(GO) build -tags '$(MPITAGS)' -o $(BIN)/lmdbio ./cmd/lmdbio
	$(GO) build -o $(BIN)/pfsemu ./bench/pfsemu

# lib: the C library, lib/liblmdbio.so, for include/lmdbio.h, with
# lib/pkgconfig/lmdbio.pc (cgo's own header is not for users: removed).
lib:
	$(GO) build -tags '$(MPITAGS)' -buildmode=c-shared -o lib/liblmdbio.so ./cmd/liblmdbio
	@rm -f lib/liblmdbio.h
	@mkdir -p lib/pkgconfig
	sed 's/@VERSION@/$(shell sed -n 's/^#define LMDBIO_VERSION "\(.*\)"/\1/p' include/lmdbio.h)/' cmd/liblmdbio/lmdbio.pc.in >lib/pkgconfig/lmdbio.pc

# examples: the programs over the C library (bin/caffe-mpi-example, bin/c-digest-example).
examples: lib
	$(MAKE) -C examples BIN=$(abspath $(BIN))

# test: unit tests, the build without MPI, multi-rank tests under mpirun, and
# the Slurm tests when CI or LMDBIO_SLURM_TESTS=1 is set.
test: deps build lint test-unit test-nompi test-mpi test-multihost test-bindings test-slurm
	@echo "make test: all passed"

test-unit:
	$(GO) test -tags '$(MPITAGS)' -count=1 ./...

test-nompi:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/lmdbio
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
	scripts/deps.sh --mpich
	$(MAKE) build test-unit test-mpi MPITAGS=mpich

demo: deps build
	scripts/demo.sh

# bench: the Go micro-benchmarks (page parser, index build, planner, span
# reads, shared-memory hand-off, MPI collectives). bench-campaign: the whole
# comparison behind bench/results (about 30 minutes; see bench/README.md).
bench: deps build
	$(GO) test -run '^$$' -bench . -benchtime 20x ./pkg/... ./mpi/...

bench-campaign: deps build
	bench/run.sh

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l cmd pkg mpi bench 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf $(BIN) lib examples/.build
