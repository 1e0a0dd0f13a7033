#!/usr/bin/env bash
# NMEA throughput in one session: Treeline's reader vs pynmea2 (strict checksums) on the same
# 1,000,000-epoch log from Benchmarks/baselines/gen_nmea.py, with the ratio. Usage: Benchmarks/nmea.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/treeline-bench}
baselines=Benchmarks/baselines
mkdir -p "$dir"
venv="$dir/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy pynmea2
fi
log="$dir/nmea-1M.log"
[ -s "$log" ] || "$venv/bin/python" "$baselines/gen_nmea.py" 1000000 "$log"
swift build -c release --product treeline-bench >/dev/null
# (No `tee /dev/stderr`: when stderr is a file, re-opening it truncates what was written.)
ours_all=$(.build/release/treeline-bench nmea "$log" --runs 5)
printf '%s\n' "$ours_all"
ours=$(printf '%s\n' "$ours_all" | tail -1)
theirs=$("$venv/bin/python" "$baselines/bench_pynmea2.py" "$log" strict)
printf 'pynmea2: %s\n' "$theirs"
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
o = ours["sentences_per_s"]; p = theirs["ok_sentences_per_s"]
minmea = 3.5e6  # Benchmarks/baselines/README.md: minmea (C, -O2), strict checksums, on this kind of machine
print()
print("| reader | valid sentences/s | ratio |")
print("| --- | ---: | ---: |")
print(f"| Treeline (median of 5) | {o/1e6:.2f} M | 1 |")
print(f"| pynmea2 strict (same run) | {p/1e6:.3f} M | Treeline is {o/p:.1f}x |")
print(f"| minmea, quoted figure | {minmea/1e6:.1f} M | Treeline is {o/minmea:.2f}x |")
print(f"peak RSS {ours['peak_rss_mib']} MiB for a {ours['lines']:,}-line file")
PY
