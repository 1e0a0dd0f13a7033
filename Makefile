# Treeline — build, demo, test, bench. `make demo` and `make test` work on a fresh Debian 12 machine
# with Swift 6 installed: they first install the system packages Treeline needs (as root, or via sudo).

SWIFT      ?= swift
PREFIX     ?= /usr/local
BENCH_DIR  ?= /tmp/treeline-bench

# Debian packages: libgps-dev and libproj-dev to build against, gpsd for the integration tests,
# proj-bin for PROJ's own `geod` and `cs2cs` (reference values), pkg-config for the
# system-library targets, libsqlite3-dev for GRDB (the daemon's journal). The benchmarks also need
# GNU time (shapely's peak RSS) and python3-venv.
DEB_PACKAGES := pkg-config libgps-dev libproj-dev proj-bin gpsd libsqlite3-dev
BENCH_PACKAGES := time python3-venv

APT := DEBIAN_FRONTEND=noninteractive apt-get
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps install-missing build release demo test bench clean help

all: build

help:
	@echo "make demo    install what is missing, build, replay Data/walk.nmea: its counts, the sample regions, the events, out/walk.svg"
	@echo "make test    install what is missing, build and run every test"
	@echo "make bench   release build; NMEA throughput vs pynmea2, point-in-fence vs shapely (../shared/bench data)"
	@echo "make deps    only install the Debian packages: $(DEB_PACKAGES)"

# Installs only what is missing, so a second run costs nothing and needs no network.
deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(DEB_PACKAGES)"
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install Swift 6 (https://swift.org) and put it on PATH" >&2; exit 1; }

install-missing:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) $(APT) update -qq && $(SUDO) $(APT) install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: build
	$(SWIFT) run treeline replay Data/walk.nmea --stats
	$(SWIFT) run treeline check Data/regions.geojson
	$(SWIFT) run treeline check Data/regions-pt-tm06.geojson
	$(SWIFT) run treeline where --regions Data/regions.geojson --at 40.1028819,-8.2361299
	@mkdir -p out
	$(SWIFT) run treeline replay Data/walk.nmea --config Data/treeline.yaml \
	  --regions Data/regions.geojson --regions Data/regions-pt-tm06.geojson --svg out/walk.svg
	@echo "map of the walk: out/walk.svg (open it in a web browser)"

# The suites that run real gpsd and treelined processes go on their own, after the rest: they
# time reconnections and latencies, and on a 2-core machine the CPU-bound suites would otherwise
# hold the threads their waits run on.
INTEGRATION := GPSDTests.GPSDIntegration|DaemonTests
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(INTEGRATION)'
	$(SWIFT) test --skip-build --filter '$(INTEGRATION)'

bench: release
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(BENCH_PACKAGES)"
	Benchmarks/nmea.sh $(BENCH_DIR)
	Benchmarks/fences.sh $(BENCH_DIR)

clean:
	rm -rf .build
