# Treeline — build, demo, test, bench. `make demo` and `make test` work on a fresh Debian 12 machine
# with Swift 6 installed: they first install the system packages Treeline needs (as root, or via sudo).

SWIFT      ?= swift
BENCH_DIR  ?= /tmp/treeline-bench

# `make install`: where. DESTDIR is prepended to every path (a staging root for packaging); the
# paths written into the units are without it. The config is always /etc/treeline, whatever the
# prefix: treelined's default, and the unit's ConfigurationDirectory= (relative to /etc).
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/treeline
# systemd reads units from /usr/local/lib/systemd/system and /usr/lib/systemd/system itself
# (`systemd-analyze unit-paths`), and sysusers.d files from /usr/local/lib/sysusers.d and
# /usr/lib/sysusers.d: for these two prefixes the units go there, as a package's would, and
# /etc/systemd/system stays the administrator's (`systemctl edit` writes its overrides there).
# Any other prefix is outside systemd's search paths, so its units go to /etc.
ifneq ($(filter /usr /usr/local,$(PREFIX)),)
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
else
UNITDIR     ?= /etc/systemd/system
SYSUSERSDIR ?= /etc/sysusers.d
endif
# `make install`: what. It builds CONFIGURATION (release or debug) first, unless BUILD=no: then
# it installs the treeline already in PRODUCTS, without swift or the network (e.g. `sudo make
# install BUILD=no` after `make release`, or a test's debug binaries). treeline is both commands:
# treelined is a symbolic link to it (Sources/treeline/MultiCall.swift).
CONFIGURATION ?= release
BUILD      ?= yes
PRODUCTS   ?= .build/$(CONFIGURATION)

# Debian packages, in two sets. To build, and so for `make demo`: pkg-config for the
# system-library targets, libgps-dev, libproj-dev, libmosquitto-dev (the MQTT bridge),
# libsqlite3-dev (GRDB, the daemon's journal) and zlib1g-dev (the web app's files gzipped once at
# start, through compress-nio) to build against.
BUILD_PACKAGES := pkg-config libgps-dev libproj-dev libsqlite3-dev libmosquitto-dev zlib1g-dev
# For `make test`, besides: gpsd for the integration tests; proj-bin for PROJ's own `geod` and
# `cs2cs` (reference values); systemd for systemd-analyze, systemd-sysusers and
# systemd-socket-activate (the tests of the units in systemd/ and of socket activation) and procps
# for /bin/kill (the service's ExecReload=, which systemd-analyze verify looks up): a Debian
# container has neither. libxml2-utils for xmllint, which the tests validate written GPX tracks
# with against the GPX 1.1 schema (Tests/Fixtures/gpx). mosquitto (the broker) and
# mosquitto-clients (mosquitto_sub, mosquitto_pub, mosquitto_passwd) for the bridge's tests.
# libjs-leaflet for the web app's map (treelined serves Debian's files), qrencode for `treeline
# web`'s QR code; chromium and chromium-driver for the web app's browser tests, driven by Selenium
# from PyPI in a virtual environment (python3-venv; `make browser-deps`); firefox-esr for its test
# in Firefox, driven over Marionette (marionette_driver from PyPI: Debian has no geckodriver);
# openssl for the browser test to pin the board's certificate by its key. gdal-bin makes an offline
# basemap (a GeoTIFF made by gdal_create, then gdal_translate -of MBTILES and gdaladdo) for the
# tiles' test. The benchmarks also need GNU time (shapely's peak RSS).
TEST_PACKAGES := gpsd proj-bin systemd procps libxml2-utils mosquitto mosquitto-clients libjs-leaflet qrencode gdal-bin \
                 chromium chromium-driver firefox-esr python3-venv openssl
DEB_PACKAGES := $(BUILD_PACKAGES) $(TEST_PACKAGES)
BENCH_PACKAGES := time python3-venv
# The browser tests' Python, pinned, from PyPI: Selenium, Mozilla's Marionette client, and axe-core
# 4.9 (WCAG 2.2's rules) for the accessibility audit.
BROWSER_VENV := .venv-browser
BROWSER_PY   := selenium==4.51.0 marionette_driver==3.7.1 selenium-axe-python==2.2.0

APT := DEBIAN_FRONTEND=noninteractive apt-get
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps test-deps browser-deps lint install-missing build release demo test bench bench-count install install-build uninstall clean help fuzz deb boot-test ha-test

all: build

help:
	@echo "make demo    install what is missing, build, replay Data/walk.nmea: its counts, the sample regions, the events, out/walk.svg"
	@echo "make test    install what is missing, build and run every test"
	@echo "make bench   release build; NMEA throughput vs pynmea2, point-in-fence vs shapely (Benchmarks/baselines data)"
	@echo "make bench-count  the gate and the region monitor against parsing, in instructions counted by callgrind (Benchmarks/monitor-count.sh)"
	@echo "make deps    only install the Debian packages to build: $(BUILD_PACKAGES)"
	@echo "make test-deps  also those the tests need: $(TEST_PACKAGES)"
	@echo "make lint    swift format's rules (.swift-format) and no function over 80 lines"
	@echo "make install build release, install treeline (and treelined, a link to it), the systemd units and the config (PREFIX=$(PREFIX), DESTDIR, BUILD=no)"
	@echo "make deb     the Debian package dist/treeline_VERSION_ARCH.deb (static Swift runtime, debhelper, lintian)"
	@echo "make boot-test  opt-in, minutes: boot Debian 12 in systemd-nspawn, apt install the package, check the service"
	@echo "make ha-test  opt-in, minutes: the board (gpsd walk, mosquitto) against Home Assistant 2025.4 from PyPI: discovery, OwnTracks, zones, buttons (TREELINE_BIN, HA_PYTHON)"
	@echo "make uninstall  remove what install put in place, except /etc/treeline and the daemon's state"
	@echo "make fuzz   libFuzzer + ASan on each Fuzz/ target for FUZZ_SECONDS=$(FUZZ_SECONDS) (FUZZ_TARGETS, FUZZ_JOBS=$(FUZZ_JOBS)): Fuzz/README.md"

# Installs only what is missing, so a second run costs nothing and needs no network.
deps:
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(BUILD_PACKAGES)"
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install Swift 6 (https://swift.org) and put it on PATH" >&2; exit 1; }

# Made once; `rm -rf $(BROWSER_VENV)` to make it again.
test-deps: deps
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(TEST_PACKAGES)"

browser-deps: test-deps
	@[ -x $(BROWSER_VENV)/bin/python3 ] && $(BROWSER_VENV)/bin/python3 -c 'import selenium, marionette_driver, selenium_axe_python' 2>/dev/null || { \
	  python3 -m venv $(BROWSER_VENV) && $(BROWSER_VENV)/bin/pip install -q $(BROWSER_PY); }

install-missing:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) $(APT) update -qq && $(SUDO) $(APT) install -y -qq --no-install-recommends $$missing; \
	fi

# One executable is both commands, by the name it is started under: treelined beside treeline is
# a link to it, here as in the package, for `.build/debug/treelined` (the tests make it too).
build: deps
	$(SWIFT) build
	ln -sfn treeline "$$($(SWIFT) build --show-bin-path)/treelined"

release: deps
	$(SWIFT) build -c release
	ln -sfn treeline "$$($(SWIFT) build -c release --show-bin-path)/treelined"

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
# Within that run, swift-testing runs the serialized suites side by side, each one test at a time:
# three lanes, `Daemon` (socket, MQTT, durability, hostile clients), `InBrowser` (one browser at
# a time) and `GPSDIntegration`. Their tests mostly wait (on a walk fed at a walker's pace, on a
# page), so the lanes take about the longest lane's time instead of the sum (docs/testing.md).
# A test whose limit is a time a busy core would take from it runs alone, after the lanes: the
# first draw of 100,000 regions (its limit 1 s; 0.66-0.97 s alone, 1.03-1.43 s beside the lanes).
ALONE := aHundredThousandRegionsDrawByTheView
test: test-deps browser-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(INTEGRATION)'
	$(SWIFT) test --skip-build --filter '$(INTEGRATION)' --skip '$(ALONE)'
	$(SWIFT) test --skip-build --filter '$(ALONE)'

bench: release
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(BENCH_PACKAGES)"
	Benchmarks/nmea.sh $(BENCH_DIR)
	Benchmarks/fences.sh $(BENCH_DIR)

# The gate and the monitor against parsing, in instructions (callgrind): repeatable on a noisy VM.
bench-count: deps
	@$(MAKE) --no-print-directory install-missing PACKAGES="valgrind python3-venv"
	Benchmarks/monitor-count.sh $(BENCH_DIR)

# The daemon as a systemd service: see docs/deploy.md. An existing
# /etc/treeline/treeline.yaml or regions.geojson is never overwritten.
install: $(if $(filter yes,$(BUILD)),install-build)
	@[ -x "$(PRODUCTS)/treeline" ] || { echo "$(PRODUCTS)/treeline is missing: build it (make release) or leave BUILD=yes" >&2; exit 1; }
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" \
	  "$(DESTDIR)$(DATADIR)" "$(DESTDIR)/etc/treeline"
	install -m 0755 "$(PRODUCTS)/treeline" "$(DESTDIR)$(BINDIR)/"
	@# The daemon is the same executable started as treelined (one copy of the Swift runtime,
	@# Foundation and ICU): a relative symbolic link, which replaces an older separate binary.
	ln -sfn treeline "$(DESTDIR)$(BINDIR)/treelined"
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/treelined.service > "$(DESTDIR)$(UNITDIR)/treelined.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/treelined.service"
	install -m 0644 systemd/treelined.socket "$(DESTDIR)$(UNITDIR)/treelined.socket"
	install -m 0644 systemd/treeline.sysusers "$(DESTDIR)$(SYSUSERSDIR)/treeline.conf"
	install -m 0644 Data/species.json "$(DESTDIR)$(DATADIR)/species.json"
	@# The web app's files (treelined's default http.root), as they are in web/.
	cd web && find . -type f | while read -r f; do install -D -m 0644 "$$f" "$(DESTDIR)$(DATADIR)/web/$${f#./}" || exit 1; done
	@# The config names the species catalog where this install puts it.
	@for f in treeline.yaml:Data/treeline.yaml regions.geojson:Data/regions.geojson; do \
	  to="$(DESTDIR)/etc/treeline/$${f%%:*}"; \
	  if [ -e "$$to" ]; then echo "kept $$to (the new default is $${f#*:})"; \
	  else echo "install -m 0644 $${f#*:} $$to"; \
	    sed 's|/usr/local/share/treeline/|$(DATADIR)/|' "$${f#*:}" > "$$to" && chmod 0644 "$$to" || exit 1; fi; \
	done
ifneq ($(QUIET),yes)
	@echo
	@echo "Installed. To run treelined (as root):"
	@echo "  systemd-sysusers $(SYSUSERSDIR)/treeline.conf   # the user and group treeline"
	@echo "  systemctl daemon-reload"
	@echo "  systemctl enable --now treelined.socket treelined.service"
	@echo "Then: systemctl status treelined; journalctl -u treelined; systemctl reload treelined (after editing /etc/treeline/)"
endif

install-build: deps
	$(SWIFT) build -c $(CONFIGURATION)

# Leaves /etc/treeline (your config and regions), /var/lib/treeline (the journal) and the
# user treeline in place. Stop the units first: systemctl disable --now treelined.socket treelined.service
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/treeline" "$(DESTDIR)$(BINDIR)/treelined" \
	  "$(DESTDIR)$(UNITDIR)/treelined.service" "$(DESTDIR)$(UNITDIR)/treelined.socket" \
	  "$(DESTDIR)$(SYSUSERSDIR)/treeline.conf" "$(DESTDIR)$(DATADIR)/species.json"
	rm -rf "$(DESTDIR)$(DATADIR)/web"
	rmdir "$(DESTDIR)$(DATADIR)" 2>/dev/null || true
	@echo "kept /etc/treeline, /var/lib/treeline and the user treeline; then: systemctl daemon-reload"

# The Debian package (docs/deploy.md): dist/treeline_VERSION_ARCH.deb, built with
# debhelper from binaries linked with --static-swift-stdlib, then checked with lintian. The version
# is the one in Sources/TreelineVersion/Version.swift; debian/changelog is written from it here.
VERSION  := $(shell sed -n 's/^public let treelineVersion = "\(.*\)"$$/\1/p' Sources/TreelineVersion/Version.swift)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB      := dist/treeline_$(VERSION)_$(DEB_ARCH).deb
DEB_BUILD_PACKAGES := debhelper lintian dpkg-dev build-essential
deb: deps
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(DEB_BUILD_PACKAGES)"
	@[ -n "$(VERSION)" ] || { echo "no version in Sources/TreelineVersion/Version.swift" >&2; exit 1; }
	@printf '%s\n' "treeline ($(VERSION)) unstable; urgency=medium" "" \
	  "  * Treeline $(VERSION), built from $$(git describe --always --dirty 2>/dev/null || echo 'a source tree')." \
	  "    The history is the git log." "" \
	  " -- Treeline maintainers <maintainers@users.noreply.a-seed-7b83eaa1.example>  $$(date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))" \
	  > debian/changelog
	rm -f dist/treeline_*.deb
	dpkg-checkbuilddeps
	@# Called directly (not through dpkg-buildpackage): say what debian/control says, so that
	@# dh_testroot lets a normal user build.
	DEB_RULES_REQUIRES_ROOT=no SWIFT="$(SWIFT)" debian/rules clean
	DEB_RULES_REQUIRES_ROOT=no SWIFT="$(SWIFT)" debian/rules binary
	@echo; echo "lintian $(DEB):"
	lintian --fail-on error --info $(DEB)
	@echo; echo "built $(DEB): sudo apt install ./$(DEB)"

# Opt-in, minutes: debootstraps Debian 12, boots it with systemd-nspawn, installs the package with
# apt and checks the service in it (Tests/BootTest/README.md). Needs root and Debian's mirror.
BOOT_PACKAGES := debootstrap systemd-container debian-archive-keyring
boot-test: deb
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(BOOT_PACKAGES)"
	timeout 30m Tests/BootTest/boot-test.sh $(DEB)

# Opt-in, minutes: the board (treelined, a real gpsd fed Data/walk.nmea, a real mosquitto) against
# Home Assistant 2025.4.4 from PyPI, pinned by its own constraints, in a Python 3.13: python3.13 or
# python3.14 on PATH (or HA_PYTHON), else, as root, a Debian 13 root filesystem made once by
# debootstrap (Tests/HA/README.md). Caches in .build-ha. TREELINE_BIN=path tests another treeline
# (then nothing is built). Ends with PASSED, FAILED, or SKIPPED and why.
HA_PACKAGES := gpsd mosquitto mosquitto-clients python3-venv util-linux
ha-test: $(if $(TREELINE_BIN),,build)
	@$(MAKE) --no-print-directory install-missing PACKAGES="$(HA_PACKAGES)"
	timeout 30m Tests/HA/ha-test.sh

clean:
	rm -rf .build .build-deb dist
	[ ! -x debian/rules ] || [ ! -e debian/changelog ] || debian/rules clean

# Fuzzing: builds the targets of Fuzz/ with libFuzzer and AddressSanitizer into .build-fuzz and
# runs each for FUZZ_SECONDS, FUZZ_JOBS at a time (2 on 2 cores); FUZZ_TARGETS picks some of them.
# Prints each target's executions; fails if one crashed, its input kept in
# Fuzz/Reproducers/TARGET/ (which `make test` replays). Details: Fuzz/README.md, Fuzz/fuzz.sh.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= nmea fields regions config request monitor commands
FUZZ_JOBS    ?= 1
# Style: .swift-format's rules, with swift-format's layout checks skipped (they cannot be turned
# off in .swift-format, and would reflow the aligned continuation lines throughout), and no
# function, initializer or accessor body over 80 lines in Sources; docs/ARCHITECTURE.md's modules
# table true to Package.swift.
LINT_PATHS     ?= Sources Tests Benchmarks Fuzz Package.swift
LONG_FUNCTIONS ?= 80
lint:
	$(SWIFT) format lint --strict --debug-disable-pretty-print --parallel --recursive $(LINT_PATHS)
	python3 scripts/long_functions.py --limit $(LONG_FUNCTIONS) Sources
	python3 scripts/check_architecture.py

fuzz: deps
	SWIFT="$(SWIFT)" FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" FUZZ_JOBS="$(FUZZ_JOBS)" Fuzz/fuzz.sh
