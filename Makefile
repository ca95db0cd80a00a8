# lmdbio — make targets. `make demo` and `make test` do all set-up themselves.
GO      ?= go
BIN     := bin
MPITAGS ?=
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: all deps build test test-unit test-mpi test-multihost test-slurm test-nompi test-mpich demo bench bench-campaign lint clean

all: build

deps:
	@scripts/deps.sh

build:
	$(GO) build -tags '$(MPITAGS)' -o $(BIN)/lmdbio ./cmd/lmdbio
	$(GO) build -o $(BIN)/pfsemu ./bench/pfsemu

# test: unit tests, the build without MPI, multi-rank tests under mpirun, and
# the Slurm tests when CI or LMDBIO_SLURM_TESTS=1 is set.
test: deps build lint test-unit test-nompi test-mpi test-multihost test-slurm
	@echo "make test: all passed"

test-unit:
	$(GO) test -tags '$(MPITAGS)' -count=1 ./...

test-nompi:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/lmdbio
	$(GO) test -tags nompi -count=1 ./mpi/... ./pkg/topology/...

test-mpi: build
	MPITAGS='$(MPITAGS)' scripts/mpi-tests.sh

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
	rm -rf $(BIN)
