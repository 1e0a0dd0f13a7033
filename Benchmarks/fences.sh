#!/usr/bin/env bash
# Point-in-fence throughput in one session: Treeline vs shapely 2 (GEOS STRtree, bulk 'within'),
# K = 1k, 10k, 100k fences from Benchmarks/baselines/gen_fences.py and 1M points from gen_points.py.
# Prints load time, points/s, peak RSS for both, the ratios, and the (point, fence) pairs that
# differ and why. Usage: Benchmarks/fences.sh [DIR] [K ...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/treeline-bench}
shift || true
sizes=${*:-1000 10000 100000}
baselines=Benchmarks/baselines
mkdir -p "$dir"
venv="$dir/venv"
"$venv/bin/python" -c "import numpy, shapely, pyproj" 2>/dev/null || {
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy 'shapely>=2' pyproj pynmea2
}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time for shapely's peak RSS: apt-get install time" >&2; exit 1; }
points="$dir/points-1M.csv"
[ -s "$points" ] || "$venv/bin/python" "$baselines/gen_points.py" 1000000 "$points"
swift build -c release --product treeline-bench >/dev/null
rows=()
for k in $sizes; do
  fences="$dir/fences-$k.geojson"
  [ -s "$fences" ] || "$venv/bin/python" "$baselines/gen_fences.py" "$k" "$fences" 2>/dev/null
  pairs_arg=()
  [ "$k" -le 10000 ] && pairs_arg=(--pairs "$dir/pairs-$k.txt")
  ours=$(.build/release/treeline-bench fences "$fences" --points-file "$points" --runs 3 "${pairs_arg[@]}" | tail -1)
  theirs=$( { /usr/bin/time -f 'RSS %M' "$venv/bin/python" "$baselines/bench_geofence.py" "$fences" bulk_within --points-file "$points"; } 2>&1 )
  shapely_json=$(printf '%s\n' "$theirs" | grep '^{')
  shapely_rss=$(printf '%s\n' "$theirs" | awk '/^RSS/ {print $2}')
  compare='{}'
  [ "$k" -le 10000 ] && compare=$("$venv/bin/python" Benchmarks/shapely_pairs.py "$fences" "$points" "$dir/pairs-$k.txt")
  rows+=("$(python3 - "$ours" "$shapely_json" "$shapely_rss" "$compare" <<'PY'
import json, sys
o, s, rss_kb, c = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
srss = rss_kb / 1024
row = (f"| {o['K']:,} | {o['load_s']:.2f} s | {s['t_load_fences_s'] + s['t_strtree_fences_s']:.2f} s | "
       f"{o['points_per_s']:,} | {s['points_per_s']:,.0f} | **{o['points_per_s'] / s['points_per_s']:.1f}x** | "
       f"{o['peak_rss_mib']:.0f} MiB | {srss:.0f} MiB | **{o['peak_rss_mib'] / srss:.0%}** | {o['pairs']:,} | {s['pairs']:,} |")
if c:
    row += (f" {c['only_treeline']:,} only ours ({c['only_treeline_circle_outside_32gon']:,} between 32-gon and circle, "
            f"{c['only_treeline_polygon']:,} polygon); {c['only_shapely']:,} only shapely ({c['only_shapely_circle_utm_scale']:,} "
            f"within UTM's 0.04 % scale beyond the circle, {c['only_shapely_polygon']:,} polygon) |")
else:
    row += " (not dumped) |"
print(row)
PY
)")
done
echo
echo "| K | load (Treeline) | load (shapely) | points/s Treeline | points/s shapely | ratio | peak RSS Treeline | peak RSS shapely | RSS ratio | pairs Treeline | pairs shapely | pairs that differ |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
