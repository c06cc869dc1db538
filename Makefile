# encbench: the two set-up commands for a fresh Debian machine are
#   make run    install what is missing, build, run a short benchmark on local sandboxes
#   make test   install what is missing, vet, and run unit and integration tests

GO       ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
BIN      := bin/encbench
RUN_DIR  := .sandbox
PKGS     := postgresql mariadb-server sysbench time
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps run test vet bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/encbench

# Installs the server packages the sandboxes use, only when one is missing.
deps:
	@missing=""; \
	for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

# Starts a PostgreSQL and a MariaDB sandbox, runs a short oltp_read_write on
# each, prints sysbench-style summaries, and stops the sandboxes again.
run: deps build
	@rm -rf $(RUN_DIR) && mkdir -p $(RUN_DIR) && chmod 755 $(RUN_DIR)
	@trap '$(BIN) sandbox down --dir $(RUN_DIR)/postgres 2>/dev/null; $(BIN) sandbox down --dir $(RUN_DIR)/mariadb 2>/dev/null' EXIT; \
	set -e; for e in postgres mariadb; do \
	  echo "== $$e sandbox"; \
	  $(BIN) sandbox up --engine $$e --dir $(RUN_DIR)/$$e; \
	  $(BIN) prepare oltp_read_write --sandbox $(RUN_DIR)/$$e --tables 4 --table-size 20000 --threads 4 >/dev/null; \
	  $(BIN) run oltp_read_write --sandbox $(RUN_DIR)/$$e --tables 4 --table-size 20000 --threads 4 \
	    --time 10 --report-interval 2 --json $(RUN_DIR)/$$e-oltp_read_write.json; \
	done; \
	echo; echo "results: $(RUN_DIR)/postgres-oltp_read_write.json $(RUN_DIR)/mariadb-oltp_read_write.json"

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l cmd internal)" || { gofmt -l cmd internal; echo "gofmt needed"; exit 1; }

test: deps vet
	ENCBENCH_REQUIRE_SERVERS=1 $(GO) test -count=1 -timeout 20m ./...

bench: deps build
	bash bench/vs-sysbench.sh

clean:
	rm -rf bin $(RUN_DIR)
