#!/bin/bash
# make ha-test: the board (treelined, a real gpsd fed Data/walk.nmea, a real mosquitto) against a
# real Home Assistant from PyPI, pinned, in its own Python 3.13. See Tests/HA/README.md.
#
#   Tests/HA/ha-test.sh            # the treelined of this repository (.build/debug, built by make)
#   TREELINE_BIN=/path/to/treeline Tests/HA/ha-test.sh
#   HA_PYTHON=/usr/bin/python3.13 Tests/HA/ha-test.sh   # a Python >= 3.13 of your choice
#
# Ends with PASSED (exit 0), FAILED (exit 1) or SKIPPED and why (exit 0).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${HA_CACHE:-$REPO/.build-ha}"
HA_VERSION=2025.4.4
# The integrations the test's configuration.yaml and its config flows set up (besides those HA
# always sets up): their PyPI requirements are installed with the venv, pinned by HA's constraints.
HA_INTEGRATIONS="mqtt owntracks api config onboarding http websocket_api template"
MIRROR="${HA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

skip() { echo "ha-test: SKIPPED: $*"; exit 0; }
say() { echo "ha-test: $*"; }
# --- a Python >= 3.13 for Home Assistant ----------------------------------------------------------
is313() { "$1" -c 'import sys, ssl, sqlite3, venv; sys.exit(sys.version_info < (3, 13))' >/dev/null 2>&1; }
MODE=""
if [ -n "${HA_PYTHON:-}" ]; then
  is313 "$HA_PYTHON" || { echo "ha-test: HA_PYTHON=$HA_PYTHON is not a working Python >= 3.13" >&2; exit 1; }
  MODE=host; PY="$(command -v "$HA_PYTHON")"
else
  for candidate in python3.14 python3.13; do
    # A pyenv shim is on PATH whether or not its version is selected: it must run.
    if command -v "$candidate" >/dev/null && is313 "$candidate"; then
      MODE=host; PY="$(command -v "$candidate")"; break
    fi
  done
fi
[ -n "$MODE" ] || [ "$(id -u)" = 0 ] || skip "no python3.13 or python3.14 on PATH, and not root (a Debian 13 root filesystem needs debootstrap and chroot as root); set HA_PYTHON to a Python >= 3.13"
mkdir -p "$CACHE"

# --- treelined ----------------------------------------------------------------------------------
if [ -n "${TREELINE_BIN:-}" ]; then
  TREELINE="$(readlink -f "$TREELINE_BIN")"
else
  TREELINE="$REPO/.build/debug/treeline"
fi
[ -x "$TREELINE" ] || { echo "ha-test: $TREELINE is missing: run make build (or set TREELINE_BIN)" >&2; exit 1; }
# treelined is the same executable started under that name (Sources/treeline/MultiCall.swift).
BINDIR="$CACHE/bin"
mkdir -p "$BINDIR"
ln -sfn "$TREELINE" "$BINDIR/treelined"
say "treelined: $BINDIR/treelined -> $TREELINE ($("$TREELINE" --version 2>/dev/null | head -1 || echo '?'))"

for tool in mosquitto gpsd; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || skip "$tool is not installed (make ha-test installs it as root)"
done


ROOTFS="$CACHE/trixie"
# Runs a command inside the root filesystem, in a mount namespace of its own: /proc, /sys and
# /dev are mounted for it and vanish with it (nothing to unmount after a crash). The network is
# the host's: HA reaches the test's mosquitto on 127.0.0.1. `exec`: the pid is the command's.
# pip inside trusts what the host trusts (a proxy's CA, say): the host's bundle, copied in.
inroot() {
  cp -L /etc/resolv.conf "$ROOTFS/etc/resolv.conf" 2>/dev/null || true
  cp -L /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/host-ca-certificates.crt" 2>/dev/null || true
  PIP_CERT=/etc/ssl/certs/host-ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/host-ca-certificates.crt \
  unshare --mount --propagation private -- /bin/sh -c '
    r="$1"; shift
    mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" && mount --rbind /dev "$r/dev" || exit 111
    exec chroot "$r" "$@"' inroot "$ROOTFS" "$@"
}

if [ -z "$MODE" ]; then
  [ "$(id -u)" = 0 ] || skip "no python3.13 or python3.14 on PATH, and not root (a Debian 13 root filesystem needs debootstrap and chroot as root); set HA_PYTHON to a Python >= 3.13"
  MODE=chroot
  if [ ! -x "$ROOTFS/usr/bin/python3" ]; then
    if ! command -v debootstrap >/dev/null; then
      say "installing debootstrap"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap debian-archive-keyring >/dev/null \
        || skip "no Python >= 3.13 here and debootstrap could not be installed"
    fi
    say "debootstrap: Debian 13 trixie (minbase, python3, python3-venv) into $ROOTFS, once (about 2 minutes)"
    rm -rf "$ROOTFS.tmp"
    debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates trixie "$ROOTFS.tmp" "$MIRROR" \
      > "$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log"; skip "debootstrap of trixie from $MIRROR failed (log: $CACHE/debootstrap.log)"; }
    mv "$ROOTFS.tmp" "$ROOTFS"
  fi
  # Four of HA's pinned requirements have no wheel for Python 3.13 on PyPI (ciso8601 2.3.2,
  # lru-dict 1.3.0, pymicro-vad 1.0.1, pyspeex-noise 1.0.2): pip compiles them, once.
  if [ ! -x "$ROOTFS/usr/bin/g++" ] || [ ! -e "$ROOTFS/usr/include/python3.13/Python.h" ]; then
    say "installing python3-dev, gcc and g++ in $ROOTFS (pip builds the requirements that have no wheel)"
    inroot /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-dev gcc g++ libc6-dev' \
      > "$CACHE/apt-trixie.log" 2>&1 || { tail -20 "$CACHE/apt-trixie.log"; skip "apt-get install python3-dev gcc g++ in the trixie root filesystem failed (log: $CACHE/apt-trixie.log)"; }
  fi
  PY=/usr/bin/python3
fi

if [ "$MODE" = chroot ]; then
  VENV_IN=/opt/ha-venv              # as Home Assistant sees it
  VENV="$ROOTFS$VENV_IN"            # as this script sees it
  DL_IN=/opt/ha-dl
  DL="$ROOTFS$DL_IN"
  run() { inroot "$@"; }
  PYDESC="Debian 13 trixie's $(chroot "$ROOTFS" /usr/bin/python3 --version 2>&1) in a chroot ($ROOTFS, mount namespace, host network)"
else
  tag="$("$PY" -c 'import sys; print("py%d%d" % sys.version_info[:2])')"
  VENV="$CACHE/venv-$tag"; VENV_IN="$VENV"
  DL="$CACHE/dl"; DL_IN="$DL"
  run() { "$@"; }
  PYDESC="$PY ($("$PY" --version 2>&1)) on the host"
fi
say "Home Assistant's Python: $PYDESC"

# --- Home Assistant from PyPI, pinned, with its own constraints ------------------------------------
WHEEL="homeassistant-$HA_VERSION-py3-none-any.whl"
STAMP="$VENV/.treeline-ha-test"
if [ ! -f "$STAMP" ] || [ "$(head -1 "$STAMP")" != "homeassistant==$HA_VERSION" ]; then
  say "making the venv $VENV: homeassistant==$HA_VERSION (a few minutes, once)"
  mkdir -p "$DL"
  rm -rf "$VENV"
  run "$PY" -m venv "$VENV_IN"
  run "$VENV_IN/bin/pip" install -q --disable-pip-version-check --upgrade pip
  [ -f "$DL/$WHEEL" ] || run "$VENV_IN/bin/pip" download -q --disable-pip-version-check --no-deps -d "$DL_IN" "homeassistant==$HA_VERSION"
  # HA's own pins, as it ships them in the wheel.
  /usr/bin/python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("homeassistant/package_constraints.txt"))' \
    "$DL/$WHEEL" "$DL/package_constraints.txt"
  # Wheels where PyPI has them; the few without are compiled (the host's Python needs its
  # headers and a compiler for them too).
  run "$VENV_IN/bin/pip" install -q --disable-pip-version-check --prefer-binary -c "$DL_IN/package_constraints.txt" "$DL_IN/$WHEEL"
  echo "homeassistant==$HA_VERSION" > "$STAMP"
else
  say "reusing the venv $VENV (homeassistant==$HA_VERSION)"
fi
# The requirements of the integrations used, pinned by the same constraints: installed when
# the list changed (nothing to fetch otherwise: a second run needs no network).
cp "$HERE/requirements.py" "$DL/requirements.py"
run "$VENV_IN/bin/python" "$DL_IN/requirements.py" $HA_INTEGRATIONS > "$DL/requirements.txt" 2>"$DL/integrations.txt"
if ! cmp -s "$DL/requirements.txt" "$VENV/.treeline-ha-test-requirements"; then
  say "installing the requirements of the integrations used: $(tr '\n' ' ' < "$DL/requirements.txt")"
  run "$VENV_IN/bin/pip" install -q --disable-pip-version-check --prefer-binary -c "$DL_IN/package_constraints.txt" -r "$DL_IN/requirements.txt"
  cp "$DL/requirements.txt" "$VENV/.treeline-ha-test-requirements"
fi

# --- the driver's own Python: the host's, with paho-mqtt and aiohttp pinned by HA's constraints ---
DRIVER="$CACHE/venv-driver"
if ! "$DRIVER/bin/python" -c 'import paho.mqtt, aiohttp' 2>/dev/null; then
  say "making the driver's venv $DRIVER (paho-mqtt, aiohttp)"
  rm -rf "$DRIVER"
  /usr/bin/python3 -m venv "$DRIVER" || skip "/usr/bin/python3 -m venv failed (python3-venv missing?)"
  "$DRIVER/bin/pip" install -q --disable-pip-version-check -c "$DL/package_constraints.txt" "paho-mqtt" "aiohttp==3.11.16"
fi

# --- the run -----------------------------------------------------------------------------------
if [ "$MODE" = chroot ]; then
  mkdir -p "$ROOTFS/tmp"
  RUN_DIR="$(mktemp -d "$ROOTFS/tmp/ha-test.XXXXXX")"
  HA_CMD=(unshare --mount --propagation private -- /bin/sh -c '
    r="$1"; shift
    mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" && mount --rbind /dev "$r/dev" || exit 111
    exec chroot "$r" "$@"' inroot "$ROOTFS" "$VENV_IN/bin/hass")
  HA_PREFIX="$ROOTFS"
else
  mkdir -p "$CACHE/runs"
  RUN_DIR="$(mktemp -d "$CACHE/runs/ha-test.XXXXXX")"
  HA_CMD=("$VENV/bin/hass")
  HA_PREFIX=""
fi
say "run folder: $RUN_DIR"
# The logs of the last three runs are kept; older run folders go.
ls -dt "$(dirname "$RUN_DIR")"/ha-test.* 2>/dev/null | tail -n +4 | xargs -r rm -rf
exec "$DRIVER/bin/python" -u "$HERE/ha_test.py" \
  --repo "$REPO" --treelined "$BINDIR/treelined" --run-dir "$RUN_DIR" --ha-prefix "$HA_PREFIX" \
  --python "$PYDESC" --ha-version "$HA_VERSION" -- "${HA_CMD[@]}"
