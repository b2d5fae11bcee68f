# Thin wrappers over the go command. See README.md.
GO      ?= go
FUZZTIME ?= 30s
export CGO_ENABLED = 0

.PHONY: build test bench bench-report bench-attack fuzz demo lint fixtures golden
build:
	$(GO) build -o bin/usmnscope ./cmd/usmnscope

# bench/gotest.sh is go test -json summarised: go test's lines, plus each
# skipped test with its reason (plain go test hides them).
# The packages with goroutines (the TUI's feeder and ticker, live capture,
# the simulator, the index read while it is fed) also run under the race
# detector, which needs cgo and a C compiler: without one the run is skipped
# with the reason, unless RACE_REQUIRED is set (.ci/run sets it). -short
# leaves out the subprocess tests, which the plain run has covered.
RACE_PKGS ?= ./session ./capture ./scenario ./internal/pipeline ./views ./cmd/usmnscope
test:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then \
	  echo "gofmt: these files are not formatted (run gofmt -w):"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GO=$(GO) ./bench/gotest.sh -count=1 ./...
	@if command -v $${CC:-gcc} >/dev/null 2>&1; then \
	  echo "CGO_ENABLED=1 $(GO) test -race -short -count=1 $(RACE_PKGS)"; \
	  CGO_ENABLED=1 GO=$(GO) ./bench/gotest.sh -race -short -count=1 $(RACE_PKGS); \
	elif [ -n "$(RACE_REQUIRED)" ]; then \
	  echo "race: no C compiler ($${CC:-gcc}) and RACE_REQUIRED is set"; exit 1; \
	else \
	  echo "race: skipped: no C compiler ($${CC:-gcc}) for -race (cgo); .ci/run installs gcc"; \
	fi

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# Regenerates the issue-7 scale figures (1M-message capture vs tshark, TUI
# memory and benchmarks, live on lo); see bench/README.md. Not part of test.
bench-report:
	./bench/report.sh

# Builds each hostile capture shape of issue 17 at its size and prints peak
# RSS and time of dump/tables --json (<= 160 MB) and the TUI's load against
# dump's (<= 2x); see bench/README.md. SMALL=1 for a quick run. Not part of test.
bench-attack:
	./bench/attack.sh

# Each fuzz target runs for FUZZTIME (go test allows one -fuzz target per run).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s $$pkg || exit 1; \
	  done; \
	done

# Opens the schema fixture with the fixtures' payload schemas (issue 14).
demo: build
	./bin/usmnscope open $(addprefix --schema ,$(sort $(wildcard fixtures/schemas/*.toml))) fixtures/captures/usmn-schemas.pcapng

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l:"; echo "$$out"; exit 1; fi

# Regenerate fixture captures and golden outputs. scenario writes the
# captures the other packages' goldens are made from, so it runs first
# (go test runs packages in parallel). Only packages with golden files
# define -update; a test binary without it rejects the flag.
GOLDEN_PKGS ?= ./unturned ./session ./rpc ./capture ./cmd/usmnscope ./views
fixtures golden:
	$(GO) test -count=1 ./scenario -run 'Golden' -update
	$(GO) test -count=1 $(GOLDEN_PKGS) -run 'Golden' -update
