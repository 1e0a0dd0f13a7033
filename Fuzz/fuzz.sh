#!/usr/bin/env bash
# What `make fuzz` runs (see Fuzz/README.md). Builds the fuzz targets with libFuzzer and
# AddressSanitizer into $FUZZ_SCRATCH, then runs each for $FUZZ_SECONDS, $FUZZ_JOBS at a time.
# A crash, timeout or out-of-memory input is kept in Fuzz/Reproducers/TARGET/ and fails the run.
#
#   FUZZ_TARGETS   targets to run (default: all)          FUZZ_SECONDS  per target (60)
#   FUZZ_JOBS      targets at once (1; 2 on 2 cores)      FUZZ_CONFIG   release (default) or debug
#   FUZZ_SCRATCH   build folder (.build-fuzz); its corpus/TARGET keeps what libFuzzer learnt
#   FUZZ_ARGS      more libFuzzer options, e.g. "-seed=1 -only_ascii=1"
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
ALL="nmea fields regions config request monitor commands"
TARGETS=${FUZZ_TARGETS:-$ALL}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
CONFIG=${FUZZ_CONFIG:-release}
SCRATCH=${FUZZ_SCRATCH:-.build-fuzz}
EXTRA=${FUZZ_ARGS:-}

for t in $TARGETS; do
    case " $ALL " in *" $t "*) ;; *) echo "fuzz: unknown target '$t' (targets: $ALL)" >&2; exit 2 ;; esac
done

# SwiftPM's --sanitize reaches C targets (libyaml, NIO's shims) and the link; the -Xswiftc form
# is needed as well: given `-sanitize=fuzzer -sanitize=address` apart, swiftc keeps only the
# last for the compiler, and Swift code would get no coverage instrumentation. -DFUZZING leaves
# out the replayers' main (libFuzzer has its own); -enable-testing lets FuzzChecks use
# @testable import NMEA in a release build. Products one by one: treeline and treelined have a
# main of their own and cannot link with libFuzzer's.
build_flags=(-c "$CONFIG" --scratch-path "$SCRATCH" --sanitize fuzzer --sanitize address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -enable-testing)
start=$(date +%s)
for t in $TARGETS; do
    echo "fuzz: building fuzz-$t ($CONFIG, libFuzzer + AddressSanitizer, into $SCRATCH)"
    # ld.gold warns about every ASan symbol it cannot export: noise.
    "$SWIFT" build "${build_flags[@]}" --product "fuzz-$t" 2>&1 | grep -v "Cannot export local symbol"
    [ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz: building fuzz-$t failed" >&2; exit 1; }
done
echo "fuzz: built in $(( $(date +%s) - start )) s"
bin=$("$SWIFT" build "${build_flags[@]}" --show-bin-path)

# Seeds beyond the committed Fuzz/Corpus/TARGET, made here once: the NMEA logs cut into pieces of
# at most 4 KB (whole lines), single sentences for the field parsers, Data's files.
seeds=$SCRATCH/seeds
if [ ! -e "$seeds/.done" ]; then
    rm -rf "$seeds"
    mkdir -p "$seeds"/{nmea,fields,regions,config,request,monitor,commands}
    for f in Tests/ConformanceTests/gpsd-3.22/*.log Data/walk.nmea; do
        split -C 4000 -d -a 4 "$f" "$seeds/nmea/$(basename "$f")."
    done
    split -C 4000 -d -a 4 Data/walk.nmea "$seeds/monitor/walk."
    cat Tests/ConformanceTests/gpsd-3.22/*.log Data/walk.nmea | LC_ALL=C grep -a '^[$!]' | awk 'NR % 40 == 1' \
        | split -l 1 -d -a 5 - "$seeds/fields/line."
    cp Data/*.geojson "$seeds/regions/"
    cp Data/treeline.yaml "$seeds/config/"
    cp Fuzz/Corpus/request/* "$seeds/commands/"
    touch "$seeds/.done"
fi

max_len() {
    case $1 in fields) echo 300 ;; request|commands) echo 2048 ;; regions) echo 8192 ;; *) echo 4096 ;; esac
}

# A command must be answered at once, as the daemon answers it: an input that takes 2 s is a hang
# (the freeze a layout request once caused). The parsers and the monitor get 10 s.
timeout_of() {
    case $1 in commands) echo 2 ;; *) echo 10 ;; esac
}

mkdir -p "$SCRATCH/logs"
run() {
    local t=$1 log=$SCRATCH/logs/$1.log
    mkdir -p "$SCRATCH/corpus/$t" "Fuzz/Reproducers/$t"
    # The first folder gets the new inputs; the committed corpus and the seeds are only read. The
    # Swift runtime's own backtracer would hold the process on a crash: libFuzzer reports it.
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no "$bin/fuzz-$t" "$SCRATCH/corpus/$t" "Fuzz/Corpus/$t" "$seeds/$t" \
        -max_total_time="$SECONDS_EACH" -timeout="$(timeout_of "$t")" -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -print_final_stats=1 -artifact_prefix="Fuzz/Reproducers/$t/" $EXTRA >"$log" 2>&1
    echo $? >"$SCRATCH/logs/$t.status"
}

echo "fuzz: running $TARGETS for ${SECONDS_EACH}s each, $JOBS at a time (logs in $SCRATCH/logs)"
for t in $TARGETS; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run "$t" &
done
wait

failed=0
printf '%-8s %12s %10s  %s\n' target runs exec/s result
for t in $TARGETS; do
    log=$SCRATCH/logs/$t.log
    status=$(cat "$SCRATCH/logs/$t.status" 2>/dev/null || echo "?")
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ "$status" = 0 ]; then
        result=ok
    else
        failed=1
        artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
        result="FAILED (exit $status): ${artifact:-no reproducer written}; see $log"
    fi
    printf '%-8s %12s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$result"
done
if [ "$failed" != 0 ]; then
    echo "fuzz: replay a reproducer with $bin/fuzz-TARGET FILE, or swift run fuzz-TARGET FILE (no sanitizer)" >&2
    exit 1
fi
