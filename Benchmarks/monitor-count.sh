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
# cycle than parsing does (docs/BENCHMARKS.md). A change that moves monitor_per_fix by 1 % shows
# here on any machine; the wall clock of a shared VM does not resolve it.
#
# Usage: Benchmarks/monitor-count.sh [--epochs N] [--fences K] [DIR]
#   N epochs of Benchmarks/baselines/gen_nmea.py (default 100000: about a minute under
#   valgrind; 1000000 about six), K fences of gen_fences.py (default 10000), both made in DIR
#   (default /tmp/treeline-bench) unless there already. Needs valgrind: `make bench-count`
#   installs it and runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=100000 fences=10000 dir=/tmp/treeline-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) epochs=${2:?--epochs needs a number}; shift 2 ;;
    --fences) fences=${2:?--fences needs a number}; shift 2 ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "monitor-count.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
for n in "$epochs" "$fences"; do
  [[ "$n" =~ ^[1-9][0-9]{0,7}$ ]] || { echo "monitor-count.sh: '$n' is not a count from 1 to 99999999" >&2; exit 2; }
done
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null \
  || { echo "monitor-count.sh: valgrind is missing: \`make bench-count\` installs it (or apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$dir"
venv="$dir/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy
fi
log="$dir/nmea-$epochs.log" regions="$dir/fences-$fences.geojson"
[ "$epochs" = 1000000 ] && log="$dir/nmea-1M.log"  # Benchmarks/nmea.sh's
[ -s "$log" ] || "$venv/bin/python" Benchmarks/baselines/gen_nmea.py "$epochs" "$log"
[ -s "$regions" ] || "$venv/bin/python" Benchmarks/baselines/gen_fences.py "$fences" "$regions"
swift build -c release --product treeline-bench >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that swiftc writes: count on a copy without it.
cp .build/release/treeline-bench "$work/treeline-bench"
strip --strip-debug "$work/treeline-bench"
valgrind --tool=callgrind --callgrind-out-file="$work/out" \
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
                  "quiet": result["quiet"], "events": result["events"],
                  "parse_per_fix": round(parse, 1), "monitor_per_fix": round(per_fix, 1),
                  "monitor_instructions": monitor, "ratio": round(1 + per_fix / parse, 4)}))
PY
