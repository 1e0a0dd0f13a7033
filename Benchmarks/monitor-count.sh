#!/usr/bin/env bash
# The region monitor's cost in instructions, which do not depend on the machine's load: callgrind
# counts them in one run of `treeline-bench pipeline LOG FENCES --runs 1` (a warm-up and a run of
# each stream: parsing alone twice, parsing with the gate and the monitor twice).
#
# Prints, as a table and as one JSON line:
#   parse_per_fix    instructions of parsing (NMEAReader.read, less the monitor inside it) a fix
#   monitor_per_fix  instructions of the gate and the monitor (RegionMonitor.process) a fix
#   ratio            1 + monitor / parse: the pipeline's ratio to parsing, counted in instructions
# The wall-clock ratio (`treeline-bench pipeline`) is larger: the monitor runs fewer instructions a
# cycle than parsing does (docs/BENCHMARKS.md). The count repeats within 0.02 % on one machine
# (Swift's hashing made deterministic for it), so a change of 1 % in monitor_per_fix shows where
# the wall clock of a shared VM cannot resolve it. Compare builds on one machine: another
# toolchain or glibc counts other instructions.
#
# Usage: Benchmarks/monitor-count.sh [--epochs N] [--fences K] [DIR]
#   N epochs of Benchmarks/baselines/gen_nmea.py, 1000 or more (default 100000: about a minute under
#   valgrind; 1000000 about six), K fences of gen_fences.py (default 10000), both made in DIR
#   (default /tmp/treeline-bench) unless there already. Needs valgrind: `make bench-count`
#   installs it and runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=100000 fences=10000 dir=/tmp/treeline-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs|--fences)
      [ $# -ge 2 ] || { echo "monitor-count.sh: $1 needs a number (see --help)" >&2; exit 2; }
      if [ "$1" = --epochs ]; then epochs=$2; else fences=$2; fi
      shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "monitor-count.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *)
      [ -z "${given_dir:-}" ] || { echo "monitor-count.sh: one folder only, not '$given_dir' and '$1'" >&2; exit 2; }
      given_dir=$1 dir=$1; shift ;;
  esac
done
[[ "$epochs" =~ ^[1-9][0-9]{3,7}$ ]] \
  || { echo "monitor-count.sh: --epochs '$epochs' is not a count from 1000 to 99999999 (fewer fixes count mostly the start)" >&2; exit 2; }
[[ "$fences" =~ ^[1-9][0-9]{0,6}$ ]] || { echo "monitor-count.sh: --fences '$fences' is not a count from 1 to 9999999" >&2; exit 2; }
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null \
  || { echo "monitor-count.sh: valgrind is missing: \`make bench-count\` installs it (or apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$dir/nmea-$epochs.log" regions="$dir/fences-$fences.geojson"
[ "$epochs" = 1000000 ] && log="$dir/nmea-1M.log"  # Benchmarks/nmea.sh's
# The generators need numpy; each file is written beside its place and moved there whole, so
# that an interrupted run leaves no half file to be taken for data.
generate() {  # SCRIPT COUNT FILE
  local venv="$dir/venv"
  if ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy
  fi
  "$venv/bin/python" "Benchmarks/baselines/$1" "$2" "$3.part"
  mv "$3.part" "$3"
}
[ -s "$log" ] || generate gen_nmea.py "$epochs" "$log"
[ -s "$regions" ] || generate gen_fences.py "$fences" "$regions"
# swift build prints compile errors on standard output: shown when the build fails.
swift build -c release --product treeline-bench >"$work/build" 2>&1 || { cat "$work/build" >&2; exit 1; }
# valgrind 3.19 cannot read the DWARF 5 that swiftc writes: count on a copy without it.
cp .build/release/treeline-bench "$work/treeline-bench"
strip --strip-debug "$work/treeline-bench"
SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$work/out" \
  "$work/treeline-bench" pipeline "$log" "$regions" --runs 1 >"$work/bench" 2>"$work/valgrind" \
  || { cat "$work/valgrind" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$work/out" >"$work/annotated"
python3 - "$work/annotated" "$work/bench" "$log" "$regions" <<'PY'
import json, re, sys
annotated, bench, log, regions = sys.argv[1:]
# Inclusive instructions of a function, by its mangled name (the first column of its line).
def inclusive(symbol, what):
    for line in open(annotated):
        if symbol in line:
            m = re.match(r"\s*([\d,]+)", line)
            if m:
                return int(m.group(1).replace(",", ""))
    sys.exit(f"monitor-count.sh: no {what} ({symbol}) in callgrind's profile: renamed? Update the symbol in Benchmarks/monitor-count.sh")
read = inclusive("$s4NMEA10NMEAReaderV4readyySW_y3Geo3FixVXEtF ", "NMEAReader.read(_:_:)")
monitor = inclusive("$s5Rules13RegionMonitorV7processyy3Geo3FixV_yAA0B5EventVXEtF ", "RegionMonitor.process(_:_:)")
result = json.loads(open(bench).read().strip().splitlines()[-1])
fixes, used = result["fixes"], result["used"]
parse = (read - monitor) / (4 * fixes)     # four passes of parsing, each of every fix
per_fix = monitor / (2 * fixes)            # two of the monitor
print(f"monitor-count: {log} against {regions} ({result['K']:,} fences), {fixes:,} fixes a pass, {used:,} used")
print()
print("| measure | instructions a fix |")
print("| --- | ---: |")
print(f"| parsing (`NMEAReader.read`, less the monitor) | {parse:,.0f} |")
print(f"| gate and monitor (`RegionMonitor.process`) | {per_fix:,.0f} |")
print(f"| ratio, 1 + monitor / parsing | {1 + per_fix / parse:.3f} |")
print()
print(json.dumps({"bench": "monitor-count", "K": result["K"], "fixes": fixes, "used": used,
                  "quiet": result.get("quiet"), "events": result["events"],  # no quiet balls before 2026-11
                  "parse_per_fix": round(parse, 1), "monitor_per_fix": round(per_fix, 1),
                  "monitor_instructions": monitor, "ratio": round(1 + per_fix / parse, 4)}))
PY
