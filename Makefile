# Proctor. `make run` starts the demo; `make test` runs the test suite. Both need only Go.

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
TESTFLAGS ?=
# Fuzz targets and how long `make fuzz` gives each.
FUZZTIME  ?= 30s
SOAKFLAGS ?=
# The demo's ports: `make run PORT=9090` serves the schools on 9090 and /healthz, /metrics and
# the captured mail on INTERNAL_PORT (PORT+1 unless given).
PORT          ?= 8080
INTERNAL_PORT ?= $(shell expr $(PORT) + 1)

.PHONY: run build test vet fmt fuzz e2e bench soak clean help

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

run: ## run the demo: two schools on 127.0.0.1:PORT and localhost:PORT (8080), data under ./var
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/proctor demo --addr 127.0.0.1:$(PORT) --internal-addr 127.0.0.1:$(INTERNAL_PORT)

build: ## build bin/proctor
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/proctor ./cmd/proctor

test: vet ## run every test (PostgreSQL too when PROCTOR_TEST_POSTGRES_DSN is set)
	$(GO) test $(TESTFLAGS) ./...

vet: ## go vet and a gofmt check
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

fuzz: ## run every fuzz target for FUZZTIME each
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

e2e: ## end-to-end OAuth flow in headless chromium (needs Node.js and /usr/bin/chromium)
	@[ -d e2e/node_modules ] || (cd e2e && npm ci --no-audit --no-fund)
	bash e2e/run.sh

bench: build ## load-test a server on loopback as docs/benchmarks.md did (PostgreSQL too with BENCH_PG_DSN or PROCTOR_TEST_POSTGRES_DSN)
	bin/proctor bench --database sqlite --json bin/bench-sqlite.json --chart bin/bench-sqlite.svg
	@dsn="$${BENCH_PG_DSN:-$$PROCTOR_TEST_POSTGRES_DSN}"; \
	  if [ -n "$$dsn" ]; then \
	    echo "bin/proctor bench --database postgres --dsn [set] --json bin/bench-postgres.json --chart bin/bench-postgres.svg"; \
	    bin/proctor bench --database postgres --dsn "$$dsn" --json bin/bench-postgres.json --chart bin/bench-postgres.svg; \
	  else \
	    echo "PostgreSQL skipped: set BENCH_PG_DSN or PROCTOR_TEST_POSTGRES_DSN"; \
	  fi

soak: build ## a 5-minute soak at 70% of peak on SQLite, as docs/benchmarks.md did (SOAKFLAGS for PostgreSQL)
	bin/proctor bench --soak $(SOAKFLAGS) --json bin/soak.json --chart bin/soak.svg

clean: ## remove build output and the demo data
	rm -rf bin var
