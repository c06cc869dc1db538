# encbench: the two set-up commands for a fresh Debian machine are
#   make run    install what is missing, build, run the built-in quick suite on local sandboxes
#   make test   install what is missing, vet, and run unit and integration tests

GO       ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN      := bin/encbench
RUN_DIR  := .sandbox
# chromium prints reports to PDF (--pdf); fonts-noto-cjk carries the
# Chinese and Japanese reports' script.
PKGS     := postgresql mariadb-server sysbench time postgresql-server-dev-15 libssl-dev gcc chromium fonts-noto-cjk
# The report tests open the reports in headless Chromium and read their
# PDFs with poppler's pdftoppm.
TEST_PKGS := poppler-utils
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps test-deps install-pkgs ore-ext ferretdb run seeds test vet fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/encbench

# Installs the server packages the sandboxes use, only when one is missing.
deps:
	@$(MAKE) --no-print-directory install-pkgs WANT="$(PKGS)"

test-deps:
	@$(MAKE) --no-print-directory install-pkgs WANT="$(PKGS) $(TEST_PKGS)"

install-pkgs:
	@missing=""; \
	for p in $(WANT); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

# The encbench_ore PostgreSQL extension (type ore and its btree operator
# class, for the ore column scheme), built with PGXS and installed into the
# system's PostgreSQL 15, whose binaries the sandboxes run.
ore-ext:
	$(MAKE) --no-print-directory -C tools/pg-ore with_llvm=no
	$(SUDO) $(MAKE) --no-print-directory -C tools/pg-ore with_llvm=no install >/dev/null

# Runs the built-in quick suite (PostgreSQL and MariaDB sandboxes, plain /
# tls / tde, about ten minutes on 2 cores) and writes its report.
# A server a killed earlier run left running from $(RUN_DIR) is stopped
# (and named) before the directory is deleted.
run: deps build ore-ext
	@$(BIN) sandbox prune --under $(RUN_DIR)/quick
	@rm -rf $(RUN_DIR)/quick && mkdir -p $(RUN_DIR) && chmod 755 $(RUN_DIR)
	$(BIN) suite run quick --out $(RUN_DIR)/quick
	@echo "open $(RUN_DIR)/quick/report.html (or read $(RUN_DIR)/quick/report.md)"

# Reproduces the four published reports (suites tls, tde, colenc-tpcc and
# colenc-sysbench) under one budget of at most two hours, with one report
# that sets each report's figures beside encbench's.
seeds: deps build ore-ext ferretdb
	@$(BIN) sandbox prune --under $(RUN_DIR)/seeds
	@rm -rf $(RUN_DIR)/seeds && mkdir -p $(RUN_DIR) && chmod 755 $(RUN_DIR)
	$(BIN) suite run seeds --out $(RUN_DIR)/seeds
	@echo "open $(RUN_DIR)/seeds/report.html (or read $(RUN_DIR)/seeds/report.md)"

vet:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@test -z "$$(gofmt -l cmd internal)" || { gofmt -l cmd internal; echo "gofmt needed"; exit 1; }

# FerretDB, the MongoDB wire-protocol server the mongodb sandbox runs (no
# MongoDB server package exists for Debian), built from its Go module
# through the module proxy; rebuilt only when its build script changes.
ferretdb: bin/ferretdb

bin/ferretdb: tools/ferretdb/build.sh
	GO=$(GO) bash tools/ferretdb/build.sh $@

test: test-deps vet ferretdb ore-ext
	ENCBENCH_REQUIRE_SERVERS=1 $(GO) test -count=1 -timeout 45m ./...
	@$(MAKE) --no-print-directory fuzz

# Native Go fuzzing, a short bounded time per target (FUZZTIME); inputs
# that failed are kept under each package's testdata/fuzz and rerun by
# every plain `go test`.
FUZZTIME ?= 10s
FUZZ_TARGETS := internal/engine/mysql:FuzzRowDecode internal/engine:FuzzParseTarget internal/engine:FuzzPasswordNeverShown internal/suite:FuzzParse internal/suiterun:FuzzSuiteOptions internal/result:FuzzParse internal/encryption/colenc:FuzzOreDecode internal/workload/script/lang:FuzzParse
fuzz:
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$fn ($$pkg, $(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg > $$log 2>&1 || \
	  { grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log && \
	    echo "  (Go 1.26's fuzz coordinator raced its own -fuzztime deadline, go.dev/issue/75804, no input failed: once more)" && \
	    $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) ./$$pkg > $$log 2>&1; } || { cat $$log; exit 1; }; \
	done; echo "fuzz: $(words $(FUZZ_TARGETS)) passed, 0 failed"

bench: deps build
	bash bench/vs-sysbench.sh

clean:
	rm -rf bin $(RUN_DIR)
	-$(MAKE) --no-print-directory -C tools/pg-ore with_llvm=no clean
