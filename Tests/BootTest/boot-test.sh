#!/usr/bin/env bash
# `make boot-test`: the Debian package in a booted Debian 12 (Tests/BootTest/README.md).
#
#   Tests/BootTest/boot-test.sh dist/treeline_VERSION_ARCH.deb
#
# Debootstraps a Debian 12 base once (cached in $BOOT_WORK/base), boots a fresh copy of it with
# systemd-nspawn (systemd as PID 1 in the guest), installs the package with apt and checks, in
# order: both units enabled and active with READY sent; a user in the group treeline gets the
# walk's events from gpsd (fed Data/walk.nmea), equal to `treeline replay` of the same walk,
# while treelined is SIGKILLed once and restarted by systemd; a user outside the group is
# refused; a reinstall (the upgrade path) keeps the edited config, the units and the journal; a
# reboot keeps the journal and the enablement; `apt purge` leaves nothing.
#
# Root only. The guest shares the host's network (nspawn without --private-network): apt reaches
# the mirror, and the guest's gpsd reads a feeder on the host. Ports are picked free.
#
#   BOOT_WORK    cache and scratch (/var/tmp/treeline-boot)   BOOT_KEEP=1  keep the guest's root
#   BOOT_MIRROR  Debian mirror (the first of /etc/apt/sources*, else deb.debian.org)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

[ $# = 1 ] && [ -f "$1" ] || { echo "usage: $0 PACKAGE.deb (make boot-test builds it)" >&2; exit 2; }
deb=$(realpath "$1")
[ "$(id -u)" = 0 ] || { echo "boot-test: needs root (debootstrap, systemd-nspawn)" >&2; exit 2; }
for tool in debootstrap systemd-nspawn nsenter python3; do
    command -v $tool >/dev/null || { echo "boot-test: $tool is missing (apt-get install debootstrap systemd-container)" >&2; exit 2; }
done

work=${BOOT_WORK:-/var/tmp/treeline-boot}
mirror=${BOOT_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\/*\)$/\1/p; s/^deb \(http[^ ]*debian\/*\) bookworm .*/\1/p' \
    /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | head -1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}
# What the guest needs besides the package: systemd to boot, gpsd, and the libraries the package
# links already there (apt still resolves and checks them; procps, which the unit's ExecReload=
# needs, is left for the package's Depends to bring).
include=systemd,systemd-sysv,dbus,gpsd,libgps28,libproj25,libsqlite3-0,ca-certificates
mkdir -p "$work"
started=$(date +%s)
say() { echo "boot-test [$(( $(date +%s) - started )) s] $*"; }

nspawn_pid=""
feeder_pid=""
subscriber_pid=""
root=$work/root
cleanup() {
    local status=$?
    [ -z "$subscriber_pid" ] || kill "$subscriber_pid" 2>/dev/null || true
    [ -z "$feeder_pid" ] || kill "$feeder_pid" 2>/dev/null || true
    if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
        kill -TERM "$nspawn_pid" 2>/dev/null || true   # nspawn shuts the guest down
        for _ in $(seq 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$nspawn_pid" 2>/dev/null || true
    fi
    if [ "$status" != 0 ]; then
        echo "boot-test: FAILED (exit $status). The guest's console: $work/console.log; its root: $root" >&2
    elif [ "${BOOT_KEEP:-0}" != 1 ]; then
        rm -rf "$root"
    fi
}
trap cleanup EXIT

fail() { echo "boot-test: FAILED: $*" >&2; exit 1; }

# --- The base: debootstrapped once, kept for later runs -------------------------------------
if [ ! -d "$work/base" ] || [ "$(cat "$work/base.include" 2>/dev/null)" != "$include" ]; then
    say "debootstrap bookworm from $mirror into $work/base (minutes; done once)"
    rm -rf "$work/base" "$work/base.tmp" "$work/base.include"
    debootstrap --variant=minbase --include="$include" bookworm "$work/base.tmp" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || fail "debootstrap failed: $work/debootstrap.log"
    mv "$work/base.tmp" "$work/base"
    echo "$include" >"$work/base.include"
fi
say "a fresh guest from the base"
rm -rf "$root"
cp -a "$work/base" "$root"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
feed_port=$(free_port)
gpsd_port=$(free_port)
echo treeline-boot >"$root/etc/hostname"
cp "$deb" "$root/root/"
cp Data/walk.nmea "$root/root/walk.nmea"
# gpsd reads the host's feeder (the guest shares its network) and listens on a free port.
cat >"$root/etc/default/gpsd" <<EOF
START_DAEMON="true"
USBAUTO="false"
DEVICES="tcp://127.0.0.1:$feed_port"
GPSD_OPTIONS=""
EOF
mkdir -p "$root/etc/systemd/system/gpsd.socket.d"
cat >"$root/etc/systemd/system/gpsd.socket.d/port.conf" <<EOF
[Socket]
ListenStream=
ListenStream=/run/gpsd.sock
ListenStream=127.0.0.1:$gpsd_port
EOF

boot() {
    : >"$work/console.log"
    # In a session of its own: when the guest reboots or powers off, what nspawn leaves behind is
    # hung up (SIGHUP), and that must not reach this script and its feeder.
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 setsid systemd-nspawn --quiet --boot --directory="$root" --machine=treeline-boot \
        --register=no --keep-unit --console=pipe </dev/null >>"$work/console.log" 2>&1 &
    nspawn_pid=$!
    leader=""
    for _ in $(seq 150); do
        for child in $(pgrep -P "$nspawn_pid" || true); do
            # The guest's PID 1 is systemd, seen from the host as a child of nspawn.
            if [ "$(awk '/^NSpid/ {print $NF}' "/proc/$child/status" 2>/dev/null)" = 1 ]; then leader=$child; fi
        done
        [ -n "$leader" ] && break
        sleep 0.2
    done
    [ -n "$leader" ] || fail "the guest did not start: $(tail -20 "$work/console.log")"
    local state=""
    for _ in $(seq 120); do
        state=$(guest systemctl is-system-running 2>/dev/null || true)
        case $state in running|degraded) break ;; esac
        sleep 0.5
    done
    case $state in running|degraded) ;; *) fail "the guest did not finish booting ($state)" ;; esac
    [ "$state" = running ] || say "guest is $state: $(guest systemctl --failed --no-legend --plain | tr '\n' ';')"
}
# Each in a session of its own: a process in the guest keeps the caller's process group, and
# what the guest's shutdown or `timeout` sends to its group would otherwise reach this script.
guest() {
    setsid --wait nsenter --target "$leader" --mount --uts --ipc --pid --cgroup -- \
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
shutdown_guest() {  # $1: poweroff or reboot
    guest systemctl "$1" || true
    for _ in $(seq 300); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$nspawn_pid" 2>/dev/null && fail "the guest did not $1 within 60 s"
    local code=0
    wait "$nspawn_pid" || code=$?
    nspawn_pid=""
    say "guest $1: nspawn exited with $code"
}
wait_for() {  # seconds, description, command...
    local seconds=$1 what=$2; shift 2
    local until=$(( $(date +%s) + seconds ))
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$until" ] || fail "waited ${seconds} s for $what"
        sleep 0.2
    done
}
check() {  # description, command...
    local what=$1; shift
    "$@" >/dev/null 2>&1 || fail "$what"
    say "ok: $what"
}
unit_is() { [ "$(guest systemctl show -P "$2" "$1")" = "$3" ]; }
state() { guest timeout 10 treeline state; }
last_seq() { state | python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])'; }
gpsd_connected() { state | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["gpsd"].startswith("connected") else 1)'; }

# --- Boot, install ----------------------------------------------------------------------------
say "booting the guest (systemd-nspawn -b)"
boot
say "booted: $(guest systemctl --version | head -1)"
t0=$(date +%s)
guest apt-get update -qq >"$work/apt.log" 2>&1 || fail "apt-get update: $work/apt.log"
guest env DEBIAN_FRONTEND=noninteractive apt-get install -y "/root/$(basename "$deb")" >>"$work/apt.log" 2>&1 \
    || fail "apt-get install: $(tail -20 "$work/apt.log")"
say "installed $(basename "$deb") with apt in $(( $(date +%s) - t0 )) s"

check "treelined.socket and treelined.service are enabled" \
    test "$(guest systemctl is-enabled treelined.socket treelined.service | sort -u)" = enabled
wait_for 30 "treelined.service to be active" unit_is treelined.service ActiveState active
check "treelined.socket is active" unit_is treelined.socket ActiveState active
# Type=notify: the service is active only after READY=1; the status text comes with it.
check "treelined sent READY=1 and a status ($(guest systemctl show -P StatusText treelined.service))" \
    test -n "$(guest systemctl show -P StatusText treelined.service)"
check "the user and group treeline exist (sysusers)" guest getent group treeline
check "the config and the regions are conffiles" \
    test "$(guest dpkg-query -W -f='${Conffiles}' treeline | awk '{print $1}' | sort | tr '\n' ' ')" = "/etc/treeline/regions.geojson /etc/treeline/treeline.yaml "
check "the config names the installed species catalog" guest grep -q '^species: /usr/share/treeline/species.json' /etc/treeline/treeline.yaml
libraries=$(guest ldd /usr/bin/treeline /usr/bin/treelined) || fail "ldd failed: $libraries"
check "the binaries find their libraries (libc among them), and no Swift runtime is one" \
    sh -c "printf '%s' \"\$1\" | grep -q libc.so.6 && ! printf '%s' \"\$1\" | grep -E 'swift|Foundation|not found'" _ "$libraries"
check "procps came with the package's Depends (the unit's ExecReload= runs its kill)" guest test -x /bin/kill
say "treelined needs (ELF NEEDED): $(readelf -d "$root/usr/bin/treelined" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
# One executable for both commands: treelined is treeline started under the daemon's name.
check "/usr/bin/treelined is a link to treeline, the one executable" test "$(guest readlink /usr/bin/treelined)" = treeline
say "installed: $(guest dpkg-query -W -f='${Installed-Size}' treeline) KiB (Installed-Size); du -sh: $(guest du -sh /usr/bin/treeline /usr/share/treeline | tr '\t\n' ' ')"

# --- The walk through gpsd, with one SIGKILL ------------------------------------------------
guest useradd --create-home --groups treeline alice
guest useradd --create-home bob
expected=$work/expected.jsonl
guest treeline replay /root/walk.nmea --regions /etc/treeline/regions.geojson --config /etc/treeline/treeline.yaml >"$expected"
walk_events=$(wc -l <"$expected")
# The first start announced the installed file's R regions in one base_layer record (seq 1) before
# any fix: the subscriber asking for the base regions gets it and each region's region_added (seq 1,
# parts 1…), then the walk's events (seq 2…).
regions_in_file=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["features"]))' "$root/etc/treeline/regions.geojson")
count=$(( 1 + regions_in_file + walk_events ))
say "replay of the walk in the guest: $walk_events events, after the base_layer record of the $regions_in_file regions"

status=$work/feeder.status
rm -f "$status"
python3 Tests/BootTest/feeder.py Data/walk.nmea "$feed_port" "$status" 4 0.008 &
feeder_pid=$!
wait_for 10 "the feeder" test -s "$status"
served() { awk '{print $1}' "$status"; }
total=$(awk '{print $2}' "$status")
# treelined to the guest's gpsd now that the feeder is up: gpsd opens its device at the first
# WATCH and gives it up for good if it cannot connect then.
[ "$(last_seq)" = 1 ] || fail "before the walk the journal should hold the regions' one announcement (last seq $(last_seq))"
guest sed -i "s/^  port: 2947/  port: $gpsd_port/" /etc/treeline/treeline.yaml
guest systemctl restart treelined.service
wait_for 30 "treelined to be active after the restart" unit_is treelined.service ActiveState active

guest runuser -u alice -- treeline subscribe --since 0 --base-regions >"$work/alice.jsonl" 2>"$work/alice.err" &
subscriber_pid=$!
wait_for 30 "treelined to read gpsd" gpsd_connected

kill_at=$(( total * 2 / 5 ))
wait_for 120 "the feeder to serve $kill_at lines" sh -c "[ \$(awk '{print \$1}' $status) -ge $kill_at ]"
restarts=$(guest systemctl show -P NRestarts treelined.service)
kill -USR1 "$feeder_pid"   # pause, and offer the last 200 lines again after the restart
seq_at_kill=$(last_seq)
guest systemctl kill --signal=KILL treelined.service
say "SIGKILLed treelined at line $(served) of $total (last seq about $seq_at_kill)"
wait_for 60 "systemd to restart treelined" sh -c "[ \"\$(nsenter --target $leader --mount --pid -- systemctl show -P NRestarts treelined.service)\" -gt $restarts ]"
wait_for 60 "treelined to be active again" unit_is treelined.service ActiveState active
wait_for 30 "treelined to read gpsd again" gpsd_connected
say "systemd restarted treelined (NRestarts $(guest systemctl show -P NRestarts treelined.service)); resuming the feed"
kill -USR2 "$feeder_pid"
wait_for 180 "the feeder to serve the walk" sh -c "[ \$(awk '{print \$1}' $status) -ge $total ]"
wait_for 60 "alice's subscriber to get $count events" sh -c "[ \$(grep -c '\"class\":\"EVENT\"' $work/alice.jsonl) -ge $count ]"
sleep 3   # anything more would be a repeat
guest pkill -u alice -f "treeline subscribe" || true
wait "$subscriber_pid" 2>/dev/null || true
subscriber_pid=""
python3 Tests/BootTest/compare.py "$work/alice.jsonl" "$expected" "$root/etc/treeline/regions.geojson" || fail "alice's events differ from replay's"
say "ok: alice (group treeline) got the base_layer record, its $regions_in_file regions and the walk's $walk_events events ($count lines, seq 1…$(( 1 + walk_events ))), each once, equal to replay, across the SIGKILL"
grep -q reconnecting "$work/alice.err" && say "alice's subscriber saw the restart: $(grep -m1 reconnecting "$work/alice.err")"

refused=$(guest runuser -u bob -- treeline state 2>&1 >/dev/null && echo "ANSWERED" || true)
case $refused in
    *ANSWERED*) fail "bob (not in the group) was answered" ;;
    *"usermod -aG treeline"*) say "ok: bob (not in the group) is refused: $refused" ;;
    *) fail "bob is refused without saying how to join the group: $refused" ;;
esac

guest systemctl reload treelined.service || fail "systemctl reload failed"
wait_for 20 "the reload to show in the log" sh -c "nsenter --target $leader --mount --pid -- journalctl -u treelined.service --no-pager | grep -q 'reloaded /etc/treeline/treeline.yaml'"
say "ok: systemctl reload rereads the config and the regions ($(guest journalctl -u treelined.service --no-pager | grep -o 'reloaded /etc/treeline/treeline.yaml.*' | tail -1))"

# --- The upgrade path: the same package again (postinst configure with the old version) -------
before=$(last_seq)
invocation=$(guest systemctl show -P InvocationID treelined.service)
guest env DEBIAN_FRONTEND=noninteractive apt-get install --reinstall -y "/root/$(basename "$deb")" >>"$work/apt.log" 2>&1 \
    || fail "apt-get install --reinstall: $(tail -20 "$work/apt.log")"
check "reinstalled: the edited config is kept (gpsd port $gpsd_port)" guest grep -q "^  port: $gpsd_port" /etc/treeline/treeline.yaml
wait_for 30 "treelined.service to be active after the reinstall" unit_is treelined.service ActiveState active
check "reinstalled: treelined.socket is still active" unit_is treelined.socket ActiveState active
check "reinstalled: the service was restarted (a new InvocationID)" test "$(guest systemctl show -P InvocationID treelined.service)" != "$invocation"
check "reinstalled: the journal is kept (last seq $before)" test "$(last_seq)" = "$before"

# --- Reboot -----------------------------------------------------------------------------------
shutdown_guest reboot
boot
check "after the reboot both units are still enabled" \
    test "$(guest systemctl is-enabled treelined.socket treelined.service | sort -u)" = enabled
wait_for 30 "treelined.service to be active after the reboot" unit_is treelined.service ActiveState active
check "after the reboot the journal is kept (last seq $before)" test "$(last_seq)" = "$before"
guest runuser -u alice -- timeout 5 treeline subscribe --since 0 --base-regions >"$work/alice-after-reboot.jsonl" 2>/dev/null || true
python3 Tests/BootTest/compare.py "$work/alice-after-reboot.jsonl" "$expected" "$root/etc/treeline/regions.geojson" || fail "after the reboot the journal differs"
say "ok: after the reboot alice reads the same $count events from the journal"

# --- Purge ------------------------------------------------------------------------------------
# A subscriber that reconnects at once stays connected through the purge: it must not bring the
# service back from the socket while the package goes.
guest runuser -u alice -- treeline subscribe --since 23 >/dev/null 2>&1 &
subscriber_pid=$!
sleep 1
guest env DEBIAN_FRONTEND=noninteractive apt-get purge -y treeline >>"$work/apt.log" 2>&1 || fail "apt-get purge: $(tail -20 "$work/apt.log")"
check "after purge no treelined unit is loaded or known" \
    test -z "$(guest systemctl list-units --all --no-legend --plain 'treelined*'; guest systemctl list-unit-files --no-legend --plain 'treelined*')"
guest pkill -u alice -f "treeline subscribe" || true
wait "$subscriber_pid" 2>/dev/null || true
subscriber_pid=""
check "after purge no treelined process runs" sh -c "! nsenter --target $leader --mount --pid -- pgrep -x treelined"
check "after purge /run/treeline is gone" guest test ! -e /run/treeline
left=$(guest find / -xdev \( -path /proc -o -path /sys -o -path /root -o -path /home \) -prune -o -name '*treeline*' -print)
[ -z "$left" ] || fail "after purge these remain: $left"
say "ok: apt purge leaves no file named treeline (the system user stays, as Debian's packages leave theirs: $(guest getent passwd treeline))"
shutdown_guest poweroff
say "PASSED in $(( $(date +%s) - started )) s"
